/**
 * The sidebar's first hour at scale: every variable reachable (the list pages in on
 * scroll and with "Load more"; "Changed in the last execution" lists what the last cell
 * touched, whatever the page; the counts keep the namespace's total apart from a
 * filter's), images found again (ordinals, execution, the gallery with each cell's code,
 * the first ones kept through a flood), and the assistant view in a tab.
 */
import { expect, test } from '@jupyterlab/galata';

import { expand, openPanel, row, run } from './helpers';

test.describe('Kernel State at scale', () => {
  test('reaches a new name past the first page, by the changed view and by paging', async ({
    page
  }) => {
    test.setTimeout(180_000);
    const panel = await openPanel(page);
    await page.notebook.createNew('reach.ipynb');
    await run(
      page,
      0,
      "globals().update({f'v{i:05d}': i for i in range(5_000)})"
    );
    await run(page, 1, 'wide = list(range(10))');
    const total = panel.getByTestId('kernel-state-total');
    await expect(total).toContainText('5,001 variables');
    await expect(total).toContainText('first 2,000 loaded');
    // By name `wide` sorts last: not loaded yet.
    await expect(row(panel, 'wide')).toHaveCount(0);

    // The changed view lists it whatever the page and sort.
    const toggle = panel.getByTestId('kernel-state-changed-toggle');
    await expect(toggle).toHaveText('Changed in the last execution [2]');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'true');
    await expect(row(panel, 'wide')).toBeVisible();
    await expect(row(panel, 'wide')).toHaveAttribute('data-change', 'new');
    await expect(total).toHaveText(
      '1 of 5,001 variables changed in execution 2 · execution 2'
    );
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-pressed', 'false');

    // "Load more" is a button the keyboard reaches.
    const more = panel.getByTestId('kernel-state-load-more');
    await expect(more).toBeVisible();
    await more.focus();
    await page.keyboard.press('Enter');
    await expect(total).toContainText('first 4,000 loaded');
    // Scrolling to the end pages in the rest.
    const body = panel.locator('.jp-KernelState-gridBody');
    for (let i = 0; i < 5 && (await row(panel, 'wide').count()) === 0; i++) {
      await body.evaluate(el => (el.scrollTop = el.scrollHeight));
      await page.waitForTimeout(500);
    }
    await expect(row(panel, 'wide')).toBeVisible();
    await expect(more).toHaveCount(0);
    await expect(total).toHaveText('5,001 variables · execution 2');

    // A filter the server applies: its count apart from the namespace's.
    await panel.getByTestId('kernel-state-filter').fill('wid*');
    await expect(total).toHaveText(
      '1 of 5,001 variables match the filter · execution 2'
    );
  });

  test('numbers the images, keeps the first ones through a flood, and shows them in a gallery', async ({
    page
  }) => {
    test.setTimeout(180_000);
    const panel = await openPanel(page);
    await page.notebook.createNew('gallery.ipynb');
    const first = [
      '%matplotlib inline',
      'import matplotlib.pyplot as plt',
      'plt.figure(figsize=(2, 2), dpi=40); plt.plot([1, 2]); plt.show()'
    ].join('\n');
    await run(page, 0, first);
    const loop = [
      'for i in range(60):',
      '    plt.figure(figsize=(1, 1), dpi=30); plt.plot([0, i]); plt.show()'
    ].join('\n');
    await run(page, 1, loop);
    const strip = panel.getByTestId('kernel-state-images');
    await expand(strip);
    // The first plot (#1, execution 1) is still there, and the gap is marked.
    await expect(
      strip.locator('[data-test-id="kernel-state-image"][data-seq="1"]')
    ).toHaveAttribute('data-execution-count', '1');
    await expect(strip.getByTestId('kernel-state-image-gap')).toHaveText(
      '#11 not kept'
    );
    await expect(
      strip.getByTestId('kernel-state-image-counters')
    ).toContainText(
      '1 image dropped (the first 10 and the latest 50 are kept)'
    );

    await strip.getByTestId('kernel-state-open-gallery').click();
    const gallery = page.getByTestId('kernel-state-gallery');
    await expect(gallery).toBeVisible();
    await expect(gallery.getByTestId('kernel-state-gallery-item')).toHaveCount(
      60
    );
    const oldest = gallery.locator(
      '[data-test-id="kernel-state-gallery-item"][data-seq="1"]'
    );
    await expect(oldest.getByTestId('kernel-state-gallery-label')).toHaveText(
      '#1 [1]'
    );
    await expect(oldest.getByTestId('kernel-state-gallery-code')).toHaveText(
      first
    );
    const img = oldest.locator('img');
    await expect
      .poll(() => img.evaluate(i => (i as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    expect(
      await img.evaluate(i => i.getBoundingClientRect().height)
    ).toBeGreaterThan(72);
    await expect(
      gallery.getByTestId('kernel-state-gallery-counts')
    ).toContainText('60 images kept · 1 image dropped');
  });

  test('opens the assistant view in a tab with its whole text and what it leaves out', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('assistant-tab.ipynb');
    // 300 long strings whose names end in letters: no run of numbered names sums
    // them up in one line, so the budget leaves most of them out.
    await run(
      page,
      0,
      [
        'import itertools, string',
        "globals().update({'col_' + ''.join(p): 'x' * 150 for p in",
        '                  itertools.islice(itertools.product(string.ascii_lowercase, repeat=2), 300)})'
      ].join('\n')
    );
    const section = panel.getByTestId('kernel-state-assistant');
    await expand(section);
    const sidebarPrompt = section.getByTestId('kernel-state-prompt-text');
    await expect(sidebarPrompt).toContainText('Kernel state — python');
    // The sidebar shows the state after the run (not one read before it).
    await expect(sidebarPrompt).toContainText('As of execution 1');
    await section.getByTestId('kernel-state-prompt-open-tab').click();
    const tab = page.getByTestId('kernel-state-assistant-tab');
    await expect(tab).toBeVisible();
    const text = tab.getByTestId('kernel-state-assistant-tab-text');
    await expect(text).toContainText('Kernel state — python');
    await expect(text).toContainText('As of execution 1');
    await expect(text).toHaveCSS('white-space', 'pre-wrap');
    const sidebarText = await sidebarPrompt.textContent();
    expect(await text.textContent()).toBe(sidebarText);
    // What the budget left out, in the prompt's own words.
    await expect(
      tab.getByTestId('kernel-state-assistant-tab-left')
    ).toContainText('- … and');
    // The tab is wider than the sidebar: more of the text per line.
    expect(
      await text.evaluate(el => el.getBoundingClientRect().width)
    ).toBeGreaterThan(
      await section
        .getByTestId('kernel-state-prompt-text')
        .evaluate(el => el.getBoundingClientRect().width)
    );
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write']);
    await tab.getByTestId('kernel-state-assistant-tab-copy').click();
    await expect(tab.getByTestId('kernel-state-assistant-tab-copy')).toHaveText(
      'Copied'
    );
  });
});
