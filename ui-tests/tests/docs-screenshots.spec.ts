/**
 * Screenshots of the newer features for README.md and docs/explorer.md, at the
 * sidebar's default width, a 1440×900 window, in the light theme.
 *
 * Skipped unless KERNEL_STATE_SCREENSHOTS=1, so the normal test run never writes them:
 *
 *   cd ui-tests && KERNEL_STATE_SCREENSHOTS=1 jlpm playwright test tests/docs-screenshots.spec.ts
 *
 * writes docs/images/explorer-summary.png, explorer-code.png, sidebar-changes.png,
 * gallery.png, assistant-tab.png, sidebar-reach.png, explorer-spark.png, explorer-file.png
 * and inspector-lineage.png.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as path from 'path';

import {
  expand,
  openExplorer,
  openFileInExplorer,
  openPanel,
  row,
  run
} from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const OUTPUT = path.join(ROOT, 'docs', 'images');

/**
 * The demo's `sales` (examples/demo.ipynb): 100,000 rows × 8 columns.
 */
const SALES = [
  'import numpy as np',
  'import pandas as pd',
  '',
  'rng = np.random.default_rng(42)',
  'n = 100_000',
  'sales = pd.DataFrame(',
  '    {',
  '        "region": rng.choice(["north", "south", "east", "west"], n),',
  '        "units": rng.integers(1, 50, n),',
  '        "price": rng.uniform(1.0, 250.0, n).round(2),',
  '        "date": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D"),',
  '        "customer_id": rng.integers(10_000, 99_999, n),',
  '        "channel": rng.choice(["web", "store", "phone"], n),',
  '        "discount": rng.choice([0.0, 0.05, 0.1, 0.2], n),',
  '        "returned": rng.random(n) < 0.03,',
  '    }',
  ')',
  'sales.head()'
].join('\n');

test.use({ viewport: { width: 1440, height: 900 } });

async function shoot(page: IJupyterLabPageFixture, file: string) {
  await page.mouse.move(0, 0);
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(OUTPUT, file) });
}

