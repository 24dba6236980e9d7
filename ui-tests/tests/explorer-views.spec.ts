/**
 * The data explorer's views, by role and data-test-id: the summary panel, a filter of
 * several conditions, Convert to Code (inserted in the notebook and run), a filter
 * that keeps no row and the recovery from it, Refresh after a column was added, End
 * on a wide table, and "Open in Data Explorer" from a cell's context menu.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';

import { openExplorer, run } from './helpers';

/**
 * 10,000 rows: `price` a permutation of 0 … 9,999 over 100, `region` text with one
 * row in four missing (north, south, east, None by row), `ok` booleans, `when`
 * minutes from 2024-01-01 (a week).
 */
const SALES = [
  'import numpy as np, pandas as pd',
  'n = 10_000',
  "sales = pd.DataFrame({'price': ((np.arange(n) * 7919) % n) / 100,",
  "                      'region': pd.Series(np.array(['north', 'south', 'east', None], dtype=object)[np.arange(n) % 4]),",
  "                      'ok': np.arange(n) % 3 == 0,",
  "                      'when': pd.date_range('2024-01-01', periods=n, freq='min')})"
].join('\n');

/**
 * The current explorer's model and grid (in the page).
 */
function current(page: IJupyterLabPageFixture) {
  return {
    cell: (region: string, row: number, column: number) =>
      page.evaluate(
        ([region, row, column]) =>
          (window as any).jupyterapp.shell.currentWidget.content.model.data(
            region,
            row,
            column
          ),
        [region, row, column] as [string, number, number]
      ),
    cursorColumn: () =>
      page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.content.grid
            .selectionModel.cursorColumn
      ),
    lastVisibleColumn: () =>
      page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.content.grid
            .currentViewport.lastColumn
      )
  };
}

