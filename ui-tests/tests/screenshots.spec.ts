/**
 * Screenshots of the panel for the README, in the light and the dark theme.
 *
 * Skipped unless KERNEL_STATE_SCREENSHOTS=1, so the normal test run never writes them:
 *
 *   cd ui-tests && KERNEL_STATE_SCREENSHOTS=1 jlpm playwright test tests/screenshots.spec.ts
 *
 * writes docs/images/sidebar-light.png and docs/images/sidebar-dark.png.
 */
import { expect, test } from '@jupyterlab/galata';
import * as path from 'path';

import { expand, openPanel, row } from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const OUTPUT = path.join(ROOT, 'docs', 'images');

test.use({ viewport: { width: 1400, height: 900 } });

test.describe('README screenshots', () => {
  test.skip(
    process.env.KERNEL_STATE_SCREENSHOTS !== '1',
    'set KERNEL_STATE_SCREENSHOTS=1 to write docs/images/sidebar-*.png'
  );

  test('the panel on the demo notebook, light and dark', async ({
    page,
    tmpPath
  }) => {
    test.setTimeout(240_000);
    await page.contents.uploadFile(
      path.join(ROOT, 'examples', 'demo.ipynb'),
      `${tmpPath}/demo.ipynb`
    );
    await page.notebook.openByPath(`${tmpPath}/demo.ipynb`);
    await page.notebook.activate('demo.ipynb');
    // The sidebar at its default width, as a new user sees it.
    const panel = await openPanel(page);
    await page.notebook.run();

    await expect(row(panel, 'sales')).toBeVisible();
    // One more cell: rows dropped from `sales` (its changes line) and a removed name.
    const cells = await page.notebook.getCellCount();
    await page.notebook.addCell(
      'code',
      'sales = sales[sales["price"] > 10].copy()\ndel channels'
    );
    await page.notebook.runCell(cells, { inplace: true, wait: true });
    await expect(
      row(panel, 'sales').getByTestId('kernel-state-changes')
    ).toContainText('rows 100,000 →');
    await expect(row(panel, 'channels')).toHaveAttribute(
      'data-change',
      'removed'
    );
    const thumbs = panel.getByTestId('kernel-state-image');
    await expect(thumbs).toHaveCount(2);
    for (const img of await thumbs.locator('img').all()) {
      await expect
        .poll(() => img.evaluate(i => (i as HTMLImageElement).naturalWidth))
        .toBeGreaterThan(0);
    }
    await row(panel, 'sales').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector).toContainText('Columns (8 of 8)');
    const assistant = panel.getByTestId('kernel-state-assistant');
    await expand(assistant);
    await inspector.getByText('Note for the assistant').click();
    const note = inspector.getByTestId('kernel-state-annotation');
    await note
      .getByLabel('Description')
      .fill('raw export, one row per order line');
    await note.getByLabel('Constraints').fill('read-only');
    await note.getByTestId('kernel-state-annotation-save').click();
    await expect(
      assistant.getByTestId('kernel-state-prompt-text')
    ).toContainText('raw export, one row per order line');
    // Fold the note again so the columns show.
    await inspector.getByText('Note for the assistant').click();
    await expect(row(panel, 'sales')).toBeInViewport();
    // Scroll the assistant text to the line of `sales`, which carries the note.
    await assistant.getByTestId('kernel-state-prompt-text').evaluate(pre => {
      const text = pre.firstChild as Text;
      const range = document.createRange();
      const at = text.data.indexOf('- sales:');
      range.setStart(text, at);
      range.setEnd(text, at + 1);
      pre.scrollTop +=
        range.getBoundingClientRect().top - pre.getBoundingClientRect().top - 4;
    });
    // Scroll the notebook to the plot so the page shows where the image came from.
    await page.notebook
      .getCellLocator(8)
      .then(cell => cell?.scrollIntoViewIfNeeded());
    await page.mouse.move(0, 0);

    await page.screenshot({ path: path.join(OUTPUT, 'sidebar-light.png') });

    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute(
        'apputils:change-theme',
        {
          theme: 'JupyterLab Dark'
        }
      );
    });
    await expect(page.locator('body')).toHaveAttribute(
      'data-jp-theme-light',
      'false'
    );
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(OUTPUT, 'sidebar-dark.png') });
  });
});
