import { expect, test } from '@jupyterlab/galata';

import { openFileInExplorer, run } from './helpers';

/**
 * A Parquet file written by a cell: ids 0 … 999, `price` a permutation of them.
 */
const WRITE = [
  'import duckdb',
  "duckdb.sql(\"COPY (SELECT range AS id, (range * 7) % 1000 AS price, ['north', 'south'][range % 2 + 1] AS region FROM range(1000)) TO 'sales.parquet' (FORMAT parquet)\")",
  "print('written')"
].join('\n');

test.describe('Table files', () => {
  test('open a Parquet file from the file browser, sort it, load it into the kernel', async ({
    page,
    tmpPath
  }) => {
    await page.notebook.createNew('files.ipynb');
    await run(page, 0, WRITE);
    const panel = await openFileInExplorer(page, 'sales.parquet');
    await expect(panel.getByTestId('kernel-state-explorer-size')).toHaveText(
      '1,000 rows × 3 columns'
    );
    // Nothing here needs a kernel: no Keep this version, no Compare with….
    await expect(panel.getByTestId('kernel-state-explorer-keep')).toHaveCount(
      0
    );
    await expect(
      panel.getByTestId('kernel-state-explorer-compare')
    ).toHaveCount(0);

    // Sort by the first column, descending: two clicks on its header (painted on a
    // canvas: clicked where the grid draws it).
    const headerWidth = await page.evaluate(
      () =>
        (window as any).jupyterapp.shell.currentWidget.content.grid.headerWidth
    );
    const box = (await panel
      .getByTestId('kernel-state-explorer-grid')
      .boundingBox())!;
    const sort = panel.getByTestId('kernel-state-explorer-sort');
    await page.mouse.click(box.x + headerWidth + 24, box.y + 11);
    await expect(sort).toHaveText('Sorted by id ▲');
    await page.mouse.click(box.x + headerWidth + 24, box.y + 11);
    await expect(sort).toHaveText('Sorted by id ▼');
    await expect(
      panel.getByTestId('kernel-state-explorer-range')
    ).toContainText('Rows 1–');

    await panel.getByTestId('kernel-state-explorer-load-file').click();
    await page.notebook.activate('files.ipynb');
    await expect
      .poll(async () => page.notebook.getCellCount(), { timeout: 20000 })
      .toBe(2);
    const inserted = await page.notebook.getCellTextInput(1);
    expect(inserted).toContain('pd.read_parquet("sales.parquet")');
    expect(inserted).toContain('sort_values(["id"], ascending=[False]');
    await page.notebook.addCell('code', 'print(int(sales_view.iloc[0]["id"]))');
    await page.notebook.runCell(1, { inplace: true, wait: true });
    await page.notebook.runCell(2, { inplace: true, wait: true });
    expect(await page.notebook.getCellTextOutput(2)).toEqual(['999\n']);
    expect(tmpPath).toBeTruthy();
  });
});
