import { expect, test } from '@jupyterlab/galata';

import { expand, openPanel, row, run } from './helpers';

test.describe('Kernel State assistant view', () => {
  test('shows the assistant text with its size and masks a planted secret', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('assistant.ipynb');
    const section = panel.getByTestId('kernel-state-assistant');
    await expect(section.getByTestId('kernel-state-prompt-text')).toHaveCount(
      0
    );
    await expand(section);

    await run(
      page,
      0,
      "api_key = 'sk-demo-abcdefghijklmnop'\nrows = [1, 2, 3]"
    );
    const text = section.getByTestId('kernel-state-prompt-text');
    await expect(text).toContainText('Kernel state — python');
    await expect(text).toContainText('rows');
    await expect(text).toContainText('masked');
    await expect(text).not.toContainText('sk-demo');
    await expect(section.getByTestId('kernel-state-prompt-size')).toHaveText(
      /^[\d,]+ characters · ~[\d,]+ tokens$/
    );
    const chars = Number(
      (await section.getByTestId('kernel-state-prompt-size').textContent())!
        .split(' ')[0]
        .replace(/,/g, '')
    );
    expect(chars).toBe((await text.textContent())!.length);

    // The list marks the credential with a lock whose title says why.
    const badge = row(panel, 'api_key').getByTestId('kernel-state-secret');
    await expect(badge).toBeVisible();
    await expect(badge).toHaveAttribute('title', /.+/);

    // The view follows the next execution.
    await run(page, 1, 'later = 7');
    await expect(text).toContainText('later');

    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write']);
    await section.getByTestId('kernel-state-prompt-copy').click();
    await expect(section.getByTestId('kernel-state-prompt-copy')).toHaveText(
      'Copied'
    );
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await text.textContent());
  });

  test('a saved description reaches the assistant text', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('annotate.ipynb');
    const section = panel.getByTestId('kernel-state-assistant');
    await expand(section);
    await run(page, 0, 'revenue = [10, 20, 30]\nscratch = 1');
    const text = section.getByTestId('kernel-state-prompt-text');
    await expect(text).toContainText('revenue');

    await row(panel, 'revenue').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await inspector.getByText('Note for the assistant').click();
    const editor = inspector.getByTestId('kernel-state-annotation');
    await editor.getByLabel('Description').fill('quarterly revenue in kEUR');
    await editor.getByLabel('Constraints').fill('read-only');
    await editor.getByTestId('kernel-state-annotation-save').click();
    await expect(
      editor.getByTestId('kernel-state-annotation-status')
    ).toHaveText('Saved');
    await expect(text).toContainText('quarterly revenue in kEUR');
    await expect(text).toContainText('read-only');

    // Hidden from the assistant: its name leaves the text.
    await row(panel, 'scratch').click();
    await inspector.getByText('Note for the assistant').click();
    await editor.getByLabel('Hide from assistant').check();
    await editor.getByTestId('kernel-state-annotation-save').click();
    await expect(
      editor.getByTestId('kernel-state-annotation-status')
    ).toHaveText('Saved');
    await expect(text).not.toContainText('scratch');
    await expect(section).toContainText('1 hidden');

    await editor.getByTestId('kernel-state-annotation-clear').click();
    await expect(
      editor.getByTestId('kernel-state-annotation-status')
    ).toHaveText('Cleared');
    await expect(text).toContainText('scratch');
  });

  test('inspects the name under the cursor from the cell context menu', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('context.ipynb');
    await run(page, 0, "target_table = {'a': 1}\nother = 2");
    await expect(row(panel, 'target_table')).toBeVisible();

    await page.notebook.enterCellEditingMode(0);
    const line = page.locator('.jp-Cell .cm-line').first();
    // Left of the line is inside `target_table`.
    await line.click({ position: { x: 20, y: 5 } });
    await line.click({ position: { x: 20, y: 5 }, button: 'right' });
    const item = page.getByRole('menuitem', {
      name: /Inspect “target_table” in Kernel State/
    });
    await expect(item).toBeVisible();
    await item.click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector.getByTestId('kernel-state-repr')).toHaveText(
      "{'a': 1}"
    );
  });

  test('copies the assistant text from the command palette command', async ({
    page
  }) => {
    await openPanel(page);
    await page.notebook.createNew('copy.ipynb');
    await run(page, 0, 'copied_value = 42');
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute(
        'kernel-state:copy-prompt'
      );
    });
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toContain('copied_value');
  });
});