test.describe('Data explorer views', () => {
  test('the summary panel: a row per column, expanded by keyboard, searched, showing a column', async ({
    page
  }) => {
    await page.notebook.createNew('summary.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const summary = panel.getByTestId('kernel-state-explorer-summary');
    await expect(summary).toBeVisible();
    await expect(summary).toHaveAttribute('role', 'region');
    const rows = summary.getByTestId('kernel-state-explorer-summary-row');
    await expect(rows).toHaveCount(4);
    const price = summary.locator(
      '[data-test-id="kernel-state-explorer-summary-row"][data-name="price"]'
    );
    await expect(price).toHaveAttribute('data-family', 'number');
    // The histogram arrives without blocking the grid.
    await expect(
      price.getByTestId('kernel-state-explorer-summary-spark').locator('rect')
    ).not.toHaveCount(0);
    const region = summary.locator(
      '[data-test-id="kernel-state-explorer-summary-row"][data-name="region"]'
    );
    await expect(
      region.getByTestId('kernel-state-explorer-summary-missing')
    ).toHaveAttribute('aria-valuenow', '25.0');

    // Keyboard: Tab to the toggle, Enter expands.
    const toggle = price.getByTestId('kernel-state-explorer-summary-toggle');
    await toggle.focus();
    await page.keyboard.press('Enter');
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const details = price.getByTestId('kernel-state-explorer-summary-details');
    await expect(details).toBeVisible();
    await expect(details.getByRole('term')).toContainText([
      'dtype',
      'values',
      'missing',
      'min',
      'max',
      'mean',
      'median',
      'std'
    ]);
    await page.keyboard.press('Space');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');

    // Search, then show the column in the grid.
    await summary
      .getByRole('searchbox', { name: 'Search columns' })
      .fill('WHE');
    await expect(rows).toHaveCount(1);
    await rows.first().getByTestId('kernel-state-explorer-summary-go').click();
    await expect.poll(() => current(page).cursorColumn()).toBe(3);

    // The toolbar button folds it.
    await panel.getByTestId('kernel-state-explorer-summary-button').click();
    await expect(summary).toBeHidden();
  });

  test('a filter of several conditions, with a group, and errors inline', async ({
    page
  }) => {
    await page.notebook.createNew('multi.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('10,000 rows × 4 columns');
    const conditions = panel.getByTestId(
      'kernel-state-explorer-filter-condition'
    );

    // price between 10 and 19.99
    await conditions
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'price' });
    await conditions
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('between');
    await conditions
      .nth(0)
      .getByRole('textbox', { name: 'From (included)' })
      .fill('10');
    await conditions
      .nth(0)
      .getByRole('textbox', { name: 'To (included)' })
      .fill('19.99');
    // and (region is one of north, south or region is missing)
    await panel.getByTestId('kernel-state-explorer-filter-add-group').click();
    const group = panel.getByTestId('kernel-state-explorer-filter-group');
    const inGroup = group.getByTestId('kernel-state-explorer-filter-condition');
    await inGroup
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'region' });
    await inGroup
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('in');
    const values = inGroup
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-values-input');
    await values.fill('north');
    await values.press('Enter');
    await inGroup
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-values-input')
      .fill('south');
    await inGroup
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-values-input')
      .press('Enter');
    await inGroup
      .nth(1)
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'region' });
    await inGroup
      .nth(1)
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('isnull');
    await panel.getByTestId('kernel-state-explorer-filter-apply').click();
    // 1,000 prices in [10, 19.99]; 3 of each 4 regions kept.
    await expect(size).toHaveText('750 of 10,000 rows × 4 columns');

    // Sort by price descending, then region (shift-click adds a key): the header
    // ranks are painted; the toolbar says the keys.
    await page.evaluate(() => {
      const model = (window as any).jupyterapp.shell.currentWidget.content
        .model;
      model.clickSort(0);
      model.clickSort(0);
      model.clickSort(1, true);
    });
    await expect(panel.getByTestId('kernel-state-explorer-sort')).toHaveText(
      'Sorted by price ▼, region ▲'
    );

    // A value that is not a number: said beside the condition, the draft kept.
    await conditions
      .nth(0)
      .getByRole('textbox', { name: 'From (included)' })
      .fill('cheap');
    await panel.getByTestId('kernel-state-explorer-filter-apply').click();
    await expect(
      panel.getByTestId('kernel-state-explorer-filter-error')
    ).toContainText('The kernel refused this filter');
    await expect(
      conditions
        .nth(0)
        .getByTestId('kernel-state-explorer-filter-condition-error')
    ).toBeVisible();
    await expect(size).toHaveText('10,000 rows × 4 columns');
    // A missing value is caught before asking.
    await conditions
      .nth(0)
      .getByRole('textbox', { name: 'From (included)' })
      .fill('');
    await panel.getByTestId('kernel-state-explorer-filter-apply').click();
    await expect(
      conditions
        .nth(0)
        .getByTestId('kernel-state-explorer-filter-condition-error')
    ).toHaveText('Enter both ends of the range');
  });

  test('Convert to Code: the code of the view, inserted below the active cell, gives the same rows', async ({
    page
  }) => {
    await page.notebook.createNew('code.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await panel
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'price' });
    await panel
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('lt');
    await panel.getByTestId('kernel-state-explorer-filter-value').fill('5');
    await panel
      .getByTestId('kernel-state-explorer-filter-value')
      .press('Enter');
    await expect(size).toHaveText('500 of 10,000 rows × 4 columns');

    await panel.getByTestId('kernel-state-explorer-code-button').click();
    const code = panel.getByTestId('kernel-state-explorer-code');
    await expect(code).toBeVisible();
    await expect(
      code.getByTestId('kernel-state-explorer-code-syntax')
    ).toHaveValue('pandas');
    const text = code.getByTestId('kernel-state-explorer-code-text');
    await expect(text).toContainText('sales_view');
    await code.getByTestId('kernel-state-explorer-code-insert').click();
    await expect(
      code.getByTestId('kernel-state-explorer-code-status')
    ).toContainText('Inserted in');

    // The new cell is below the active one (the first): run it, then count.
    await page.activity.activateTab('code.ipynb');
    await expect(page.notebook.getCellLocator(1)).resolves.not.toBeNull();
    expect(await page.notebook.getCellTextInput(1)).toContain('sales_view');
    await page.notebook.runCell(1, { inplace: true, wait: true });
    await run(page, 2, 'print(len(sales_view))');
    await expect(page.locator('.jp-OutputArea-output').last()).toHaveText(
      '500'
    );
  });

  test('a filter that keeps no row: Clear, a new filter and Refresh still work', async ({
    page
  }) => {
    await page.notebook.createNew('empty.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    const range = panel.getByTestId('kernel-state-explorer-range');
    const value = panel.getByTestId('kernel-state-explorer-filter-value');
    await panel
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'price' });
    await panel
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('ge');
    await value.fill('9990');
    await value.press('Enter');
    await expect(size).toHaveText('0 of 10,000 rows × 4 columns');
    await expect(range).toHaveText('No rows');

    await panel.getByTestId('kernel-state-explorer-filter-clear').click();
    await expect(size).toHaveText('10,000 rows × 4 columns');
    // The inputs hold no old condition.
    await expect(
      panel.getByTestId('kernel-state-explorer-filter-value')
    ).toHaveValue('');
    await expect(
      panel.getByTestId('kernel-state-explorer-filter-condition')
    ).toHaveCount(1);

    // Another empty filter (a date), then a new one, then Refresh.
    await panel
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'when' });
    await panel
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('eq');
    await panel
      .getByTestId('kernel-state-explorer-filter-value')
      .fill('2024-12-31');
    await panel
      .getByTestId('kernel-state-explorer-filter-value')
      .press('Enter');
    await expect(size).toHaveText('0 of 10,000 rows × 4 columns');
    await panel
      .getByTestId('kernel-state-explorer-filter-value')
      .fill('2024-01-01 05:00');
    await panel.getByTestId('kernel-state-explorer-filter-apply').click();
    await expect(size).toHaveText('1 of 10,000 rows × 4 columns');
    await panel.getByTestId('kernel-state-explorer-refresh').click();
    await expect(size).toHaveText('1 of 10,000 rows × 4 columns');
    await expect(range).toContainText('Rows 1–1 of 1');
  });

  test('Refresh after a column was added reads it and clears the banner', async ({
    page
  }) => {
    await page.notebook.createNew('refresh.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('10,000 rows × 4 columns');
    const banner = panel.getByTestId('kernel-state-explorer-stale');

    await page.activity.activateTab('refresh.ipynb');
    await run(page, 1, 'sales["revenue"] = sales["price"] * 3');
    await page.activity.activateTab('sales');
    await expect(banner).toContainText('sales changed since loaded');
    await panel.getByTestId('kernel-state-explorer-stale-refresh').click();
    await expect(size).toHaveText('10,000 rows × 5 columns');
    await expect(banner).toBeHidden();
    const model = current(page);
    await expect.poll(() => model.cell('column-header', 0, 4)).toBe('revenue');
    await expect.poll(() => model.cell('body', 0, 4)).not.toBeUndefined();
    // It stays hidden (nothing marks the new rows stale).
    await page.waitForTimeout(1000);
    await expect(banner).toBeHidden();
  });

  test('numbers at a readable precision, End reaches the last of 5,000 columns in one press', async ({
    page
  }) => {
    await page.notebook.createNew('wide.ipynb');
    await run(
      page,
      0,
      [
        'import numpy as np, pandas as pd',
        'wide = pd.DataFrame(np.full((20, 5000), 6949.488000000001), columns=[f"c{i}" for i in range(5000)])'
      ].join('\n')
    );
    const panel = await openExplorer(page, 'wide');
    await expect(panel.getByTestId('kernel-state-explorer-size')).toHaveText(
      '20 rows × 5,000 columns'
    );
    await panel.getByTestId('kernel-state-explorer-summary-button').click();
    const grid = panel.getByTestId('kernel-state-explorer-grid');
    const box = (await grid.boundingBox())!;
    const headerWidth = await page.evaluate(
      () =>
        (window as any).jupyterapp.shell.currentWidget.content.grid.headerWidth
    );
    // Narrow columns: the painted text is `6,949.49`, not the full repr.
    const widths = await page.evaluate(() => {
      const grid = (window as any).jupyterapp.shell.currentWidget.content.grid;
      return [0, 1, 2].map(c => grid.columnSize('body', c));
    });
    for (const width of widths) {
      expect(width).toBeLessThan(110);
    }
    // The full value on hover.
    await page.mouse.move(box.x + headerWidth + 20, box.y + 44 + 11);
    await expect(panel.locator('.lm-DataGrid-viewport')).toHaveAttribute(
      'title',
      '6949.488000000001'
    );
    await page.mouse.click(box.x + headerWidth + 20, box.y + 44 + 11);
    await page.keyboard.press('End');
    await expect
      .poll(() => current(page).lastVisibleColumn(), { timeout: 15000 })
      .toBe(4999);
    // The last columns' windows arrive and are sized: the view stays at the end.
    await expect
      .poll(() =>
        page.evaluate(() => {
          const content = (window as any).jupyterapp.shell.currentWidget
            .content;
          const viewport = content.grid.currentViewport;
          for (let c = viewport.firstColumn; c <= viewport.lastColumn; c++) {
            if (typeof content.model.data('body', 0, c) !== 'string') {
              return false;
            }
          }
          return true;
        })
      )
      .toBe(true);
    expect(await current(page).lastVisibleColumn()).toBe(4999);
    expect(await current(page).cursorColumn()).toBe(4999);
  });

  test("a cell's context menu filters to its value, then excludes it", async ({
    page
  }) => {
    await page.notebook.createNew('cellfilter.ipynb');
    await run(page, 0, SALES);
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('10,000 rows × 4 columns');
    await panel.getByTestId('kernel-state-explorer-summary-button').click();
    const box = (await panel
      .getByTestId('kernel-state-explorer-grid')
      .boundingBox())!;
    // Row 0 of `region` (the second column) holds "north".
    const regionX = await page.evaluate(x => {
      const grid = (window as any).jupyterapp.shell.currentWidget.content.grid;
      return (
        x +
        grid.headerWidth +
        grid.columnSize('body', 0) +
        grid.columnSize('body', 1) / 2
      );
    }, box.x);
    // A cell not read yet has no value to filter by (its menu offers only Copy): the
    // first row is read before each right-click.
    const firstRead = () =>
      expect.poll(() => current(page).cell('body', 0, 1)).toBe('north');
    await firstRead();
    await page.mouse.click(regionX, box.y + 44 + 11, { button: 'right' });
    await page.getByRole('menuitem', { name: 'Filter to “north”' }).click();
    await expect(size).toHaveText('2,500 of 10,000 rows × 4 columns');
    await firstRead();
    await page.mouse.click(regionX, box.y + 44 + 11, { button: 'right' });
    await page.getByRole('menuitem', { name: 'Exclude “north”' }).click();
    await expect(size).toHaveText('0 of 10,000 rows × 4 columns');
    await expect(
      panel.getByTestId('kernel-state-explorer-filter-group')
    ).toHaveCount(1);
    await panel.getByTestId('kernel-state-explorer-filter-clear').click();
    await expect(size).toHaveText('10,000 rows × 4 columns');
    await firstRead();
    // Exclude alone keeps the missing regions: 3 of 4 rows.
    await page.mouse.click(regionX, box.y + 44 + 11, { button: 'right' });
    await page.getByRole('menuitem', { name: 'Exclude “north”' }).click();
    await expect(size).toHaveText('7,500 of 10,000 rows × 4 columns');
  });

  test('"Open in Data Explorer" from the context menu of a cell showing a DataFrame', async ({
    page
  }) => {
    await page.notebook.createNew('cellmenu.ipynb');
    await run(page, 0, `${SALES}\nsales`);
    const cell = (await page.notebook.getCellLocator(0))!;
    await cell.click({ button: 'right' });
    await page
      .getByRole('menuitem', { name: 'Open sales in Data Explorer' })
      .click();
    const panel = page.locator(
      '.jp-KernelState-explorerPanel:not(.lm-mod-hidden)'
    );
    await expect(panel.getByTestId('kernel-state-explorer-size')).toHaveText(
      '10,000 rows × 4 columns'
    );
  });

  test('in a narrow tab the toolbar wraps and every button stays in reach', async ({
    page
  }) => {
    await page.notebook.createNew('narrow.ipynb');
    await run(page, 0, SALES);
    await page.setViewportSize({ width: 640, height: 768 });
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('10,000 rows × 4 columns');
    const toolbar = panel.locator('.jp-KernelState-explorerToolbar');
    const refresh = panel.getByTestId('kernel-state-explorer-refresh');
    // The items take more than one line, and the toolbar holds them all.
    await expect
      .poll(async () => {
        const bar = (await toolbar.boundingBox())!;
        const button = (await refresh.boundingBox())!;
        return (
          button.y > bar.y + 28 &&
          button.y + button.height <= bar.y + bar.height
        );
      })
      .toBe(true);
    const bar = (await toolbar.boundingBox())!;
    const filter = (await panel
      .getByRole('search', { name: 'Filter rows' })
      .boundingBox())!;
    expect(filter.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    // Each button answers a click (none is covered by the filter bar).
    await panel.getByTestId('kernel-state-explorer-code-button').click();
    await expect(panel.getByTestId('kernel-state-explorer-code')).toBeVisible();
    await panel.getByTestId('kernel-state-explorer-summary-button').click();
    await expect(
      panel.getByTestId('kernel-state-explorer-summary')
    ).toBeHidden();
    await refresh.click();
    await expect(size).toHaveText('10,000 rows × 4 columns');
    // Wide again: one line.
    await page.setViewportSize({ width: 1600, height: 768 });
    await expect
      .poll(async () => {
        const bar = (await toolbar.boundingBox())!;
        const button = (await refresh.boundingBox())!;
        return Math.abs(button.y - bar.y) < 8 && bar.height < 40;
      })
      .toBe(true);
  });
});
