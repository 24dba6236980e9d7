import { expect, test } from '@jupyterlab/galata';
import * as fs from 'fs';
import * as path from 'path';

import { run } from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The demo's first code cell (examples/demo.ipynb): `sales`, 100,000 rows × 8
 * columns, ending with `sales.head(1000)`.
 */
const DEMO_SALES = (() => {
  const demo = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'examples', 'demo.ipynb'), 'utf-8')
  );
  const cell = demo.cells.find((c: any) => c.cell_type === 'code');
  return (cell.source as string[]).join('');
})();

test.describe('Table outputs as grids', () => {
  test("the demo's sales.head(1000) is a grid that sorts by price in the kernel", async ({
    page
  }) => {
    expect(DEMO_SALES.trim().endsWith('sales.head(1000)')).toBe(true);
    await page.notebook.createNew('output-grid.ipynb');
    await run(page, 0, DEMO_SALES);
    const cell = page.locator('.jp-Notebook .jp-CodeCell').nth(0);
    const frame = cell.getByTestId('kernel-state-output-grid');
    await expect(frame).toHaveClass(/jp-mod-grid/);
    const static_ = cell.locator('.jp-RenderedHTMLCommon table.dataframe');
    await expect(static_).toBeHidden();
    await expect(frame.getByTestId('kernel-state-explorer-size')).toHaveText(
      '1,000 rows × 8 columns'
    );

    // The window arrived, then the first frame painted (src/perf.ts).
    // (Marks MARK_OUTPUT_DATA and MARK_OUTPUT_PAINTED, found by their ends.)
    const { paintMs, windows } = await page.evaluate(async () => {
      const marked = (end: string) =>
        performance.getEntriesByType('mark').find(e => e.name.endsWith(end));
      for (let i = 0; i < 200; i++) {
        const data = marked(':output-grid-data');
        const painted = marked(':output-grid-painted');
        if (data && painted) {
          // The rows requests the first window took: asked once the kernel was
          // idle, one (a request made while the cell ran would wait and retry).
          const windows = performance
            .getEntriesByType('resource')
            .filter(
              e => e.name.includes('/rows?') && e.startTime <= data.startTime
            ).length;
          return { paintMs: painted.startTime - data.startTime, windows };
        }
        await new Promise(resolve => setTimeout(resolve, 50));
      }
      return { paintMs: -1, windows: -1 };
    });
    console.log(`output grid first paint after the window: ${paintMs} ms`);
    expect(paintMs).toBeGreaterThanOrEqual(0);
    expect(windows).toBe(1);

    // Click the header of `price` (painted on the canvas) twice: descending.
    const grid = frame.getByTestId('kernel-state-explorer-grid');
    const priceX = await page.evaluate(() => {
      const app = (window as any).jupyterapp;
      const child =
        app.shell.currentWidget.content.widgets[0].outputArea.widgets[0];
      const outputGrid = child.widgets.find((w: any) => w.handle !== undefined);
      const explorer = outputGrid.explorer;
      const column = explorer.model
        .knownColumns()
        .findIndex((c: any) => c?.name === 'price');
      let x = explorer.grid.headerWidth;
      for (let i = 0; i < column; i++) {
        x += explorer.grid.columnSize('body', i);
      }
      return x + explorer.grid.columnSize('body', column) / 2;
    });
    const sort = frame.getByTestId('kernel-state-explorer-sort');
    // The toolbar may grow a line once sorted ("Clear sort"): measure each time.
    const clickPrice = async () => {
      const box = (await grid.boundingBox())!;
      await page.mouse.click(box.x + priceX, box.y + 11);
    };
    await clickPrice();
    await expect(sort).toHaveText('Sorted by price ▲');
    await clickPrice();
    await expect(sort).toHaveText('Sorted by price ▼');

    // The first row holds the highest price of the 1000 (the kernel's own answer).
    await run(
      page,
      1,
      'head = sales.head(1000)\nprint(*head.index[head.price == head.price.max()])'
    );
    const top = (await page
      .locator('.jp-Notebook .jp-CodeCell')
      .nth(1)
      .locator('.jp-OutputArea-output')
      .textContent())!
      .trim()
      .split(' ');
    const range = frame.getByTestId('kernel-state-explorer-range');
    await expect(range).toContainText(/index \d+ …/);
    const first = /index (\d+) …/.exec((await range.textContent())!)![1];
    expect(top).toContain(first);

    // Keys in the grid move the grid's cursor, not the notebook's active cell.
    const box = (await grid.boundingBox())!;
    await page.mouse.click(box.x + priceX, box.y + 44 + 11);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(
      await page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.content.activeCellIndex
      )
    ).toBe(0);
    await expect(page.locator('.jp-Notebook .jp-Cell')).toHaveCount(2);

    // Back to the static table, and to the grid again.
    const toggle = frame.getByTestId('kernel-state-output-grid-toggle');
    await expect(toggle).toHaveText('Show as static table');
    await toggle.click();
    await expect(static_).toBeVisible();
    await expect(frame).not.toHaveClass(/jp-mod-grid/);
    await expect(grid).toBeHidden();
    await expect(toggle).toHaveText('Show as grid');
    await toggle.click();
    await expect(grid).toBeVisible();
    await expect(sort).toHaveText('Sorted by price ▼');

    // docs/explorer.md's picture, only when asked:
    //   cd ui-tests && KERNEL_STATE_SCREENSHOTS=1 jlpm playwright test tests/output-grid.spec.ts
    if (process.env.KERNEL_STATE_SCREENSHOTS === '1') {
      await page.setViewportSize({ width: 1200, height: 1000 });
      await page.mouse.move(0, 0);
      await page.waitForTimeout(500);
      await cell.locator('.jp-Cell-outputWrapper').screenshot({
        path: path.join(ROOT, 'docs', 'images', 'output-grid.png')
      });
    }

    // Deleted from the kernel: the grid says so and shows the static table.
    const count = await cell.locator('.jp-InputPrompt').textContent();
    const n = /\[(\d+)\]/.exec(count ?? '')![1];
    await run(page, 2, `del _${n}`);
    await frame.getByTestId('kernel-state-explorer-refresh').click();
    await expect(
      frame.getByTestId('kernel-state-output-grid-message')
    ).toContainText("This output's value is gone");
    await expect(static_).toBeVisible();
  });
});
