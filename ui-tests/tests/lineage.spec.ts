/**
 * Lineage in the sidebar, with a real kernel: the inspector's "Defined in" and "Used
 * in" (execution numbers and the cell's first line; a click goes to the cell), and the
 * list's "Used by the active cell" view following the active notebook cell.
 */
import { expect, test } from '@jupyterlab/galata';

import { openPanel, row, run } from './helpers';

test.describe('Kernel State lineage', () => {
  test('shows where a variable was defined and used, and filters by the active cell', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('lineage.ipynb');
    await run(page, 0, 'base = 10\nother = 1');
    await run(page, 1, 'total = base * 2');
    await run(page, 2, 'def show():\n    return base + total');
    await expect(row(panel, 'total')).toBeVisible();

    // The inspector: where `base` was defined and used, newest first.
    await row(panel, 'base').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    const defined = inspector.getByTestId('kernel-state-defined-in');
    await expect(defined.locator('li')).toHaveText(['[1] base = 10']);
    const used = inspector.getByTestId('kernel-state-used-in');
    await expect(used.locator('li')).toHaveText([
      '[3] def show(): (in a function)',
      '[2] total = base * 2'
    ]);

    // Clicking an execution makes its cell the active one.
    await page.notebook.selectCells(2);
    await used.getByRole('button', { name: /total = base \* 2/ }).click();
    await expect(
      page.locator('.jp-Notebook .jp-Cell.jp-mod-active .jp-InputArea')
    ).toContainText('total = base * 2');

    // "Used by the active cell": the second cell bound total and read base.
    await inspector
      .getByRole('button', { name: 'Close the inspector' })
      .click();
    const toggle = panel.getByTestId('kernel-state-cell-toggle');
    await expect(toggle).toBeEnabled();
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(row(panel, 'total')).toBeVisible();
    await expect(row(panel, 'base')).toBeVisible();
    await expect(row(panel, 'other')).toHaveCount(0);
    await expect(panel.getByTestId('kernel-state-total')).toContainText(
      '2 of 3 variables used by the active cell'
    );

    // Another active cell, another list: the first cell bound base and other.
    await page.notebook.selectCells(0);
    await expect(row(panel, 'other')).toBeVisible();
    await expect(row(panel, 'total')).toHaveCount(0);

    // Off again: the whole list.
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');
    await expect(row(panel, 'total')).toBeVisible();
    await expect(row(panel, 'other')).toBeVisible();
  });
});