test.describe('Docs screenshots', () => {
  test.skip(
    process.env.KERNEL_STATE_SCREENSHOTS !== '1',
    'set KERNEL_STATE_SCREENSHOTS=1 to write the docs/images/*.png of the new features'
  );

  test('explorer: summary, a filter joined by OR, Convert to Code', async ({
    page
  }) => {
    test.setTimeout(240_000);
    // The Kernel State sidebar (default width) rather than the file browser.
    const sidebar = await openPanel(page);
    await page.notebook.createNew('explorer-docs.ipynb');
    await run(page, 0, SALES);
    await expect(row(sidebar, 'sales')).toBeVisible();
    const panel = await openExplorer(page, 'sales');
    const size = panel.getByTestId('kernel-state-explorer-size');
    await expect(size).toHaveText('100,000 rows × 8 columns');

    const summary = panel.getByTestId('kernel-state-explorer-summary');
    await expect(summary).toBeVisible();
    await expect(
      summary.getByTestId('kernel-state-explorer-summary-row')
    ).toHaveCount(8);
    const price = summary.locator(
      '[data-test-id="kernel-state-explorer-summary-row"][data-name="price"]'
    );
    await price.getByTestId('kernel-state-explorer-summary-toggle').click();
    await expect(
      price.getByTestId('kernel-state-explorer-summary-details')
    ).toBeVisible();
    await expect(
      price.getByTestId('kernel-state-explorer-summary-spark').locator('rect')
    ).not.toHaveCount(0);

    // region in [north, south] OR price between 10 and 20.
    const conditions = panel.getByTestId(
      'kernel-state-explorer-filter-condition'
    );
    await conditions
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'region' });
    await conditions
      .nth(0)
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('in');
    for (const value of ['north', 'south']) {
      const input = conditions
        .nth(0)
        .getByTestId('kernel-state-explorer-filter-values-input');
      await input.fill(value);
      await input.press('Enter');
    }
    await panel.getByTestId('kernel-state-explorer-filter-add').click();
    await expect(conditions).toHaveCount(2);
    await conditions
      .nth(1)
      .getByTestId('kernel-state-explorer-filter-column')
      .selectOption({ label: 'price' });
    await conditions
      .nth(1)
      .getByTestId('kernel-state-explorer-filter-op')
      .selectOption('between');
    await conditions
      .nth(1)
      .getByRole('textbox', { name: 'From (included)' })
      .fill('10');
    await conditions
      .nth(1)
      .getByRole('textbox', { name: 'To (included)' })
      .fill('20');
    await panel
      .getByTestId('kernel-state-explorer-filter-join')
      .selectOption('or');
    await panel.getByTestId('kernel-state-explorer-filter-apply').click();
    await expect(size).toHaveText(/^[\d,]+ of 100,000 rows × 8 columns$/);
    await shoot(page, 'explorer-summary.png');

    await panel.getByTestId('kernel-state-explorer-code-button').click();
    const code = panel.getByTestId('kernel-state-explorer-code');
    await expect(code).toBeVisible();
    await expect(
      code.getByTestId('kernel-state-explorer-code-syntax')
    ).toHaveValue('pandas');
    await expect(
      code.getByTestId('kernel-state-explorer-code-text')
    ).toContainText('sales_view');
    await shoot(page, 'explorer-code.png');
  });

  test('explorer: a Spark DataFrame, its summary computed by Spark', async ({
    page
  }) => {
    test.setTimeout(300_000);
    const sidebar = await openPanel(page);
    await page.notebook.createNew('spark-docs.ipynb');
    await run(
      page,
      0,
      [
        'from pyspark.sql import SparkSession, functions as F',
        'spark = (SparkSession.builder.master("local[2]")',
        '         .config("spark.ui.enabled", "false")',
        '         .config("spark.driver.host", "127.0.0.1")',
        '         .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())',
        'spark.sparkContext.setLogLevel("ERROR")',
        'orders = spark.range(200_000).select(',
        '    F.col("id"), (F.col("id") % 1000 / 10).alias("price"),',
        '    F.concat(F.lit("sku-"), (F.col("id") % 12).cast("string")).alias("sku"),',
        '    (F.col("id") % 7 == 0).alias("returned"))',
        "# A fresh session's first jobs take seconds (its JVM warms up): run some first.",
        '_ = orders.limit(1).collect()'
      ].join('\n')
    );
    await run(
      page,
      1,
      '_ = orders.count(), orders.groupBy("sku").count().collect()'
    );
    await expect(row(sidebar, 'orders')).toContainText('lazy · Spark');
    const panel = await openExplorer(page, 'orders');
    await expect(
      panel.getByTestId('kernel-state-explorer-engine-name')
    ).toContainText('Spark');
    const summary = panel.getByTestId('kernel-state-explorer-summary');
    await expect(summary).toBeVisible();
    // At the default guards: every column's statistics, computed by Spark.
    for (const name of ['price', 'sku']) {
      const column = summary.locator(
        `[data-test-id="kernel-state-explorer-summary-row"][data-name="${name}"]`
      );
      await column.getByTestId('kernel-state-explorer-summary-toggle').click();
      const details = column.getByTestId(
        'kernel-state-explorer-summary-details'
      );
      await expect(details).toBeVisible();
      await expect(details).not.toContainText('Computing', {
        timeout: 120_000
      });
      await expect(details).not.toContainText('cancelled');
      await expect(
        column
          .getByTestId('kernel-state-explorer-summary-spark')
          .locator('rect')
      ).not.toHaveCount(0);
    }
    await expect(summary).not.toContainText('cancelled');
    await panel.getByTestId('kernel-state-explorer-code-button').click();
    await expect(
      panel.getByTestId('kernel-state-explorer-code-text')
    ).toContainText('orders_view');
    await shoot(page, 'explorer-spark.png');
  });

  test('sidebar: a changed key on the row, a masked password', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('changes-docs.ipynb');
    await run(
      page,
      0,
      [
        "config = {'depth': 6, 'lr': 0.1}",
        "cfg = {'password': 'swordfish', 'depth': 6}"
      ].join('\n')
    );
    await expect(row(panel, 'cfg')).toBeVisible();
    await run(page, 1, "config['depth'] = 8");
    await expect(
      row(panel, 'config').getByTestId('kernel-state-changes')
    ).toContainText('depth 6 → 8');
    const preview = row(panel, 'cfg').getByTestId('kernel-state-preview');
    await expect(preview).toContainText('masked');
    await expect(panel).not.toContainText('swordfish');
    // A key inside looks like a credential: the whole value stays masked in the
    // inspector too, until Reveal.
    await row(panel, 'cfg').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector.getByTestId('kernel-state-repr')).toContainText(
      '(masked)'
    );
    await expect(inspector.getByTestId('kernel-state-reveal')).toBeVisible();
    // Its items: the password's value reads [masked].
    await expect(inspector).toContainText('[masked]');
    await expect(panel).not.toContainText('swordfish');
    await shoot(page, 'sidebar-changes.png');
  });

  test('gallery: the first plot kept through a flood of 60', async ({
    page
  }) => {
    test.setTimeout(180_000);
    const panel = await openPanel(page);
    await page.notebook.createNew('gallery-docs.ipynb');
    const first = [
      '%matplotlib inline',
      'import matplotlib.pyplot as plt',
      'plt.figure(figsize=(3, 2), dpi=60)',
      'plt.plot([1, 3, 2, 4], marker="o")',
      'plt.title("first")',
      'plt.show()'
    ].join('\n');
    await run(page, 0, first);
    await run(
      page,
      1,
      // One line: the editor would indent a loop's body once more when typed.
      'for i in range(60): plt.figure(figsize=(3, 2), dpi=60); plt.plot([0, i, i / 2]); plt.show()'
    );
    const strip = panel.getByTestId('kernel-state-images');
    await expand(strip);
    await expect(
      strip.getByTestId('kernel-state-image-counters')
    ).toContainText('1 image dropped');
    await strip.getByTestId('kernel-state-open-gallery').click();
    const gallery = page.getByTestId('kernel-state-gallery');
    await expect(gallery).toBeVisible();
    const oldest = gallery.locator(
      '[data-test-id="kernel-state-gallery-item"][data-seq="1"]'
    );
    await expect(oldest.getByTestId('kernel-state-gallery-code')).toHaveText(
      first
    );
    await expect(
      gallery.getByTestId('kernel-state-gallery-counts')
    ).toContainText('1 image dropped');
    for (const img of await gallery.locator('img').all()) {
      if (await img.isVisible()) {
        await expect
          .poll(() => img.evaluate(i => (i as HTMLImageElement).naturalWidth))
          .toBeGreaterThan(0);
      }
    }
    // The oldest plot, #1, with its cell's code at the bottom of the tab; the strip
    // in the sidebar scrolled to the range that was dropped.
    await oldest.scrollIntoViewIfNeeded();
    await oldest.evaluate(el => el.scrollIntoView({ block: 'end' }));
    const gap = strip.getByTestId('kernel-state-image-gap');
    await expect(gap).toHaveText('#11 not kept');
    await gap.evaluate(el => el.scrollIntoView({ block: 'center' }));
    await shoot(page, 'gallery.png');
  });

  test('the assistant view in a tab', async ({ page }) => {
    test.setTimeout(180_000);
    const panel = await openPanel(page);
    await page.notebook.createNew('assistant-docs.ipynb');
    await run(page, 0, SALES);
    await run(
      page,
      1,
      [
        "config = {'model': 'gbm', 'depth': 6, 'lr': 0.05}",
        "monthly = sales.set_index('date').resample('MS')['units'].sum()",
        'api_key = "sk-demo-4f9a2b7c1d8e3f6a5b0c"'
      ].join('\n')
    );
    const section = panel.getByTestId('kernel-state-assistant');
    await expand(section);
    await expect(section.getByTestId('kernel-state-prompt-text')).toContainText(
      'As of execution 2'
    );
    await section.getByTestId('kernel-state-prompt-open-tab').click();
    const tab = page.getByTestId('kernel-state-assistant-tab');
    await expect(tab).toBeVisible();
    const text = tab.getByTestId('kernel-state-assistant-tab-text');
    await expect(text).toContainText('As of execution 2');
    await expect(tab).not.toContainText('sk-demo-4f9a');
    // Fold the sidebar's copy: the tab is the subject.
    const fold = section.locator('.jp-KernelState-foldToggle');
    await fold.click();
    await expect(fold).toHaveAttribute('aria-expanded', 'false');
    await shoot(page, 'assistant-tab.png');
  });

  test('sidebar: the changed view finds a new name among 100,000', async ({
    page
  }) => {
    test.setTimeout(240_000);
    const panel = await openPanel(page);
    await page.notebook.createNew('reach-docs.ipynb');
    await run(
      page,
      0,
      "globals().update({f'v{i:06d}': i for i in range(100_000)})"
    );
    const total = panel.getByTestId('kernel-state-total');
    await expect(total).toContainText('100,000 variables', {
      timeout: 120_000
    });
    await run(page, 1, 'wide = 1');
    await expect(total).toContainText('100,001 variables', {
      timeout: 120_000
    });
    const toggle = panel.getByTestId('kernel-state-changed-toggle');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(row(panel, 'wide')).toBeVisible();
    await expect(row(panel, 'wide')).toHaveAttribute('data-change', 'new');
    await shoot(page, 'sidebar-reach.png');
  });

  test('explorer: a Parquet file, opened from the file browser without a kernel', async ({
    page
  }) => {
    await page.notebook.createNew('file-docs.ipynb');
    await run(page, 0, SALES + '\nsales.to_parquet("sales.parquet")');
    const panel = await openFileInExplorer(page, 'sales.parquet');
    await expect(panel.getByTestId('kernel-state-explorer-size')).toHaveText(
      '100,000 rows × 8 columns'
    );
    await shoot(page, 'explorer-file.png');
  });

  test('inspector: where a variable was defined and used', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('lineage-docs.ipynb');
    await run(page, 0, SALES);
    await run(page, 1, 'top = sales.nlargest(5, "price")');
    await run(page, 2, 'by_region = sales.groupby("region").price.mean()');
    await run(page, 3, 'sales["revenue"] = sales.units * sales.price');
    await expect(row(panel, 'by_region')).toBeVisible();
    await row(panel, 'sales').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(
      inspector.getByTestId('kernel-state-used-in').locator('li')
    ).toHaveCount(4); // the cells that ran sales.head(), top, by_region and revenue
    // Below the value: scrolled to, as a reader does.
    await inspector
      .getByTestId('kernel-state-defined-in')
      .scrollIntoViewIfNeeded();
    await shoot(page, 'inspector-lineage.png');
  });
});
