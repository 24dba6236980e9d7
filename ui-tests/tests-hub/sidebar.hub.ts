/**
 * The Kernel State sidebar in JupyterLab served by a single-user server behind JupyterHub:
 * log in through the hub, open /user/<name>/lab, run a cell, see the variables.
 */
import { expect, test } from '@playwright/test';

const user = process.env.KERNEL_STATE_HUB_UI_USER || 'alice';
const password =
  process.env.KERNEL_STATE_HUB_UI_PASSWORD || 'kernel-state-hub-test';
const SIDEBAR_TAB = `.lm-TabBar.jp-SideBar li.lm-TabBar-tab[data-id="jp-kernel-state-sidebar"]`;

test('the sidebar shows the variables of a notebook in /user/<name>/lab', async ({
  page
}) => {
  await page.goto('/hub/login');
  await page.getByLabel('Username:').fill(user);
  await page.getByLabel('Password:', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  // The hub spawns the server, then OAuth brings the browser to the user's JupyterLab.
  await page.waitForURL(new RegExp(`/user/${user}/lab`), { timeout: 150000 });
  const card = page
    .locator('.jp-LauncherCard[data-category="Notebook"]')
    .first();
  await expect(card).toBeVisible({ timeout: 90000 });
  await card.click();

  const notebook = page.locator('.jp-NotebookPanel');
  await expect(notebook).toBeVisible();
  // A cell run before the new notebook's kernel is connected is not executed at all.
  await expect(page.locator('#jp-main-statusbar')).toContainText(
    /Python 3 \(ipykernel\) \| Idle/,
    { timeout: 90000 }
  );
  await notebook.locator('.jp-Cell .cm-content').first().click();
  await page.keyboard.insertText(
    "import pandas as pd\nhub_frame = pd.DataFrame({'a': [1, 2, 3]})\nhub_answer = 6 * 7"
  );

  const variables = page.waitForResponse(
    response =>
      response.url().includes(`/user/${user}/api/kernel-state/kernels/`) &&
      response.url().includes('/variables') &&
      response.status() === 200,
    { timeout: 90000 }
  );
  await page.keyboard.press('Shift+Enter');
  await expect(notebook.locator('.jp-InputPrompt').first()).toHaveText('[1]:', {
    timeout: 90000
  });

  await page.locator(SIDEBAR_TAB).click();
  const panel = page.getByTestId('kernel-state-panel');
  await expect(panel).toBeVisible();
  await expect(
    page.getByRole('grid', { name: 'Kernel variables' })
  ).toBeVisible();
  const answer = panel.locator(
    '[data-test-id="kernel-state-row"][data-name="hub_answer"]'
  );
  await expect(answer).toBeVisible();
  await expect(answer).toContainText('42');
  const frame = panel.locator(
    '[data-test-id="kernel-state-row"][data-name="hub_frame"]'
  );
  await expect(frame.getByRole('gridcell').nth(1)).toContainText('DataFrame');
  await expect(frame.getByRole('gridcell').nth(2)).toHaveText('3×1');
  await expect(panel.getByTestId('kernel-state-total')).toContainText(
    '2 variables'
  );

  // The sidebar reached the API through the hub's proxy, under the user's prefix.
  await variables;
});
