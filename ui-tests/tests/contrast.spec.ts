/**
 * Accessibility and habits: the panel's banners (busy, restarted) read at 4.5:1 or
 * better in the light and the dark theme, measured from the computed styles (WCAG 2
 * contrast ratio, the text colour composited over the first opaque background); "Show
 * Kernel State" moves the focus into the panel, and has a default shortcut.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { openPanel, row, run } from './helpers';

/**
 * The WCAG contrast ratio of an element's text against what is behind it.
 */
async function contrast(element: Locator): Promise<number> {
  return element.evaluate(node => {
    type RGBA = [number, number, number, number];
    const parse = (value: string): RGBA => {
      const parts = value.match(/[\d.]+/g)!.map(Number);
      return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
    };
    const over = (top: RGBA, bottom: RGBA): RGBA => {
      const a = top[3];
      return [
        top[0] * a + bottom[0] * (1 - a),
        top[1] * a + bottom[1] * (1 - a),
        top[2] * a + bottom[2] * (1 - a),
        1
      ];
    };
    // The background: the element's and its ancestors', composited down to opaque.
    const layers: RGBA[] = [];
    for (let el: Element | null = node; el; el = el.parentElement) {
      const color = parse(getComputedStyle(el).backgroundColor);
      if (color[3] > 0) {
        layers.push(color);
        if (color[3] >= 1) {
          break;
        }
      }
    }
    let background: RGBA = [255, 255, 255, 1];
    for (const layer of layers.reverse()) {
      background = over(layer, background);
    }
    const text = over(parse(getComputedStyle(node).color), background);
    const luminance = (c: RGBA) => {
      const [r, g, b] = c.slice(0, 3).map(v => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [l1, l2] = [luminance(text), luminance(background)].sort(
      (a, b) => b - a
    );
    return (l1 + 0.05) / (l2 + 0.05);
  });
}

/**
 * The busy banner (a cell sleeping) and the restart notice, each measured.
 */
async function measureBanners(
  page: IJupyterLabPageFixture,
  name: string
): Promise<{ busy: number; restart: number }> {
  const panel = await openPanel(page);
  await page.notebook.createNew(name);
  await run(page, 0, 'a = 1');
  await expect(row(panel, 'a')).toBeVisible();

  await run(page, 1, 'import time; time.sleep(8); b = 2', false);
  const busy = panel.getByTestId('kernel-state-busy-banner');
  await expect(busy).toBeVisible({ timeout: 6000 });
  const busyRatio = await contrast(busy);
  await expect(row(panel, 'b')).toBeVisible({ timeout: 30000 });

  await page.evaluate(async () => {
    const widget = (window as any).jupyterapp.shell.currentWidget;
    await widget.sessionContext.session.kernel.restart();
  });
  const notice = panel.getByTestId('kernel-state-restart-notice');
  await expect(notice).toBeVisible();
  const restartRatio = await contrast(notice);
  await page.evaluate(async () => {
    await (
      window as any
    ).jupyterapp.shell.currentWidget.sessionContext.shutdown();
  });
  return { busy: busyRatio, restart: restartRatio };
}

test.describe('Kernel State accessibility', () => {
  // The restart is the client's own: its kernels are shut down by each test.
  test.use({ kernels: null });

  test('banners read at 4.5:1 or better in the light theme', async ({
    page
  }) => {
    test.setTimeout(180_000);
    await page.theme.setLightTheme();
    const ratios = await measureBanners(page, 'contrast-light.ipynb');
    expect(ratios.busy).toBeGreaterThanOrEqual(4.5);
    expect(ratios.restart).toBeGreaterThanOrEqual(4.5);
  });

  test('banners read at 4.5:1 or better in the dark theme', async ({
    page
  }) => {
    test.setTimeout(180_000);
    await page.theme.setDarkTheme();
    const ratios = await measureBanners(page, 'contrast-dark.ipynb');
    expect(ratios.busy).toBeGreaterThanOrEqual(4.5);
    expect(ratios.restart).toBeGreaterThanOrEqual(4.5);
    await page.theme.setLightTheme();
  });
});

test.describe('Show Kernel State', () => {
  test('moves the focus into the panel, from the palette or its shortcut', async ({
    page
  }) => {
    await page.notebook.createNew('focus.ipynb');
    await run(page, 0, 'x = 1');
    // Collapse the left area, keep the keyboard in the notebook.
    await page.sidebar.close('left');
    await page.notebook.enterCellEditingMode(0);

    await page.evaluate(async () => {
      await (window as any).jupyterapp.commands.execute('kernel-state:open');
    });
    const panel = page.getByTestId('kernel-state-panel');
    await expect(panel).toBeVisible();
    await expect(panel.getByTestId('kernel-state-grid')).toBeFocused();
    // The keyboard works the list at once.
    await page.keyboard.press('ArrowDown');
    await expect(
      panel.locator('[data-test-id="kernel-state-row"][aria-selected="true"]')
    ).toHaveAttribute('data-name', 'x');

    await page.sidebar.close('left');
    await page.notebook.enterCellEditingMode(0);
    await page.keyboard.press('ControlOrMeta+Shift+Y');
    await expect(panel).toBeVisible();
    await expect(panel.getByTestId('kernel-state-grid')).toBeFocused();
  });

  test('lists its shortcut among the application’s', async ({ page }) => {
    const keys = await page.evaluate(() =>
      (window as any).jupyterapp.commands.keyBindings
        .filter((b: any) => b.command === 'kernel-state:open')
        .map((b: any) => b.keys.join(' '))
    );
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).toMatch(/Shift Y/);
  });
});
