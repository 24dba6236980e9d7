/**
 * The variable list: its layout at the default sidebar width, resizable columns, sort
 * both ways, keyboard, the row context menu, delete with confirmation, masked secrets,
 * structural changes and removed variables; and two small things (the image dialog
 * fits the image, the folded assistant view's size follows the kernel).
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { expand, openPanel, row, run } from './helpers';

const SETUP = [
  'n = 42',
  "sample = 'hello'",
  'items = [1, 2, 3]',
  'big = list(range(100_000))',
  'series_a = 1.5',
  'zeta = None'
].join('\n');

/**
 * Names of the rows in list order (the list is virtualised: all fit here).
 */
async function names(panel: Locator): Promise<string[]> {
  return panel.getByTestId('kernel-state-row').evaluateAll(rows =>
    rows
      .map(r => ({
        top: parseFloat((r as HTMLElement).style.top),
        name: (r as HTMLElement).dataset.name ?? ''
      }))
      .sort((a, b) => a.top - b.top)
      .map(r => r.name)
  );
}

async function selectedName(panel: Locator): Promise<string | null> {
  const selected = panel.locator(
    '[data-test-id="kernel-state-row"][aria-selected="true"]'
  );
  return (await selected.count()) ? selected.getAttribute('data-name') : null;
}

async function setUp(
  page: IJupyterLabPageFixture,
  notebook: string
): Promise<Locator> {
  const panel = await openPanel(page);
  await page.notebook.createNew(notebook);
  await run(page, 0, SETUP);
  await expect(row(panel, 'zeta')).toBeVisible();
  return panel;
}

