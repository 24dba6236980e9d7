/**
 * Small things a new user sees at JupyterLab's default sizes: the sidebar's toolbar
 * (the filter's whole placeholder, "Changed in the last execution [N]" on one line),
 * the assistant section folded and open (its size and its buttons each on one line,
 * nothing cut), the inspector (its type line on one line; a dict's classmethod is a
 * method, not an attribute), and the `@var:` card in the chat's side panel (nothing
 * clipped). Lines are counted from the text's own boxes, not from pixels of a
 * screenshot.
 */
import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import { Locator } from '@playwright/test';

import { expand, openPanel, row, run } from './helpers';

/**
 * The lines the text of `locator` takes: its text boxes' distinct tops (a line of
 * mixed fonts or an icon still counts once).
 */
async function lineCount(locator: Locator): Promise<number> {
  return locator.evaluate(element => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const tops: number[] = [];
    for (const rect of Array.from(range.getClientRects())) {
      if (rect.width === 0 || rect.height === 0) {
        continue;
      }
      if (!tops.some(top => Math.abs(top - rect.top) < rect.height / 2)) {
        tops.push(rect.top);
      }
    }
    return tops.length;
  });
}

/**
 * Whether the element's content is wider than the element shows (cut, or ellipsed).
 */
async function isCut(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    element => element.scrollWidth > element.clientWidth + 1
  );
}

/**
 * The one-line height of the element's font: its box holds one line when its height is
 * below two of them.
 */
async function oneLineHigh(locator: Locator): Promise<void> {
  const [height, line] = await locator.evaluate(element => {
    const probe = document.createElement('span');
    const style = getComputedStyle(element);
    probe.style.font = style.font;
    probe.style.lineHeight = style.lineHeight;
    probe.style.whiteSpace = 'nowrap';
    probe.textContent = 'Xg';
    document.body.appendChild(probe);
    const one = probe.getBoundingClientRect().height;
    probe.remove();
    return [element.getBoundingClientRect().height, one];
  });
  expect(height).toBeLessThan(2 * line);
}

