/**
 * Tables over time in the data explorer: the Findings list (Show rows filters the grid
 * to a finding's rows, Insert fix puts its code below the active cell), Compare with…
 * another variable, and Compare with… a version of the table kept earlier ("Keep this
 * version"), showing the cells a later cell changed.
 *
 * With KERNEL_STATE_SCREENSHOTS=1 it also writes docs/images/explorer-findings.png and
 * explorer-compare.png (a 1440×900 window, the sidebar at its default width):
 *
 *   cd ui-tests && KERNEL_STATE_SCREENSHOTS=1 jlpm playwright test tests/tables-over-time.spec.ts
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';
import * as path from 'path';

import { openExplorer, openPanel, row, run } from './helpers';

const OUTPUT = path.resolve(__dirname, '..', '..', 'docs', 'images');

/**
 * A table after a careless extract: 12 missing prices, 3 duplicate rows, a constant
 * column, labels that differ in case; `raw` before and `clean` after a cleaning step.
 */
const TABLES = [
  'import numpy as np, pandas as pd',
  'rng = np.random.default_rng(3)',
  'n = 400',
  'orders = pd.DataFrame({"order_id": np.arange(1, n + 1),',
  '                       "price": np.round(rng.uniform(5, 200, n), 2),',
  '                       "region": rng.choice(["North", "north ", "South"], n),',
  '                       "source": "export"})',
  'orders.loc[orders.index[:12], "price"] = np.nan',
  'orders = pd.concat([orders, orders.iloc[20:23]], ignore_index=True)',
  'raw = orders.drop_duplicates().copy()',
  'clean = raw.dropna(subset=["price"]).assign(region=lambda t: t.region.str.strip().str.title())',
  'sales = raw.copy()'
].join('\n');

test.use({ viewport: { width: 1440, height: 900 } });

async function shoot(page: IJupyterLabPageFixture, file: string) {
  if (process.env.KERNEL_STATE_SCREENSHOTS !== '1') {
    return;
  }
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(OUTPUT, file) });
}

async function setUp(page: IJupyterLabPageFixture, notebook: string) {
  const sidebar = await openPanel(page);
  await page.notebook.createNew(notebook);
  await run(page, 0, TABLES);
  await expect(row(sidebar, 'sales')).toBeVisible();
}

/**
 * Pick `item` in "Compare with…"'s list of tables, then give the key.
 */
async function compareWith(
  page: IJupyterLabPageFixture,
  item: string,
  key: string
): Promise<Locator> {
  await visible(page, 'kernel-state-explorer-compare').click();
  const choose = page.getByRole('dialog');
  await expect(choose).toContainText('The table before');
  await choose.getByRole('combobox').selectOption({ label: item });
  await choose.getByRole('button', { name: 'OK' }).click();
  const keyDialog = page.getByRole('dialog');
  await expect(keyDialog).toContainText('Key columns');
  await keyDialog.getByRole('textbox').fill(key);
  await keyDialog.getByRole('button', { name: 'OK' }).click();
  const compared = page.locator(
    '[data-test-id="kernel-state-compare"]:visible'
  );
  await expect(compared).toBeVisible();
  return compared;
}

/**
 * The one element of `testId` in the tab shown (each explorer tab has its toolbar).
 */
function visible(page: IJupyterLabPageFixture, testId: string): Locator {
  return page.locator(`[data-test-id="${testId}"]:visible`);
}

test.describe('Tables over time', () => {
  test('findings: Show rows filters the grid, Insert fix adds a cell', async ({
    page
  }) => {
    test.setTimeout(240_000);
    await setUp(page, 'findings.ipynb');
    const panel = await openExplorer(page, 'orders');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('403 rows × 4 columns');
    await panel.getByTestId('kernel-state-findings-toggle').click();
    const findings = panel.getByRole('region', { name: 'Findings' });
    await expect(findings).toBeVisible();
    const list = findings.getByRole('list', { name: 'Findings' });
    const missing = list.locator(
      '[data-test-id="kernel-state-finding"][data-kind="missing"]'
    );
    await expect(missing).toContainText('price: 12 missing values');
    await expect(
      list.locator(
        '[data-test-id="kernel-state-finding"][data-kind="duplicate_rows"]'
      )
    ).toContainText('3 duplicate rows');
    await expect(
      list.locator(
        '[data-test-id="kernel-state-finding"][data-kind="constant"]'
      )
    ).toBeVisible();
    // Nothing ran out of time: the footer's "Try with 60 s" stays hidden.
    await expect(
      panel.getByTestId('kernel-state-explorer-more-time')
    ).toBeHidden();
    await shoot(page, 'explorer-findings.png');

    // Insert fix: the code that drops the duplicates, below the notebook's active cell.
    const duplicates = list.locator(
      '[data-test-id="kernel-state-finding"][data-kind="duplicate_rows"]'
    );
    await duplicates.getByRole('button', { name: 'Insert fix' }).click();
    await expect(
      findings.getByTestId('kernel-state-findings-status')
    ).toHaveText(/^Inserted in .*findings\.ipynb: run it/);

    // Show rows: the grid filtered to the 12 rows without a price.
    await missing.getByRole('button', { name: 'Show rows' }).click();
    await expect(size).toHaveText('12 of 403 rows × 4 columns');
    await expect(
      findings.getByTestId('kernel-state-findings-shown')
    ).toContainText('price: 12 missing values');

    await page.notebook.activate('findings.ipynb');
    expect(await page.notebook.getCellCount()).toBe(2);
    expect(await page.notebook.getCellTextInput(1)).toContain(
      'orders = orders.drop_duplicates('
    );
  });

  test('compare with another variable, then with a kept earlier version', async ({
    page
  }) => {
    test.setTimeout(300_000);
    await setUp(page, 'compare.ipynb');

    // Another variable: clean (after) against raw (before).
    await openExplorer(page, 'clean');
    const vsRaw = await compareWith(page, 'raw', 'order_id');
    await expect(vsRaw.getByTestId('kernel-state-compare-status')).toHaveText(
      /^clean vs raw by key order_id: 0 added, 12 removed, \d+ changed, \d+ unchanged/
    );
    await expect(
      vsRaw.getByTestId('kernel-state-compare-changed').first()
    ).toContainText('→');

    // A version kept on request, the table then changed in place by a cell.
    await openExplorer(page, 'sales');
    await visible(page, 'kernel-state-explorer-keep').click();
    await expect(page.locator('.Toastify__toast').last()).toContainText(
      'Kept sales as of [1]'
    );
    await page.getByRole('tab', { name: 'compare.ipynb' }).click();
    await run(page, 1, "sales.loc[sales.price > 100, 'price'] *= 1.1");
    await page.getByRole('tab', { name: 'sales', exact: true }).click();
    const kept = await compareWith(page, 'sales as of [1]', 'order_id');
    const status = kept.getByTestId('kernel-state-compare-status');
    await expect(status).toHaveText(
      /^sales vs sales as of \[1\] by key order_id: 0 added, 0 removed, [1-9][\d,]* changed/
    );
    const changed = kept.getByTestId('kernel-state-compare-changed');
    await expect(changed.first()).toHaveText(/^[\d.]+ → [\d.]+$/);
    await expect(
      kept.getByTestId('kernel-state-compare-columns')
    ).toContainText('price: ');
    await expect(kept.getByTestId('kernel-state-compare-note')).toContainText(
      'sales_at_1 is sales as of [1], a copy the extension keeps'
    );
    await shoot(page, 'explorer-compare.png');
  });
});
