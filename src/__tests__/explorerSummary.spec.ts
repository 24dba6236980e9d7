/**
 * The summary panel and its statistics: profiles asked a few columns at a time, the
 * grid's columns first and only once the grid has nothing to fetch, forgotten with a
 * new filter; the panel's rows (badge, missing share, sparkline), expanded by
 * keyboard, searched, and showing a column in the grid.
 */
import './canvasStub';

import { Widget } from '@lumino/widgets';

import { searchColumns } from '../explorer/data/columns';
import { DEFAULT_NUMBER_FORMAT } from '../explorer/data/numbers';
import { SummaryPanel } from '../explorer/summary/panel';
import { CUT, ProfileLoader } from '../explorer/summary/profile';
import {
  FakeTable,
  flush,
  makeModel,
  responseError,
  trans
} from './explorerFakes';

describe('ProfileLoader', () => {
  it('asks a few columns a request, the first wished first', async () => {
    const table = new FakeTable(100, 30);
    const loader = new ProfileLoader({ fetch: table.profile, batch: 5 });
    loader.want([0, 1, 2, 3, 4, 5, 6, 7]);
    loader.want([20, 21], true); // the grid shows these
    await loader.settled();
    expect(table.profileQueries.map(q => q.columns)).toEqual([
      '0,1,2,20,21',
      '3:8'
    ]);
    expect(loader.profile(1)?.family).toBe('number');
    expect(loader.profile(21)?.name).toBe('c21');
    // Known: not asked again.
    loader.want([1, 2]);
    await loader.settled();
    expect(loader.requestCount).toBe(2);
  });

  it('waits until the grid has no window to fetch', async () => {
    const table = new FakeTable(100, 5);
    let release: () => void = () => undefined;
    const idle = new Promise<void>(resolve => (release = resolve));
    const loader = new ProfileLoader({
      fetch: table.profile,
      idle: () => idle
    });
    loader.want([0]);
    await flush();
    expect(table.profileQueries).toHaveLength(0);
    release();
    await loader.settled();
    expect(table.profileQueries).toHaveLength(1);
  });

  it('profiles the rows a filter keeps, forgetting the others', async () => {
    const table = new FakeTable(100, 5);
    const loader = new ProfileLoader({ fetch: table.profile });
    loader.want([0]);
    await loader.settled();
    expect(loader.rows?.filteredRows).toBeNull();
    loader.setFilter({ column: 'c0', op: 'lt', value: '10' });
    expect(loader.profile(0)).toBeUndefined();
    loader.want([0]);
    await loader.settled();
    expect(table.profileQueries.at(-1)).toEqual({
      columns: '0:1',
      filter: { column: 'c0', op: 'lt', value: '10' }
    });
    expect(loader.rows?.filteredRows).toBe(10);
    expect(loader.profile(0)?.count).toBe(10);
  });

  it('asks a column cut for the time budget again alone, once', async () => {
    const table = new FakeTable(100, 5);
    table.cut.add(3);
    const loader = new ProfileLoader({ fetch: table.profile });
    loader.want([2, 3, 4]);
    await loader.settled();
    expect(table.profileQueries.map(q => q.columns)).toEqual(['2:5', '3:4']);
    expect(loader.failure(3)).toBe(CUT);
    expect(loader.profile(4)).toBeDefined();
  });

  it('stops for a lazy value (409), retries a busy kernel (503)', async () => {
    const table = new FakeTable(100, 5);
    table.failures.push(
      responseError(503, 'busy', { 'Retry-After': '1' }),
      responseError(409, 'polars LazyFrame is lazy')
    );
    const waits: number[] = [];
    const loader = new ProfileLoader({
      fetch: table.profile,
      wait: ms => {
        waits.push(ms);
        return Promise.resolve();
      }
    });
    loader.want([0, 1]);
    await loader.settled();
    expect(waits).toEqual([1000]);
    expect(loader.error).toBe('polars LazyFrame is lazy');
    loader.want([2]);
    await loader.settled();
    expect(table.profileQueries).toHaveLength(2);
  });
});

