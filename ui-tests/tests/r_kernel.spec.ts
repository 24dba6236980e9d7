import { expect, test } from '@jupyterlab/galata';

import { openPanel, row, run } from './helpers';

test.describe('Kernel State with an R kernel', () => {
  test('lists an R notebook’s variables and a data.frame’s shape', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('r.ipynb', { kernel: 'ir' });
    await expect(panel.getByTestId('kernel-state-empty')).toBeVisible({
      timeout: 60000
    });

    await run(
      page,
      0,
      'sales <- data.frame(region = c("n", "s", "e"), units = 1:3); x <- 42'
    );
    const sales = row(panel, 'sales');
    await expect(sales).toBeVisible({ timeout: 20000 });
    await expect(sales.getByRole('gridcell').nth(1)).toContainText(
      'data.frame'
    );
    await expect(sales.getByRole('gridcell').nth(2)).toHaveText('3×2');
    await expect(row(panel, 'x')).toContainText('42');

    await run(page, 1, 'x <- 43');
    await expect(row(panel, 'x')).toHaveAttribute('data-change', 'modified');
    await expect(row(panel, 'x')).toContainText('43');
    await expect(row(panel, 'sales')).toHaveAttribute(
      'data-change',
      'unchanged'
    );
  });
});
