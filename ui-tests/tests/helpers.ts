/**
 * Shared steps of the Kernel State UI tests.
 */
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

export const SIDEBAR = 'jp-kernel-state-sidebar';

export async function openPanel(
  page: IJupyterLabPageFixture
): Promise<Locator> {
  await page.sidebar.openTab(SIDEBAR);
  const panel = page.getByTestId('kernel-state-panel');
  await expect(panel).toBeVisible();
  return panel;
}

export function row(panel: Locator, name: string): Locator {
  return panel.locator(
    `[data-test-id="kernel-state-row"][data-name="${name}"]`
  );
}

/**
 * Put `source` in cell `index` (adding a cell after the first) and run it.
 */
export async function run(
  page: IJupyterLabPageFixture,
  index: number,
  source: string,
  wait = true
): Promise<void> {
  if (index > 0) {
    await page.notebook.addCell('code', source);
  } else {
    await page.notebook.setCell(0, 'code', source);
  }
  await page.notebook.runCell(index, { inplace: true, wait });
}

/**
 * Expand a folded section of the panel (images, assistant view).
 */
export async function expand(section: Locator): Promise<void> {
  const toggle = section.locator('.jp-KernelState-foldToggle');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.click();
  }
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
}

/**
 * Open variable `name` of the followed kernel in the data explorer (its command, as the
 * sidebar's menu does); the explorer panel shown.
 */
export async function openExplorer(
  page: IJupyterLabPageFixture,
  name: string
): Promise<Locator> {
  await page.evaluate(async name => {
    await (window as any).jupyterapp.commands.execute(
      'kernel-state:open-explorer',
      { name }
    );
  }, name);
  const panel = page.locator(
    '.jp-KernelState-explorerPanel:not(.lm-mod-hidden)'
  );
  await expect(panel).toBeVisible();
  return panel;
}

/**
 * Open table file `name` (in the file browser's current folder) in the data explorer as
 * a user does: right-click it, **Open in Data Explorer**; the explorer panel shown.
 */
export async function openFileInExplorer(
  page: IJupyterLabPageFixture,
  name: string
): Promise<Locator> {
  await page.filebrowser.refresh();
  const item = page.locator('.jp-DirListing-item', { hasText: name });
  await expect(item).toBeVisible();
  await item.click({ button: 'right' });
  await page
    .locator('.lm-Menu-item', { hasText: 'Open in Data Explorer' })
    .first()
    .click();
  const panel = page.locator(
    '.jp-KernelState-explorerPanel:not(.lm-mod-hidden)'
  );
  await expect(panel).toBeVisible();
  return panel;
}