describe('SummaryPanel', () => {
  async function setup(columns = 3) {
    const table = new FakeTable(1000, columns);
    table.names[2] = 'region';
    const model = makeModel(table);
    await model.load();
    const loader = new ProfileLoader({ fetch: table.profile });
    const gone: number[] = [];
    const panel = new SummaryPanel({
      model,
      loader,
      trans,
      onGoTo: position => gone.push(position),
      numberFormat: DEFAULT_NUMBER_FORMAT
    });
    Widget.attach(panel, document.body);
    await loader.settled();
    const rows = () =>
      [
        ...panel.node.querySelectorAll(
          '[data-test-id="kernel-state-explorer-summary-row"]'
        )
      ] as HTMLElement[];
    const inRow = <T extends HTMLElement>(row: HTMLElement, id: string) =>
      row.querySelector(
        `[data-test-id="kernel-state-explorer-summary-${id}"]`
      ) as T;
    return { table, model, loader, panel, gone, rows, inRow };
  }

  it('lists a row per column: badge, missing share, sparkline', async () => {
    const { panel, rows, inRow } = await setup();
    expect(rows().map(row => row.dataset.name)).toEqual(['c0', 'c1', 'region']);
    expect(rows().map(row => row.dataset.family)).toEqual([
      'number',
      'number',
      'string'
    ]);
    const missing = inRow(rows()[1], 'missing');
    expect(missing.getAttribute('role')).toBe('meter');
    expect(missing.getAttribute('aria-valuenow')).toBe('10.0');
    expect(missing.getAttribute('aria-valuetext')).toBe('10% missing');
    const bars = inRow(rows()[1], 'spark').querySelectorAll('rect');
    expect(bars).toHaveLength(3); // the histogram's bins
    expect(bars[2].querySelector('title')?.textContent).toBe('20 – 30: 12');
    // The top values of a text column: as text, never markup.
    const top = inRow(rows()[2], 'spark').querySelectorAll('rect');
    expect(top[1].querySelector('title')?.textContent).toBe('<b>south</b>: 2');
    expect(panel.node.querySelector('b')).toBeNull();
    panel.dispose();
  });

  it('expands a row from the keyboard (a button: Enter and Space click it)', async () => {
    const { panel, rows, inRow } = await setup();
    const toggle = inRow<HTMLButtonElement>(rows()[1], 'toggle');
    expect(toggle.tagName).toBe('BUTTON');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    const details = inRow(rows()[1], 'details');
    expect(toggle.getAttribute('aria-controls')).toBe(details.id);
    expect(details.hidden).toBe(true);
    toggle.click();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(details.hidden).toBe(false);
    const terms = [...details.querySelectorAll('dt')].map(n => n.textContent);
    const values = [...details.querySelectorAll('dd')].map(n => n.textContent);
    expect(terms).toEqual([
      'dtype',
      'values',
      'missing',
      'min',
      'max',
      'mean',
      'median',
      'std',
      '5th percentile',
      '25th percentile',
      '75th percentile',
      '95th percentile'
    ]);
    expect(values.slice(0, 5)).toEqual([
      'float64',
      '900',
      '100 (10%)',
      '0.5',
      '6,949.49'
    ]);
    expect(details.querySelector('svg[role="img"]')).not.toBeNull();
    // Up and Down move between the rows.
    toggle.focus();
    toggle.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })
    );
    expect(document.activeElement).toBe(inRow(rows()[2], 'toggle'));
    // The text column's top values, with counts.
    inRow<HTMLButtonElement>(rows()[2], 'toggle').click();
    const items = [...inRow(rows()[2], 'details').querySelectorAll('li')].map(
      item => item.textContent
    );
    expect(items).toEqual(['north7', '<b>south</b>2']);
    panel.dispose();
  });

  it('searches the names and shows a column in the grid', async () => {
    const { panel, rows, inRow, gone } = await setup();
    const search = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-summary-search"]'
    ) as HTMLInputElement;
    search.value = 'REG';
    search.dispatchEvent(new Event('input'));
    expect(rows().map(row => row.dataset.name)).toEqual(['region']);
    inRow<HTMLButtonElement>(rows()[0], 'go').click();
    expect(gone).toEqual([2]);
    expect(searchColumns([{ name: 'Price', position: 4 }], 'ric')).toEqual([4]);
    panel.dispose();
  });

  it('lists a wide table a page at a time and asks only what it lists', async () => {
    const { table, panel, rows, loader } = await setup(250);
    expect(rows()).toHaveLength(100);
    await loader.settled();
    expect(table.profileQueries.length).toBe(20); // 100 columns, 5 a request
    const more = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-summary-more"]'
    ) as HTMLButtonElement;
    expect(more.textContent).toBe('Show 100 more columns');
    more.click();
    expect(rows()).toHaveLength(200);
    panel.dispose();
  });
});
