import { expect, test } from '@jupyterlab/galata';

import { expand, openPanel, run } from './helpers';

const PLOT = [
  '%matplotlib inline',
  'import matplotlib.pyplot as plt',
  'plt.plot([1, 2]); plt.show()'
].join('\n');

// Script in a <script> element and in an onload handler: neither may ever run.
const HOSTILE_SVG = [
  'from IPython.display import SVG, display',
  `display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="90" height="40" ` +
    `onload="window.__svgPwned = 1"><script>window.__svgPwned = 2</script>` +
    `<rect width="90" height="40" fill="#d94a4a"/></svg>'))`
].join('\n');

test.describe('Kernel State images', () => {
  test('shows a plot labelled with its execution count, larger on click, with a download', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('plot.ipynb');
    const strip = panel.getByTestId('kernel-state-images');
    await expect(strip.getByTestId('kernel-state-images-empty')).toBeVisible();

    await run(page, 0, 'x = 1');
    await run(page, 1, PLOT);
    const thumbs = strip.getByTestId('kernel-state-image');
    await expect(thumbs).toHaveCount(1);
    await expect(thumbs.first()).toHaveAttribute('data-execution-count', '2');
    await expect(strip).toContainText('[2]');
    const thumb = thumbs.first().locator('img');
    await expect(thumb).toHaveAttribute(
      'alt',
      /Image from execution 2, image\/png/
    );
    await expect
      .poll(() => thumb.evaluate(img => (img as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);

    // A second plot comes first.
    await run(page, 2, PLOT.replace('[1, 2]', '[3, 1, 2]'));
    await expect(thumbs).toHaveCount(2);
    await expect(thumbs.first()).toHaveAttribute('data-execution-count', '3');
    await expect(thumbs.nth(1)).toHaveAttribute('data-execution-count', '2');

    await thumbs.nth(1).click();
    const view = page.getByTestId('kernel-state-image-view');
    await expect(view).toBeVisible();
    const large = view.locator('img');
    await expect
      .poll(() => large.evaluate(img => (img as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    expect(
      await large.evaluate(
        img => (img as HTMLImageElement).getBoundingClientRect().width
      )
    ).toBeGreaterThan(
      await thumbs
        .nth(1)
        .locator('img')
        .evaluate(img => img.getBoundingClientRect().width)
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      view.getByTestId('kernel-state-image-download').click()
    ]);
    expect(download.suggestedFilename()).toMatch(
      /^kernel-state-2-[0-9a-f]{16}\.png$/
    );
    const path = await download.path();
    expect(path).toBeTruthy();

    await page.keyboard.press('Escape');
    await expect(view).toHaveCount(0);
  });

  test('shows a script-bearing SVG without running it', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('svg.ipynb');
    await run(page, 0, HOSTILE_SVG);
    const strip = panel.getByTestId('kernel-state-images');
    const thumb = strip.getByTestId('kernel-state-image');
    await expect(thumb).toHaveCount(1);
    await expect(thumb).toHaveAttribute('data-execution-count', '1');
    const img = thumb.locator('img');
    await expect(img).toHaveAttribute('src', /^blob:/);
    await expect
      .poll(() => img.evaluate(i => (i as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    // Never inlined into the page.
    await expect(panel.locator('svg script')).toHaveCount(0);
    expect(
      await page.evaluate(() => (window as any).__svgPwned)
    ).toBeUndefined();

    await thumb.click();
    const view = page.getByTestId('kernel-state-image-view');
    await expect(view).toBeVisible();
    await expect(view).toContainText('image/svg+xml');
    await expect
      .poll(() =>
        view.locator('img').evaluate(i => (i as HTMLImageElement).naturalWidth)
      )
      .toBeGreaterThan(0);
    await expect(view.locator('svg script')).toHaveCount(0);
    await page.waitForTimeout(500);
    expect(
      await page.evaluate(() => (window as any).__svgPwned)
    ).toBeUndefined();
    await page.keyboard.press('Escape');

    // Control: the same markup put into the page as HTML does run, so the checks
    // above would have caught it.
    await page.evaluate(() => {
      const frame = document.createElement('div');
      frame.innerHTML =
        '<svg xmlns="http://www.w3.org/2000/svg"><image href="x" onerror="window.__svgPwned = 3"/></svg>';
      document.body.appendChild(frame);
    });
    await expect
      .poll(() => page.evaluate(() => (window as any).__svgPwned))
      .toBe(3);
  });

  test('makes no image requests while the section is folded', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('folded.ipynb');
    const strip = panel.getByTestId('kernel-state-images');
    await expand(strip);
    await strip.locator('.jp-KernelState-foldToggle').click();
    await expect(strip.locator('.jp-KernelState-foldToggle')).toHaveAttribute(
      'aria-expanded',
      'false'
    );
    const requests: string[] = [];
    page.on('request', request => {
      if (request.url().includes('/images')) {
        requests.push(request.url());
      }
    });
    await run(page, 0, PLOT);
    await page.waitForTimeout(1000);
    expect(requests).toEqual([]);
    await expand(strip);
    await expect(strip.getByTestId('kernel-state-image')).toHaveCount(1);
    expect(requests.length).toBeGreaterThan(0);
  });
});

test.describe('Kernel State images across a restart', () => {
  // galata's kernel mock answers POST .../restart with 201, which the JupyterLab client
  // rejects; this test shuts its kernel down itself instead.
  test.use({ kernels: null });

  test('keeps the images and renews the assistant view', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('restart-images.ipynb');
    const assistant = panel.getByTestId('kernel-state-assistant');
    await expand(assistant);
    await run(page, 0, `${PLOT}\nbefore_restart = 1`);
    const thumbs = panel.getByTestId('kernel-state-image');
    await expect(thumbs).toHaveCount(1);
    const text = assistant.getByTestId('kernel-state-prompt-text');
    await expect(text).toContainText('before_restart');

    await page.evaluate(async () => {
      const widget = (window as any).jupyterapp.shell.currentWidget;
      await widget.sessionContext.session.kernel.restart();
    });
    await expect(text).not.toContainText('before_restart');
    await run(page, 0, 'after_restart = 2');
    await expect(text).toContainText('after_restart');
    await expect(thumbs).toHaveCount(1);
    await expect(thumbs.first()).toHaveAttribute('data-execution-count', '1');
    await page.evaluate(async () => {
      await (
        window as any
      ).jupyterapp.shell.currentWidget.sessionContext.shutdown();
    });
  });
});
