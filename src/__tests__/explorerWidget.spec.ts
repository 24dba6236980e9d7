/**
 * The explorer tab as a whole: End / Ctrl+End reach the last column and row in one
 * press (the cursor stays in view while the columns passed are sized), copying with
 * headers gives full values, going to a column by name, a cell's "Filter to / Exclude
 * this value", the settings, and every string of the summary and code views
 * translated.
 */
import './canvasStub';

import { Clipboard, MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { findColumn } from '../explorer/data/columns';
import { readSettings } from '../explorer/settings';
import { createExplorer, DataExplorer } from '../explorer/widget';
import { IRowsQuery } from '../tokens';
import {
  FakeTable,
  flush,
  makeModel,
  markingTranslator
} from './explorerFakes';

/**
 * A table whose column c0 holds the row number as its text (so a cell's value is a
 * value the fake's filters read), c1 a long float.
 */
function numbersTable(rows: number, columns: number): FakeTable {
  const table = new FakeTable(rows, columns);
  const window = table.window.bind(table);
  table.window = (query: IRowsQuery) => {
    const answer = window(query);
    answer.rows = answer.rows.map((row, i) =>
      row.map((cell, c) => {
        const position = answer.columns[c].position;
        if (position === 0) {
          return answer.index[i];
        }
        return position === 1 && cell !== null ? '6949.488000000001' : cell;
      })
    );
    return answer;
  };
  return table;
}

async function open(
  table: FakeTable,
  extra: Partial<DataExplorer.IOptions> = {}
): Promise<MainAreaWidget<DataExplorer>> {
  const model = makeModel(table);
  const panel = createExplorer({
    name: 'df',
    kernelId: 'k1',
    model,
    translator: extra.translator,
    profile: table.profile,
    code: async query => ({
      syntax: 'pandas',
      code: `df_view = df.sort_values(${JSON.stringify(query.sort ?? null)})`,
      name: 'df',
      view: { sort: [], filter: null, columns: null }
    }),
    ...extra
  });
  Widget.attach(panel, document.body);
  await model.load();
  return panel;
}

describe('End and Ctrl+End', () => {
  it('reach the last column in one press: the cursor is followed while columns are sized', async () => {
    const table = numbersTable(30, 50);
    const panel = await open(table);
    const { grid, model } = panel.content;
    const scrolls: [number, number][] = [];
    jest
      .spyOn(grid, 'scrollToCell')
      .mockImplementation((row, column) => void scrolls.push([row, column]));
    grid.keyHandler!.onKeyDown(
      grid,
      new KeyboardEvent('keydown', { key: 'End', cancelable: true })
    );
    expect(scrolls).toEqual([[0, 49]]);
    expect(grid.selectionModel!.cursorColumn).toBe(49);
    // The last columns' window arrives and they are sized (wider): scrolled again.
    expect(model.data('column-header', 0, 45)).toBeUndefined();
    await model.settled();
    expect(scrolls).toEqual([
      [0, 49],
      [0, 49]
    ]);
    // Ctrl+End: the last row, same column.
    grid.keyHandler!.onKeyDown(
      grid,
      new KeyboardEvent('keydown', { key: 'End', ctrlKey: true })
    );
    expect(scrolls.at(-1)).toEqual([29, 49]);
    // After a wheel the grid is the user's: sizing columns scrolls no more.
    grid.mouseHandler!.onWheel(grid, new WheelEvent('wheel', { deltaY: 10 }));
    scrolls.length = 0;
    model.data('column-header', 0, 25);
    await model.settled();
    expect(scrolls).toEqual([]);
    panel.dispose();
  });
});

describe('the explorer tab', () => {
  it('copies the selection with headers, full values', async () => {
    const copied = jest
      .spyOn(Clipboard, 'copyToSystem')
      .mockImplementation(() => undefined);
    const panel = await open(numbersTable(30, 3));
    const { grid, model } = panel.content;
    model.data('body', 0, 0);
    await model.settled();
    grid.selectionModel!.select({
      r1: 1,
      c1: 0,
      r2: 2,
      c2: 1,
      cursorRow: 1,
      cursorColumn: 0,
      clear: 'all'
    });
    expect(panel.content.copySelection(true)).toBe(
      ['\tc0\tc1', '1\t1\t6949.488000000001', '2\t2\t6949.488000000001'].join(
        '\n'
      )
    );
    expect(panel.content.copySelection(false)).toBe(
      ['1\t6949.488000000001', '2\t6949.488000000001'].join('\n')
    );
    expect(copied).toHaveBeenCalledTimes(2);
    copied.mockRestore();
    panel.dispose();
  });

  it('goes to a column by name, reading the names not known yet', async () => {
    const table = numbersTable(10, 40);
    const panel = await open(table);
    const { grid, model } = panel.content;
    const moves: number[] = [];
    jest
      .spyOn(grid, 'goToColumn')
      .mockImplementation(column => void moves.push(column));
    expect(await panel.content.goToColumnNamed('c35')).toBe(true);
    expect(moves).toEqual([35]);
    expect(await panel.content.goToColumnNamed('nothing')).toBe(false);
    expect(
      panel.content.node.querySelector(
        '[data-test-id="kernel-state-explorer-status"]'
      )?.textContent
    ).toBe('No column named “nothing”');
    // A hidden column is shown again.
    model.hideColumn(3);
    expect(panel.content.goToColumn(3)).toBe(true);
    expect(model.layout.isHidden(3)).toBe(false);
    expect(moves.at(-1)).toBe(3);
    expect(
      findColumn(
        [
          { name: 'price_total', position: 0 },
          { name: 'price', position: 1 }
        ],
        'price'
      )
    ).toBe(1);
    panel.dispose();
  });

  it('filters to and excludes the value of a cell', async () => {
    const panel = await open(numbersTable(100, 3));
    const explorer = panel.content;
    const { model } = explorer;
    model.data('body', 0, 0);
    await model.settled();
    const hit = { region: 'body' as const, row: 42, column: 0 };
    await explorer.filterByCell(hit, false);
    expect(model.filter).toEqual({ column: 'c0', op: 'eq', value: '42' });
    expect(model.rowCount('body')).toBe(1);
    await explorer.filterBar.clear();
    await explorer.filterByCell({ region: 'body', row: 7, column: 0 }, true);
    expect(model.rowCount('body')).toBe(99);
    expect(
      explorer.sortByColumn(
        { region: 'column-header', row: 0, column: 1 },
        'desc'
      )
    ).toBe(true);
    expect(model.sort).toEqual([{ column: 'c1', direction: 'desc' }]);
    panel.dispose();
  });

  it('applies its settings: the summary side and the precision', async () => {
    expect(readSettings({})).toEqual({
      summaryPosition: 'left',
      showSummary: true,
      numberFormat: { digits: 6, grouping: true },
      outputGrid: 'on'
    });
    const settings = readSettings({
      summaryPosition: 'right',
      showSummary: false,
      significantDigits: 40,
      thousandsSeparator: false
    });
    expect(settings.numberFormat).toEqual({ digits: 17, grouping: false });
    const panel = await open(numbersTable(10, 3), { settings });
    const explorer = panel.content;
    expect(explorer.summary.isHidden).toBe(true);
    const body = explorer.node.querySelector('.jp-KernelState-explorerBody')!;
    const children = [...body.children].filter(node =>
      node.classList.contains('lm-Widget')
    );
    expect(children.indexOf(explorer.grid.node)).toBeLessThan(
      children.indexOf(explorer.summary.node)
    );
    explorer.toggleSummary(true);
    expect(explorer.summary.isHidden).toBe(false);
    explorer.settings = readSettings({ significantDigits: 3 });
    expect(explorer.grid.numberFormat).toEqual({ digits: 3, grouping: true });
    panel.dispose();
  });

  it('shows a statistics panel beside the grid, its statistics after the rows', async () => {
    const table = numbersTable(100, 3);
    const panel = await open(table);
    const explorer = panel.content;
    await explorer.profiles.settled();
    await flush();
    const rows = explorer.summary.node.querySelectorAll(
      '[data-test-id="kernel-state-explorer-summary-row"]'
    );
    expect(rows).toHaveLength(3);
    expect(table.profileQueries.length).toBeGreaterThan(0);
    // A new filter: the statistics are those of the rows kept.
    await explorer.model.setFilter({ column: 'c0', op: 'lt', value: '10' });
    expect(explorer.profiles.profile(0)).toBeUndefined();
    await explorer.profiles.settled();
    await flush();
    expect(table.profileQueries.at(-1)?.filter).toEqual({
      column: 'c0',
      op: 'lt',
      value: '10'
    });
    panel.dispose();
  });
});

describe('the explorer translated, its summary and code too', () => {
  function untranslated(node: HTMLElement, data: string[]): string[] {
    const texts: string[] = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ALL);
    for (let at: Node | null = walker.currentNode; at; at = walker.nextNode()) {
      if (at.nodeType === Node.TEXT_NODE) {
        texts.push(at.textContent ?? '');
      } else if (at instanceof Element) {
        for (const name of [
          'title',
          'aria-label',
          'placeholder',
          'aria-valuetext'
        ]) {
          texts.push(at.getAttribute(name) ?? '');
        }
      }
    }
    return texts.filter(
      text =>
        /\p{L}/u.test(text) &&
        !(text.startsWith('⟦') && text.endsWith('⟧')) &&
        !data.includes(text)
    );
  }

  it('puts every string of the filter bar, summary and code through the translator', async () => {
    const translator = markingTranslator();
    const table = numbersTable(100, 3);
    table.names[2] = 'region';
    const panel = await open(table, { translator });
    const explorer = panel.content;
    await explorer.profiles.settled();
    await flush();
    explorer.summary.toggle(1, true);
    explorer.summary.toggle(2, true);
    explorer.toggleCode(true);
    await flush();
    // Two conditions and a group in the filter bar.
    const bar = explorer.filterBar.node;
    (
      bar.querySelector(
        '[data-test-id="kernel-state-explorer-filter-add"]'
      ) as HTMLButtonElement
    ).click();
    (
      bar.querySelector(
        '[data-test-id="kernel-state-explorer-filter-add-group"]'
      ) as HTMLButtonElement
    ).click();
    const data = [
      'df',
      'c0',
      'c1',
      'region',
      'north',
      '<b>south</b>',
      'int64',
      'float64',
      'object',
      'pandas',
      'polars',
      'df_view = df.sort_values(null)'
    ];
    expect(untranslated(explorer.node, data)).toEqual([]);
    expect(untranslated(panel.toolbar.node, data)).toEqual([]);
    panel.dispose();
  });
});