test.describe('Small things at the default sidebar width', () => {
  test('the toolbar: the whole placeholder, the changed toggle on one line', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('small-toolbar.ipynb');
    await run(page, 0, 'a = 1');
    await run(page, 1, 'b = 2');
    await expect(row(panel, 'b')).toBeVisible();

    const filter = panel.getByTestId('kernel-state-filter');
    const [placeholder, fits] = await filter.evaluate(input => {
      const field = input as HTMLInputElement;
      const style = getComputedStyle(field);
      const probe = document.createElement('span');
      probe.style.font = style.font;
      probe.style.letterSpacing = style.letterSpacing;
      probe.style.whiteSpace = 'pre';
      probe.textContent = field.placeholder;
      document.body.appendChild(probe);
      const text = probe.getBoundingClientRect().width;
      probe.remove();
      const room =
        field.clientWidth -
        parseFloat(style.paddingLeft) -
        parseFloat(style.paddingRight);
      return [field.placeholder, text <= room];
    });
    expect(placeholder).toBe('Filter by name or type (*)');
    expect(fits).toBe(true);
    await expect(filter).toHaveAttribute('title', /\* is a wildcard/);

    const toggle = panel.getByTestId('kernel-state-changed-toggle');
    await expect(toggle).toHaveText('Changed in the last execution [2]');
    expect(await lineCount(toggle)).toBe(1);
    await oneLineHigh(toggle);
    expect(await isCut(toggle)).toBe(false);
  });

  test('the assistant section: its size and buttons each on one line, folded or open', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('small-assistant.ipynb');
    await run(
      page,
      0,
      'import pandas as pd\n' +
        "sales = pd.DataFrame({'price': range(1000), 'region': ['north'] * 1000})\n" +
        'notes = "a longer text " * 40'
    );
    await expect(row(panel, 'sales')).toBeVisible();
    const section = panel.getByTestId('kernel-state-assistant');

    // Folded: the title and the size, whole, on one line.
    const header = section.locator('.jp-KernelState-foldToggle');
    const summary = section.locator('.jp-KernelState-foldSummary');
    await expect(summary).toHaveText(/^~[\d,]+ tokens$/);
    await expect(summary.locator('span')).toHaveAttribute(
      'title',
      /^[\d,]+ characters · ~[\d,]+ tokens$/
    );
    expect(await isCut(summary)).toBe(false);
    expect(await lineCount(header)).toBe(1);
    await oneLineHigh(header);

    // Open: the size, Copy and "Open in a tab", each whole on one line.
    await expand(section);
    const size = section.getByTestId('kernel-state-prompt-size');
    await expect(size).toHaveText(/^[\d,]+ characters · ~[\d,]+ tokens$/);
    for (const part of [
      size,
      section.getByTestId('kernel-state-prompt-copy'),
      section.getByTestId('kernel-state-prompt-open-tab')
    ]) {
      await expect(part).toBeVisible();
      expect(await lineCount(part)).toBe(1);
      await oneLineHigh(part);
      expect(await isCut(part)).toBe(false);
    }
  });

  test('the inspector: "dict · 2" on one line, a dict lists no attribute', async ({
    page
  }) => {
    const panel = await openPanel(page);
    await page.notebook.createNew('small-inspector.ipynb');
    await run(page, 0, "config = {'depth': 6, 'lr': 0.1}");
    await expect(row(panel, 'config')).toBeVisible();
    await row(panel, 'config').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await expect(inspector).toBeVisible();

    const typeLine = inspector.locator('.jp-KernelState-typeLine');
    await expect(typeLine).toHaveText('dict · 2');
    expect(await lineCount(typeLine)).toBe(1);
    await oneLineHigh(typeLine);

    // dict.fromkeys is a classmethod of the type: a method, hidden with the others.
    await expect(inspector.getByTestId('kernel-state-attributes')).toHaveCount(
      0
    );
    const methods = inspector.getByTestId('kernel-state-methods-toggle');
    await expect(methods).toHaveText('Show 11 methods');
    await methods.click();
    const attributes = inspector.getByTestId('kernel-state-attributes');
    await expect(attributes.getByRole('row', { name: /fromkeys/ })).toHaveText(
      /fromkeys\s*classmethod/
    );
  });

  test('the @var: card in the chat side panel wraps; a hidden variable is not offered', async ({
    page,
    tmpPath
  }) => {
    await page.notebook.createNew('small-chat.ipynb', { kernel: 'python3' });
    await run(
      page,
      0,
      'import pandas as pd, numpy as np\n' +
        "sales = pd.DataFrame({c: np.arange(100000) for c in 'abcdefgh'})\n" +
        "sales_notes = 'for me only'"
    );
    const panel = await openPanel(page);
    await expect(row(panel, 'sales_notes')).toBeVisible();
    // Hidden from the assistant, in the inspector's note.
    await row(panel, 'sales_notes').click();
    const inspector = panel.getByTestId('kernel-state-inspector');
    await inspector.getByText('Note for the assistant').click();
    const editor = inspector.getByTestId('kernel-state-annotation');
    await editor.getByLabel('Hide from assistant').check();
    await editor.getByTestId('kernel-state-annotation-save').click();
    await expect(
      editor.getByTestId('kernel-state-annotation-status')
    ).toHaveText('Saved');

    // The chat in its side panel, at the sidebar's default width.
    const path = `${tmpPath}/side.chat`;
    await page.filebrowser.contents.uploadContent('{}', 'text', path);
    await page.evaluate(async filepath => {
      await window.jupyterapp.commands.execute('jupyterlab-chat:open', {
        filepath,
        inSidePanel: true
      });
    }, path);
    const chat = page.locator('.jp-chat-sidepanel');
    const input = chat
      .locator('.jp-chat-input-container')
      .getByRole('combobox');
    await expect(input).toBeVisible();
    await input.pressSequentially('Rows of @var:sa');
    const options = page.getByRole('option');
    await expect(options.filter({ hasText: 'sales' }).first()).toBeVisible();
    await expect(options.filter({ hasText: 'DataFrame' })).toHaveCount(1);
    await expect(options.filter({ hasText: 'sales_notes' })).toHaveCount(0);
    await options.filter({ hasText: 'DataFrame 100,000×8' }).click();
    await input.pressSequentially('?');
    await chat
      .locator('.jp-chat-input-container')
      .getByRole('button', { name: /^Send message/ })
      .click();

    const message = chat
      .locator('.jp-chat-rendered-message')
      .filter({ hasText: '@var:sales — kernel state of' });
    await expect(message).toBeVisible();
    const card = message.locator('pre').filter({ hasText: '@var:sales' });
    await expect(card).toContainText(
      'columns (8): a:int64, b:int64, c:int64, d:int64, e:int64, f:int64, g:int64, h:int64'
    );
    const [shown, whole, panelWidth] = await card.evaluate(pre => [
      pre.clientWidth,
      pre.scrollWidth,
      pre.closest('.jp-chat-sidepanel')!.getBoundingClientRect().width
    ]);
    expect(panelWidth).toBeLessThan(400); // the side panel, not the main area
    expect(whole).toBeLessThanOrEqual(shown + 1); // nothing clipped
    expect(await lineCount(card)).toBeGreaterThan(5); // its 5 lines, wrapped
  });
});
