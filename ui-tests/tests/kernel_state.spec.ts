import { expect, test } from '@jupyterlab/galata';

import { openPanel, row, run } from './helpers';

test.describe('Kernel State sidebar', () => {
  test('shows the variables of the active notebook and what changed', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await expect(panel.getByTestId('kernel-state-no-kernel')).toBeVisible();
    await expect(
      page.getByRole('grid', { name: 'Kernel variables' })
    ).toHaveCount(0);

    await page.notebook.createNew('state.ipynb');
    await expect(panel.getByTestId('kernel-state-empty')).toHaveText(
      'No variables yet — run a cell'
    );

    await run(
      page,
      0,
      "import pandas as pd; df = pd.DataFrame({'a': [1,2,3]}); x = 42"
    );
    const df = row(panel, 'df');
    await expect(df).toBeVisible();
    await expect(df.getByRole('gridcell').nth(1)).toContainText('DataFrame');
    await expect(df.getByRole('gridcell').nth(2)).toHaveText('3×1');
    await expect(row(panel, 'x')).toBeVisible();
    await expect(row(panel, 'x')).toContainText('42');
    await expect(panel.getByTestId('kernel-state-total')).toContainText(
      '2 variables'
    );
    await expect(
      page.getByRole('grid', { name: 'Kernel variables' })
    ).toBeVisible();

    await run(page, 1, 'x = 43; y = [1, 2]');
    await expect(row(panel, 'x')).toHaveAttribute('data-change', 'modified');
    await expect(row(panel, 'x')).toContainText('43');
    await expect(row(panel, 'y')).toHaveAttribute('data-change', 'new');
    await expect(row(panel, 'y').getByTestId('kernel-state-change')).toHaveText(
      /new \[\d+\]/
    );
    await expect(row(panel, 'df')).toHaveAttribute('data-change', 'unchanged');
  });

  test('says the state is stale while a cell runs', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('busy.ipynb');
    await run(page, 0, 'a = 1');
    await expect(row(panel, 'a')).toBeVisible();

    await run(page, 1, 'import time; time.sleep(6); b = 2', false);
    const banner = panel.getByTestId('kernel-state-busy-banner');
    await expect(banner).toBeVisible({ timeout: 5000 });
    await expect(banner).toContainText(
      'Kernel busy — showing state as of execution'
    );
    await expect(row(panel, 'b')).toHaveCount(0);

    await expect(row(panel, 'b')).toBeVisible({ timeout: 20000 });
    await expect(banner).toHaveCount(0);
  });

  test('renders hostile strings as text', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('hostile.ipynb');
    await run(
      page,
      0,
      [
        `evil = '<img src=x onerror="window.__pwned=1">'`,
        `d = {'<img src=y onerror="window.__pwned=2">': 1}`,
        'import pandas as pd',
        `frame = pd.DataFrame({'<img src=z onerror="window.__pwned=3">': [1]})`
      ].join('\n')
    );
    const evil = row(panel, 'evil');
    await expect(evil).toContainText('<img src=x onerror="window.__pwned=1">');
    await expect(panel.locator('img')).toHaveCount(0);

    await evil.click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector.getByTestId('kernel-state-repr')).toContainText(
      '<img src=x onerror="window.__pwned=1">'
    );
    await row(panel, 'd').click();
    await expect(inspector).toContainText(
      '<img src=y onerror="window.__pwned=2">'
    );
    await expect(panel.locator('img')).toHaveCount(0);
    // A column name reaches the list preview and the inspector's columns and head.
    await row(panel, 'frame').click();
    await expect(inspector).toContainText(
      '<img src=z onerror="window.__pwned=3">'
    );
    await expect(panel.locator('img')).toHaveCount(0);
    expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  });

  test('makes no requests while the panel is hidden', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('hidden.ipynb');
    await run(page, 0, 'first = 1');
    await expect(row(panel, 'first')).toBeVisible();

    await page.sidebar.close('left');
    await expect(panel).toBeHidden();
    const requests: string[] = [];
    page.on('request', request => {
      if (request.url().includes('api/kernel-state')) {
        requests.push(request.url());
      }
    });
    await run(page, 1, 'second = 2');
    await run(page, 2, 'import time; time.sleep(1.5); third = 3');
    await page.waitForTimeout(1500);
    expect(requests).toEqual([]);

    await openPanel(page);
    await expect(row(panel, 'third')).toBeVisible();
    expect(requests.length).toBeGreaterThan(0);
  });
});

