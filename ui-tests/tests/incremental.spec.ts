import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator, Response } from '@playwright/test';

import { openPanel, row, run } from './helpers';

/**
 * The next answer to a variables request asking only what changed (`delta=true`).
 */
function deltaReply(page: IJupyterLabPageFixture): Promise<Response> {
  return page.waitForResponse(
    response =>
      response.url().includes('/api/kernel-state/kernels/') &&
      response.url().includes('/variables?') &&
      response.url().includes('delta=true'),
    { timeout: 20000 }
  );
}

/**
 * Scroll the virtualised list so that row `index` is in the middle of the view. A row
 * is one line in the columns layout and two in the compact one (a narrow panel's), so
 * the rows above `index` are taken as tall as the first one rendered.
 */
async function scrollTo(panel: Locator, index: number): Promise<void> {
  await panel.locator('.jp-KernelState-gridBody').evaluate((body, index) => {
    const rendered = body.querySelector<HTMLElement>(
      '[data-test-id="kernel-state-row"]'
    );
    if (!rendered) {
      throw new Error('no row rendered');
    }
    const height = rendered.offsetHeight;
    body.scrollTop = Math.max(
      0,
      index * height - (body.clientHeight - height) / 2
    );
  }, index);
}

test.describe('Kernel State incremental list', () => {
  test('merges one change among 10,000 variables', async ({ page }) => {
    test.setTimeout(90000);
    const panel = await openPanel(page);
    await page.notebook.createNew('incremental.ipynb');
    const total = panel.getByTestId('kernel-state-total');

    await run(
      page,
      0,
      "for i in range(10000): globals()['v%05d' % i] = i\ndel i"
    );
    await expect(total).toContainText('10,000 variables');
    await expect(row(panel, 'v00000')).toBeVisible();

    // One change: the answer holds that entry only, merged into the list held.
    const asked: string[] = [];
    page.on('request', request => {
      if (
        /\/api\/kernel-state\/kernels\/[^/]+\/variables\?/.test(request.url())
      ) {
        asked.push(request.url());
      }
    });
    const changed = deltaReply(page);
    await run(page, 1, 'v00042 = -1');
    const reply = await (await changed).json();
    expect(reply.delta).toBe(true);
    expect(reply.variables).toHaveLength(1);
    expect(reply.variables[0]).toMatchObject({ name: 'v00042', preview: '-1' });
    expect(reply.total).toBe(10000);

    await scrollTo(panel, 42);
    const v42 = row(panel, 'v00042');
    await expect(v42).toBeVisible();
    await expect(v42.getByRole('gridcell').last()).toHaveText('-1');
    await expect(v42).toHaveAttribute('data-change', 'modified');
    await expect(row(panel, 'v00043')).toHaveAttribute(
      'data-change',
      'unchanged'
    );
    await expect(total).toContainText('10,000 variables');
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.filter(url => !url.includes('delta=true'))).toEqual([]);

    // A removal from the loaded page and a name beyond it.
    const next = deltaReply(page);
    asked.length = 0;
    await run(page, 2, 'del v00001\nw = 1');
    await next;
    await scrollTo(panel, 0);
    // Gone, or listed as removed until the next execution (when the list showed it).
    await expect
      .poll(async () => {
        const r = row(panel, 'v00001');
        return (await r.count()) === 0
          ? 'gone'
          : await r.getAttribute('data-change');
      })
      .toMatch(/^(gone|removed)$/);
    await expect(row(panel, 'v00000')).toBeVisible();
    await expect(row(panel, 'v00002')).toBeVisible();
    await expect(total).toContainText('10,000 variables');
    await expect(total).toContainText('execution 3');
    // v00001 leaves a hole in the loaded page: the normal page was asked after the delta.
    expect(asked.some(url => !url.includes('since='))).toBe(true);

    const filter = panel.getByRole('searchbox', { name: 'Filter variables' });
    await filter.fill('w');
    await expect(row(panel, 'w')).toBeVisible();
    await expect(row(panel, 'w')).toHaveAttribute('data-change', 'new');
  });
});