test.describe('Kernel State list', () => {
  test('reads at the default sidebar width: two lines a variable, whole header labels, memory', async ({
    page
  }) => {
    const panel = await setUp(page, 'list-layout.ipynb');
    const grid = panel.getByTestId('kernel-state-grid');
    await expect(grid).toHaveAttribute('data-layout', 'compact');
    // Every header label is shown whole.
    const cut = await grid
      .locator('.jp-KernelState-sortButton')
      .evaluateAll(buttons =>
        buttons
          .filter(b => b.scrollWidth > b.clientWidth + 1)
          .map(b => b.textContent)
      );
    expect(cut).toEqual([]);
    // Name on the first line, type · size · memory on the second.
    const big = row(panel, 'big');
    const nameBox = (await big
      .locator('.jp-KernelState-col-name')
      .boundingBox())!;
    const typeBox = (await big
      .locator('.jp-KernelState-col-type')
      .boundingBox())!;
    expect(typeBox.y).toBeGreaterThan(nameBox.y + nameBox.height - 2);
    await expect(big.locator('.jp-KernelState-col-type')).toHaveText('list');
    await expect(big.locator('.jp-KernelState-col-shape')).toHaveText(
      '100,000'
    );
    await expect(big.locator('.jp-KernelState-col-memory')).toHaveText(
      /\d+(\.\d)? (KiB|MiB)/
    );
  });

  test('resizes a column and sorts both ways', async ({ page }) => {
    const panel = await setUp(page, 'list-sort.ipynb');
    await page.sidebar.setWidth(700, 'left');
    const grid = panel.getByTestId('kernel-state-grid');
    await expect(grid).toHaveAttribute('data-layout', 'columns');

    // Drag the name column's handle 80 px to the right.
    const header = panel.getByTestId('kernel-state-header-name');
    const before = (await header.boundingBox())!.width;
    const handle = panel.getByTestId('kernel-state-resize-name');
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 40, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + 80 + box.width / 2, box.y + box.height / 2, {
      steps: 4
    });
    await page.mouse.up();
    await expect
      .poll(async () => (await header.boundingBox())!.width)
      .toBeGreaterThan(before + 70);
    // The width is kept in the settings.
    await expect
      .poll(() =>
        page.evaluate(async () => {
          const settings = await (
            window as any
          ).jupyterapp.serviceManager.settings.fetch(
            'jupyter-kernel-state:plugin'
          );
          return Number(settings.settings?.columnWidths?.name ?? 0);
        })
      )
      .toBeGreaterThan(before + 70);
    // The rows' cells follow the header.
    const cell = row(panel, 'n').locator('.jp-KernelState-col-name');
    expect(
      Math.abs(
        (await cell.boundingBox())!.width - (await header.boundingBox())!.width
      )
    ).toBeLessThan(2);

    // Name: ascending first, then descending.
    await expect(header).toHaveAttribute('aria-sort', 'ascending');
    expect(await names(panel)).toEqual([
      'big',
      'items',
      'n',
      'sample',
      'series_a',
      'zeta'
    ]);
    await header.getByRole('button').click();
    await expect(header).toHaveAttribute('aria-sort', 'descending');
    await expect
      .poll(() => names(panel))
      .toEqual(['zeta', 'series_a', 'sample', 'n', 'items', 'big']);
    await header.getByRole('button').click();
    await expect(header).toHaveAttribute('aria-sort', 'ascending');
    await expect
      .poll(() => names(panel))
      .toEqual(['big', 'items', 'n', 'sample', 'series_a', 'zeta']);

    // Memory: largest first, then smallest first.
    const memory = panel.getByTestId('kernel-state-header-memory');
    await memory.getByRole('button').click();
    await expect(memory).toHaveAttribute('aria-sort', 'descending');
    await expect(header).not.toHaveAttribute('aria-sort', /.+/);
    await expect.poll(async () => (await names(panel))[0]).toBe('big');
    await memory.getByRole('button').click();
    await expect(memory).toHaveAttribute('aria-sort', 'ascending');
    await expect.poll(async () => (await names(panel)).at(-1)).toBe('big');
  });

  test('keyboard: Home, End, type-ahead, Enter, Escape', async ({ page }) => {
    const panel = await setUp(page, 'list-keys.ipynb');
    const grid = panel.getByTestId('kernel-state-grid');
    await row(panel, 'items').click();
    await expect(grid).toBeFocused();
    await page.keyboard.press('End');
    await expect.poll(() => selectedName(panel)).toBe('zeta');
    await page.keyboard.press('Home');
    await expect.poll(() => selectedName(panel)).toBe('big');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => selectedName(panel)).toBe('items');
    // Type-ahead: "s" goes to the next name starting with s, again to the one after.
    await page.keyboard.press('s');
    await expect.poll(() => selectedName(panel)).toBe('sample');
    await page.keyboard.press('s');
    await expect.poll(() => selectedName(panel)).toBe('series_a');
    await page.waitForTimeout(1000);
    await page.keyboard.type('ze');
    await expect.poll(() => selectedName(panel)).toBe('zeta');
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector).toBeVisible();
    // Enter on a variable the explorer cannot show opens it in the inspector.
    await page.keyboard.press('Enter');
    await expect(inspector).toContainText('NoneType');
    // Escape clears the selection and closes the inspector.
    await page.keyboard.press('Escape');
    await expect.poll(() => selectedName(panel)).toBeNull();
    await expect(inspector).toHaveCount(0);
  });

  test('Enter and double-click open a table in the Data Explorer', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('list-explore.ipynb');
    await run(
      page,
      0,
      "import pandas as pd\nsales = pd.DataFrame({'price': [3.5, 1.25]})\nk = 1"
    );
    await expect(row(panel, 'sales')).toBeVisible();
    const hasCommand = await page.evaluate(() =>
      (window as any).jupyterapp.commands.hasCommand(
        'kernel-state:open-explorer'
      )
    );
    test.skip(!hasCommand, 'the Data Explorer command is not registered');
    await row(panel, 'sales').dblclick();
    await expect(
      page.getByTestId('kernel-state-explorer-grid').first()
    ).toBeVisible();
    await expect(
      page.getByRole('tab', { name: /sales/ }).first()
    ).toBeVisible();
  });

  test('row context menu: copy name, copy as code, keyboard', async ({
    page
  }) => {
    const panel = await setUp(page, 'list-menu.ipynb');
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write']);
    const menu = page.getByTestId('kernel-state-menu');

    await row(panel, 'n').click({ button: 'right' });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('menuitem')).toHaveText([
      /Open in Data Explorer/,
      /Inspect/,
      /Copy Name/,
      /Copy Value as Text/,
      /Copy as Code/,
      /Delete…/
    ]);
    // A number is not a table: no explorer for it.
    await expect(
      menu.getByRole('menuitem', { name: 'Open in Data Explorer' })
    ).toHaveAttribute('aria-disabled', 'true');
    await menu.getByRole('menuitem', { name: 'Copy as Code' }).click();
    await expect(menu).toBeHidden();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe('n = 42');

    await row(panel, 'sample').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Copy Name' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe('sample');

    // A list cut in its preview cannot be copied as code.
    await row(panel, 'big').click({ button: 'right' });
    await expect(
      menu.getByRole('menuitem', { name: 'Copy as Code' })
    ).toHaveAttribute('aria-disabled', 'true');
    await menu.getByRole('menuitem', { name: 'Copy Value as Text' }).click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toMatch(/^\[0, 1, 2, 3/);

    // Shift+F10 opens the menu of the selected row; Escape closes it and gives the
    // keyboard back to the list.
    await row(panel, 'items').click();
    await page.keyboard.press('Shift+F10');
    await expect(menu).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(panel.getByTestId('kernel-state-grid')).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => selectedName(panel)).toBe('n');
    await page.keyboard.press('Shift+F10');
    await expect(menu).toBeVisible();
    await menu.getByRole('menuitem', { name: 'Inspect' }).click();
    await expect(panel.getByTestId('kernel-state-repr')).toHaveText('42');
  });

  test('deletes a variable after confirmation: gone from the list and the kernel', async ({
    page
  }) => {
    const panel = await setUp(page, 'list-delete.ipynb');
    const menu = page.getByTestId('kernel-state-menu');

    // Cancel keeps it.
    await row(panel, 'n').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Delete…' }).click();
    const dialog = page.locator('.jp-Dialog');
    await expect(dialog).toContainText('Delete n?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row(panel, 'n')).toBeVisible();

    await row(panel, 'n').click({ button: 'right' });
    await menu.getByRole('menuitem', { name: 'Delete…' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect(row(panel, 'n')).toHaveCount(0);
    await expect(row(panel, 'items')).toBeVisible();

    // The kernel no longer has it.
    await run(page, 1, "print('n' in globals(), 'items' in globals())");
    await expect(page.notebook.getCellOutputLocator(1)).resolves.toBeTruthy();
    const output = await page.notebook.getCellTextOutput(1);
    expect(output?.join('')).toContain('False True');
    await expect(row(panel, 'n')).toHaveCount(0);
  });

  test('masks a secret until Reveal is clicked, only in the inspector', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('list-secret.ipynb');
    await run(page, 0, 'api_key = "sk-demo-1234567890abcdef"\nother = 1');
    const secret = row(panel, 'api_key');
    await expect(secret).toBeVisible();
    const preview = secret.getByTestId('kernel-state-preview');
    await expect(preview).toContainText('(masked)');
    await expect(panel).not.toContainText('sk-demo');

    await secret.click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    const repr = inspector.getByTestId('kernel-state-repr');
    await expect(repr).toContainText('(masked)');
    await expect(inspector).not.toContainText('sk-demo');

    await inspector.getByTestId('kernel-state-reveal').click();
    await expect(repr).toContainText('sk-demo-1234567890abcdef');
    await expect(inspector.getByTestId('kernel-state-reveal')).toHaveCount(0);
    // The list stays masked.
    await expect(preview).toContainText('(masked)');
    await expect(preview).not.toContainText('sk-demo');

    // Another selection forgets the revealed value.
    await row(panel, 'other').click();
    await expect(repr).toHaveText('1');
    await secret.click();
    await expect(repr).toContainText('(masked)');
    await expect(panel).not.toContainText('sk-demo');
  });

  test('shows structural changes on the row and in the inspector, and removed variables until the next run', async ({
    page
  }) => {
    const panel = await setUp(page, 'list-changes.ipynb');
    await run(page, 1, 'items.append(4)\ndel sample');
    const items = row(panel, 'items');
    await expect(items.getByTestId('kernel-state-change')).toBeVisible();
    await expect(items.getByTestId('kernel-state-changes')).toContainText(
      /len 3 → 4/
    );
    const removed = row(panel, 'sample');
    await expect(removed).toHaveAttribute('data-change', 'removed');
    await expect(removed.getByTestId('kernel-state-removed')).toHaveText(
      'removed'
    );

    await items.click();
    const timeline = panel.getByTestId('kernel-state-timeline');
    await expect(timeline.locator('li').first()).toContainText(
      /^\[2\] modified — len 3 → 4/
    );
    await expect(timeline.locator('li').last()).toContainText(/^\[1\] new/);

    // The next execution drops the removed row.
    await run(page, 2, 'later = 1');
    await expect(row(panel, 'later')).toBeVisible();
    await expect(row(panel, 'sample')).toHaveCount(0);
  });
});