test.describe('Kernel State inspector', () => {
  test('filters, sorts and drills into a variable', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('inspect.ipynb');
    await run(
      page,
      0,
      [
        'import pandas as pd',
        "df = pd.DataFrame({'a': [1, 2, 3], 'b': ['x', 'y', 'z']})",
        "cfg = {'outer': {'inner': [1, 2]}}",
        'zz = 1'
      ].join('\n')
    );
    await expect(row(panel, 'zz')).toBeVisible();

    const filter = panel.getByRole('searchbox', { name: 'Filter variables' });
    await filter.fill('data*');
    await expect(panel.getByTestId('kernel-state-row')).toHaveCount(1);
    await expect(row(panel, 'df')).toBeVisible();
    await filter.fill('');
    await expect(panel.getByTestId('kernel-state-row')).toHaveCount(3);

    await panel
      .getByRole('columnheader', { name: /^Type/ })
      .getByRole('button')
      .click();
    await expect(
      panel.getByRole('columnheader', { name: /Type/ })
    ).toHaveAttribute('aria-sort', 'ascending');
    await expect(panel.getByTestId('kernel-state-row').first()).toHaveAttribute(
      'data-name',
      'df'
    );

    await row(panel, 'df').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector).toContainText('Columns (2 of 2)');
    await expect(inspector).toContainText('int64');
    await expect(inspector).toContainText('First rows');

    await row(panel, 'cfg').click();
    await inspector.getByRole('button', { name: /'outer'/ }).click();
    const crumbs = inspector
      .getByRole('navigation', { name: 'Path' })
      .getByRole('button');
    await expect(crumbs).toHaveCount(2);
    await expect(inspector.getByTestId('kernel-state-repr')).toHaveText(
      "{'inner': [1, 2]}"
    );
    await crumbs.first().click();
    await expect(crumbs).toHaveCount(1);
    await expect(inspector.getByTestId('kernel-state-repr')).toContainText(
      "{'outer':"
    );
    await inspector
      .getByRole('button', { name: 'Close the inspector' })
      .click();
    await expect(inspector).toHaveCount(0);
  });

  test('follows a console kernel', async ({ page }) => {
    const panel = await openPanel(page);
    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute('console:create', {
        kernelPreference: { name: 'python3' }
      });
    });
    const prompt = page.locator(
      '.jp-CodeConsole-promptCell .jp-InputArea-editor'
    );
    await prompt.waitFor();
    await expect(panel.getByTestId('kernel-state-empty')).toBeVisible();
    await prompt.click();
    await page.keyboard.type('from_console = 7');
    await page.keyboard.press('Shift+Enter');
    await expect(row(panel, 'from_console')).toBeVisible();
  });
});

test.describe('Kernel State at scale', () => {
  test('renders a window of rows for 10,000 variables', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('many.ipynb');
    await run(page, 0, "for i in range(10_000): globals()[f'v{i:05d}'] = i");
    await expect(panel.getByTestId('kernel-state-total')).toContainText(
      '10,001 variables · first 2,000 loaded'
    );
    const rows = panel.getByTestId('kernel-state-row');
    await expect(rows.first()).toHaveAttribute('data-name', 'i');
    expect(await rows.count()).toBeLessThan(100);

    const grid = panel.locator('.jp-KernelState-gridBody');
    // Halfway down the 2,000 loaded rows (all of one height in either layout).
    await grid.evaluate(
      element =>
        (element.scrollTop =
          (element.firstElementChild as HTMLElement).offsetHeight / 2)
    );
    await expect(row(panel, 'v01000')).toBeVisible();
    expect(await rows.count()).toBeLessThan(100);

    // Beyond the loaded page, the filter asks the server.
    await panel
      .getByRole('searchbox', { name: 'Filter variables' })
      .fill('v0999*');
    await expect(row(panel, 'v09999')).toBeVisible();
    await expect(rows).toHaveCount(10);
  });
});

test.describe('Kernel State restart', () => {
  // galata's kernel-tracking mock answers POST .../restart with 201, which the
  // JupyterLab client rejects; this test shuts its kernel down itself instead.
  test.use({ kernels: null });

  test('forgets the variables when the kernel restarts', async ({ page }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('restart.ipynb');
    await run(page, 0, 'before_restart = 1');
    await expect(row(panel, 'before_restart')).toBeVisible();

    await page.evaluate(async () => {
      const widget = (window as any).jupyterapp.shell.currentWidget;
      await widget.sessionContext.session.kernel.restart();
    });
    await expect(panel.getByTestId('kernel-state-empty')).toBeVisible();
    await expect(
      panel.getByTestId('kernel-state-restart-notice')
    ).toBeVisible();
    await expect(row(panel, 'before_restart')).toHaveCount(0);

    await run(page, 0, 'after_restart = 2');
    await expect(row(panel, 'after_restart')).toBeVisible();
    await expect(panel.getByTestId('kernel-state-restart-notice')).toHaveCount(
      0
    );
    await expect(row(panel, 'before_restart')).toHaveCount(0);
    await page.evaluate(async () => {
      await (
        window as any
      ).jupyterapp.shell.currentWidget.sessionContext.shutdown();
    });
  });
});