test.describe('Kernel State small things', () => {
  test('the image dialog shows a wide image whole', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('list-image.ipynb');
    await run(
      page,
      0,
      [
        '%matplotlib inline',
        'import matplotlib.pyplot as plt',
        'fig = plt.figure(figsize=(24, 3), dpi=100)',
        'plt.plot([1, 2, 3]); plt.show()'
      ].join('\n')
    );
    const strip = panel.getByTestId('kernel-state-images');
    await expand(strip);
    await strip.getByTestId('kernel-state-image').first().click();
    const view = page.getByTestId('kernel-state-image-view');
    const img = view.locator('img');
    await expect
      .poll(() => img.evaluate(i => (i as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(1500);
    const fit = await img.evaluate(i => {
      const image = i as HTMLImageElement;
      const body = image.closest('.jp-Dialog-body') as HTMLElement;
      const box = image.getBoundingClientRect();
      const frame = body.getBoundingClientRect();
      return {
        inside:
          box.left >= frame.left - 1 &&
          box.right <= frame.right + 1 &&
          box.top >= frame.top - 1 &&
          box.bottom <= frame.bottom + 1,
        scrolls:
          body.scrollWidth > body.clientWidth + 1 ||
          body.scrollHeight > body.clientHeight + 1,
        ratio: box.width / box.height,
        natural: image.naturalWidth / image.naturalHeight
      };
    });
    expect(fit.inside).toBe(true);
    expect(fit.scrolls).toBe(false);
    expect(Math.abs(fit.ratio - fit.natural)).toBeLessThan(0.1);
  });

  test('the folded assistant view shows its current size', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('list-assistant.ipynb');
    await run(page, 0, 'a = 1');
    await expect(row(panel, 'a')).toBeVisible();
    const summary = panel
      .getByTestId('kernel-state-assistant')
      .locator('.jp-KernelState-foldSummary');
    await expect(summary).toHaveText(/^~[\d,]+ tokens$/);
    const before = await summary.textContent();
    await run(page, 1, "b = 'a longer value that makes the prompt grow'");
    await expect(row(panel, 'b')).toBeVisible();
    await expect(summary).not.toHaveText(before!);
    await expect(summary).toHaveText(/^~[\d,]+ tokens$/);
  });
});
