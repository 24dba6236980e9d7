/**
 * The data explorer's model against a fake of the rows route: blocks fetched as the
 * grid asks, the cache bound, shared pending fetches, sorting in the kernel, errors.
 */
import './canvasStub';

import { DataModel } from '@lumino/datagrid';

import { BlockCache } from '../explorer/data/blocks';
import { nullText } from '../explorer/data/cells';
import { nextSort, sortParam } from '../explorer/data/sort';
import { rangeText, staleText } from '../explorer/data/status';
import { VariableWatch } from '../explorer/data/watch';
import { isNumericDtype } from '../explorer/dtypes';
import { describeError } from '../explorer/errors';
import { FilterBar } from '../explorer/filter/bar';
import { filterText } from '../explorer/filter/text';
import { sizeText } from '../explorer/toolbar/items';
import { createExplorer } from '../explorer/widget';
import { IRowsQuery } from '../tokens';
import {
  FakeTable,
  makeModel,
  markingTranslator,
  responseError,
  trans
} from './explorerFakes';
import { fakeService, makeSnapshot, makeVariable } from './helpers';

describe('BlockCache', () => {
  it('drops the least recently used block beyond its bound', () => {
    const cache = new BlockCache(2);
    const block = { offset: 0, index: [], columns: [], rows: [] };
    cache.set('a', block);
    cache.set('b', block);
    cache.get('a');
    cache.set('c', block);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('bounds the cells held too, keeping the newest block', () => {
    const cache = new BlockCache(50, 1000);
    const block = (rows: number, columns: number) => ({
      offset: 0,
      index: [],
      columns: Array.from({ length: columns }, (_, position) => ({
        name: `c${position}`,
        dtype: null,
        position
      })),
      rows: Array.from({ length: rows }, () => Array(columns).fill('x'))
    });
    cache.set('a', block(10, 40)); // 400 cells
    cache.set('b', block(10, 40)); // 800
    cache.set('c', block(10, 40)); // 1,200: a goes
    expect([cache.has('a'), cache.has('b'), cache.has('c')]).toEqual([
      false,
      true,
      true
    ]);
    expect(cache.cells).toBe(800);
    cache.set('huge', block(100, 100)); // alone over the bound: kept, alone
    expect(cache.size).toBe(1);
    expect(cache.cells).toBe(10_000);
    cache.set('huge', block(1, 1)); // replaced, not counted twice
    expect(cache.cells).toBe(1);
  });
});

describe('sorting helpers', () => {
  it('cycles ascending, descending, none on a plain click', () => {
    let sort = nextSort([], 'price');
    expect(sortParam(sort)).toBe('price:asc');
    sort = nextSort(sort, 'price');
    expect(sortParam(sort)).toBe('price:desc');
    expect(nextSort(sort, 'price')).toEqual([]);
    expect(sortParam(nextSort(sort, 'qty'))).toBe('qty:asc');
  });

  it('sends names with a comma or colon as the JSON list', () => {
    expect(sortParam([{ column: 'a:b', direction: 'desc' }])).toBe(
      '[{"column":"a:b","desc":true}]'
    );
    expect(
      sortParam([
        { column: 'x', direction: 'asc' },
        { column: 'a,b', direction: 'asc' }
      ])
    ).toBe('[{"column":"x"},{"column":"a,b"}]');
    expect(sortParam([])).toBeUndefined();
  });
});

describe('RowsDataModel', () => {
  it('loads the first block: shape, headers with dtypes, row labels', async () => {
    const table = new FakeTable(1000, 25);
    const model = makeModel(table);
    const resets: string[] = [];
    model.changed.connect((_, args) => resets.push(args.type));
    expect(model.rowCount('body')).toBe(0);
    await model.load();
    expect(table.queries).toEqual([
      { offset: 0, limit: 100, columns: '0:10', sort: undefined }
    ]);
    expect(resets).toEqual(['model-reset']);
    expect(model.info?.totalRows).toBe(1000);
    expect(model.rowCount('body')).toBe(1000);
    expect(model.columnCount('body')).toBe(25);
    expect(model.rowCount('column-header')).toBe(2);
    expect(model.data('column-header', 0, 1)).toBe('c1');
    expect(model.data('column-header', 1, 1)).toBe('float64');
    expect(model.data('row-header', 5, 0)).toBe('5');
    expect(model.data('body', 5, 2)).toBe('r5c2');
    expect(model.data('body', 10, 1)).toBeNull();
    expect(model.metadata('body', 0, 1)).toEqual({ dtype: 'float64' });
  });

  it('fetches only the blocks the grid asks for, once each', async () => {
    const table = new FakeTable(1_000_000, 25);
    const model = makeModel(table);
    await model.load();
    table.queries = [];
    // A paint of the last rows asks for many cells of one block.
    for (let row = 999_950; row < 1_000_000; row++) {
      for (let column = 0; column < 5; column++) {
        expect(model.data('body', row, column)).toBeUndefined();
      }
    }
    await model.settled();
    expect(table.queries).toEqual([
      { offset: 999_900, limit: 100, columns: '0:10', sort: undefined }
    ]);
    expect(model.data('body', 999_999, 4)).toBe('r999999c4');
    expect(model.data('row-header', 999_999, 0)).toBe('999999');
    // Columns beyond the first block: a block of the same rows, next columns.
    expect(model.data('body', 999_999, 24)).toBeUndefined();
    await model.settled();
    expect(table.queries[1]).toEqual({
      offset: 999_900,
      limit: 100,
      columns: '20:25',
      sort: undefined
    });
    expect(model.data('body', 999_999, 24)).toBe('r999999c24');
    expect(model.data('column-header', 0, 24)).toBe('c24');
  });

  it('uses smaller blocks when the server allows smaller windows', async () => {
    const table = new FakeTable(1000, 25);
    table.maxRows = 50;
    table.maxColumns = 4;
    const model = makeModel(table);
    await model.load();
    expect(model.error).toBeNull();
    expect(model.info?.totalRows).toBe(1000);
    expect(table.queries[1]).toEqual({ offset: 0, sort: undefined });
    expect(model.data('body', 49, 3)).toBe('r49c3');
    expect(model.data('body', 50, 4)).toBeUndefined();
    await model.settled();
    expect(table.queries.at(-1)).toEqual({
      offset: 50,
      limit: 50,
      columns: '4:8',
      sort: undefined
    });
    expect(model.data('body', 50, 4)).toBe('r50c4');
  });

  it('never asks for rows or columns outside the table', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    table.queries = [];
    expect(model.data('body', -1, 0)).toBeUndefined();
    expect(model.data('row-header', -1, 0)).toBeUndefined();
    expect(model.data('body', 1000, 0)).toBeUndefined();
    expect(model.data('body', 0, 5)).toBeUndefined();
    await model.settled();
    expect(table.queries).toEqual([]);
  });

  it('shares a pending fetch between cells of one block', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    table.hold = true;
    table.queries = [];
    model.data('body', 500, 0);
    await Promise.resolve();
    model.data('body', 550, 3); // same block, fetch in flight
    model.data('row-header', 520, 0);
    await Promise.resolve();
    expect(table.queries).toHaveLength(1);
    table.release();
    await model.settled();
    expect(model.data('body', 550, 3)).toBe('r550c3');
    expect(table.queries).toHaveLength(1);
  });

  it('emits cells-changed for the block that arrived', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    const changes: DataModel.ChangedArgs[] = [];
    model.changed.connect((_, args) => changes.push(args));
    model.data('body', 300, 0);
    await model.settled();
    expect(changes).toContainEqual({
      type: 'cells-changed',
      region: 'body',
      row: 300,
      column: 0,
      rowSpan: 100,
      columnSpan: 5
    });
  });

  it('keeps at most maxBlocks blocks and fetches a dropped block again', async () => {
    const table = new FakeTable(10_000, 5);
    const model = makeModel(table);
    await model.load();
    for (let block = 1; block < 10; block++) {
      model.data('body', block * 100, 0);
      await model.settled();
    }
    expect(model.cachedBlocks).toBe(4);
    const before = table.queries.length;
    expect(model.data('body', 0, 0)).toBeUndefined(); // dropped long ago
    await model.settled();
    expect(table.queries.length).toBe(before + 1);
    expect(model.data('body', 0, 0)).toBe('r0c0');
  });

  it('limits fetches in flight and serves the most recently asked first', async () => {
    const table = new FakeTable(100_000, 5);
    const model = makeModel(table, { maxInFlight: 1, maxBlocks: 50 });
    await model.load();
    table.hold = true;
    table.queries = [];
    model.data('body', 1000, 0);
    await Promise.resolve();
    model.data('body', 2000, 0);
    model.data('body', 3000, 0);
    model.data('body', 4000, 0);
    await Promise.resolve();
    expect(table.queries.map(q => q.offset)).toEqual([1000]);
    table.hold = false;
    table.release();
    await model.settled();
    expect(table.queries.map(q => q.offset)).toEqual([1000, 4000, 3000, 2000]);
  });

  it('sorts in the kernel: sends sort=, drops the cache, marks the header', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    expect(model.data('body', 0, 0)).toBe('r0c0');
    const types: string[] = [];
    model.changed.connect((_, args) => types.push(args.type));
    model.clickSort(2);
    expect(model.sort).toEqual([{ column: 'c2', direction: 'asc' }]);
    expect(types).toEqual(['model-reset']);
    expect(model.cachedBlocks).toBe(0);
    await model.settled();
    model.clickSort(2);
    expect(model.data('body', 0, 0)).toBeUndefined();
    await model.settled();
    expect(table.queries.at(-1)).toEqual({
      offset: 0,
      limit: 100,
      columns: '0:5',
      sort: 'c2:desc'
    });
    expect(model.data('body', 0, 0)).toBe('r999c0');
    expect(model.data('row-header', 0, 0)).toBe('999');
    expect(model.data('column-header', 0, 2)).toBe('c2 ▼');
    model.clickSort(2);
    expect(model.sort).toEqual([]);
    await model.settled();
    expect(table.queries.at(-1)?.sort).toBeUndefined();
    expect(model.data('column-header', 0, 2)).toBe('c2');
  });

  it('goes back to the table order when the kernel cannot sort', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    table.failures.push(responseError(422, 'sorting took longer than 2000 ms'));
    model.clickSort(1);
    await model.settled();
    expect(model.sort).toEqual([]);
    expect(model.queryError).toBe(
      'Cannot sort by c1: sorting took longer than 2000 ms'
    );
    expect(table.queries.at(-1)?.sort).toBeUndefined();
    expect(model.data('body', 0, 0)).toBe('r0c0');
    model.clickSort(1);
    expect(model.queryError).toBeNull();
  });

  it('filters in the kernel: the row count is the rows kept', async () => {
    const table = new FakeTable(1000, 3);
    const model = makeModel(table);
    await model.load();
    const resets: string[] = [];
    model.changed.connect((_, args) => resets.push(args.type));
    await model.setFilter({ column: 'c0', op: 'lt', value: '150' });
    expect(table.queries.at(-1)).toEqual({
      offset: 0,
      limit: 100,
      columns: '0:3',
      sort: undefined,
      filter: { column: 'c0', op: 'lt', value: '150' }
    });
    expect(model.info?.filteredRows).toBe(150);
    expect(model.rowCount('body')).toBe(150);
    expect(resets.filter(type => type === 'model-reset')).toHaveLength(2);
    // Blocks under the filter: the last one holds 50 rows.
    model.data('body', 149, 0);
    await model.settled();
    expect(table.queries.at(-1)?.limit).toBe(50);
    expect(model.data('body', 149, 0)).toBe('r149c0');
    expect(model.data('body', 150, 0)).toBeUndefined();
    // A sort keeps the filter.
    model.clickSort(0);
    model.clickSort(0);
    await model.settled();
    expect(table.queries.at(-1)?.filter).toEqual({
      column: 'c0',
      op: 'lt',
      value: '150'
    });
    expect(model.data('row-header', 0, 0)).toBe('149');
    await model.setFilter(null);
    expect(model.rowCount('body')).toBe(1000);
    expect(model.info?.filteredRows).toBeNull();
  });

  it('drops a filter the kernel refuses and says why', async () => {
    const table = new FakeTable(1000, 3);
    const model = makeModel(table);
    await model.load();
    model.clickSort(0);
    await model.settled();
    await model.setFilter({ column: 'c0', op: 'gt', value: 'abc' });
    await model.settled();
    expect(model.filter).toBeNull();
    expect(model.sort).toEqual([{ column: 'c0', direction: 'asc' }]);
    // The server's own words, shown in the filter bar beside the conditions.
    expect(model.filterError).toBe(
      "filter gt: 'abc' is not a number for column c0 (int64)"
    );
    expect(model.queryError).toBeNull();
    expect(model.rowCount('body')).toBe(1000);
    expect(model.data('body', 0, 0)).toBe('r0c0');
  });

  it('ignores answers of a sort that was replaced', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    table.hold = true;
    model.setSort([{ column: 'c0', direction: 'desc' }]);
    await Promise.resolve();
    model.setSort(null);
    await Promise.resolve();
    table.release(); // both answers: the desc one must not be kept
    await model.settled();
    table.release();
    await model.settled();
    expect(model.data('body', 0, 0)).toBe('r0c0');
  });

  it('shows the server message of a lazy object (409) and stops asking', async () => {
    const table = new FakeTable(10, 2);
    table.failures.push(
      responseError(
        409,
        'polars LazyFrame is lazy: showing rows would compute it'
      )
    );
    const model = makeModel(table);
    await model.load();
    expect(model.error).toBe(
      'polars LazyFrame is lazy: showing rows would compute it'
    );
    expect(model.errorStatus).toBe(409);
    expect(model.info).toBeNull();
    model.load();
    await model.settled();
    expect(table.queries).toHaveLength(1); // a failed block is not asked again
    await model.refresh();
    expect(model.error).toBeNull();
    expect(model.info?.totalRows).toBe(10);
  });

  it('shows the message of an object that raised (422)', async () => {
    const table = new FakeTable(10, 2);
    table.failures.push(responseError(422, 'iloc raised ValueError: boom'));
    const model = makeModel(table);
    await model.load();
    expect(model.error).toBe('iloc raised ValueError: boom');
    expect(model.errorStatus).toBe(422);
  });

  it('retries a busy kernel (503) after Retry-After, bounded', async () => {
    const table = new FakeTable(10, 2);
    const busy = responseError(503, 'kernel busy', { 'Retry-After': '2' });
    table.failures.push(busy, busy);
    const waits: number[] = [];
    const model = makeModel(table, {
      wait: ms => {
        waits.push(ms);
        return Promise.resolve();
      }
    });
    await model.load();
    expect(waits).toEqual([2000, 2000]);
    expect(model.error).toBeNull();
    expect(model.info?.totalRows).toBe(10);

    const forever = new FakeTable(10, 2);
    forever.failures.push(...Array(20).fill(busy));
    const stuck = makeModel(forever);
    await stuck.load();
    expect(forever.queries).toHaveLength(6); // the first try and 5 retries
    expect(stuck.error).toBe('kernel busy');
    expect(stuck.retrying).toBe(false);
    // Once the kernel has run a cell, the failed blocks are asked again.
    forever.failures = [];
    stuck.retryFailed();
    await stuck.settled();
    expect(stuck.error).toBeNull();
    expect(stuck.info?.totalRows).toBe(10);
    forever.failures.push(...Array(6).fill(busy));
    stuck.data('body', 0, 0); // cached: nothing asked
    expect(forever.queries).toHaveLength(7);
  });

  it('says a variable that was never there does not exist (404 first)', async () => {
    const table = new FakeTable(10, 2);
    table.failures.push(responseError(404, 'Variable not found: df'));
    const model = makeModel(table);
    await model.load();
    expect(model.staleReason).toBeNull();
    expect(model.error).toBe('Variable not found: df');
    await model.refresh();
    expect(model.info?.totalRows).toBe(10);
  });

  it('says a removed variable (404) no longer exists', async () => {
    const table = new FakeTable(1000, 2);
    const model = makeModel(table);
    await model.load();
    table.failures.push(responseError(404, 'no variable df'));
    model.data('body', 500, 0);
    await model.settled();
    expect(model.staleReason).toBe('removed');
    expect(model.data('body', 0, 0)).toBe('r0c0'); // old rows stay
  });

  it('never mixes two values: a block of a changed variable marks stale', async () => {
    const table = new FakeTable(1000, 2);
    const model = makeModel(table);
    await model.load();
    table.changedAt = 2;
    table.rows = 500;
    model.data('body', 300, 0);
    await model.settled();
    expect(model.staleReason).toBe('changed');
    expect(model.data('body', 300, 0)).toBeUndefined();
    expect(model.data('body', 0, 0)).toBe('r0c0');
    expect(model.rowCount('body')).toBe(1000);
    await model.refresh();
    expect(model.staleReason).toBeNull();
    expect(model.rowCount('body')).toBe(500);
  });

  it('a removal wins over a change', () => {
    const model = makeModel(new FakeTable(1, 1));
    model.markStale('removed');
    model.markStale('changed');
    expect(model.staleReason).toBe('removed');
  });

  it('describes errors that are not HTTP errors', () => {
    expect(describeError(new TypeError('Failed to fetch'))).toEqual({
      status: null,
      message: 'Failed to fetch',
      retryAfter: null
    });
  });
});

describe('VariableWatch', () => {
  async function setup(changedAt: number | null = 3, rows = 10) {
    const service = fakeService('k1');
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const table = new FakeTable(rows, 2, changedAt as number);
    const model = makeModel(table);
    await model.load();
    // The watch asks the service for one row of the variable on its kernel.
    const probe = service.rows.mockImplementation(
      (_name: string, query: IRowsQuery) => table.fetch(query)
    );
    const watch = new VariableWatch({
      service,
      kernelId: 'k1',
      name: 'df',
      model
    });
    return { service, table, model, probe, watch };
  }

  it('marks the rows stale when a snapshot says the variable changed later', async () => {
    const { service, model } = await setup(3);
    service.model.setSnapshot(
      makeSnapshot({ variables: [makeVariable('df', { changed_at: 3 })] })
    );
    expect(model.staleReason).toBeNull();
    service.model.setSnapshot(
      makeSnapshot({
        generation: 2,
        variables: [makeVariable('df', { changed_at: 5 })]
      })
    );
    expect(model.staleReason).toBe('changed');
  });

  it('ignores a snapshot older than the rows', async () => {
    const { service, model } = await setup(5);
    service.model.setSnapshot(
      makeSnapshot({ variables: [makeVariable('df', { changed_at: 4 })] })
    );
    expect(model.staleReason).toBeNull();
  });

  it('says removed when the snapshot lists the name as removed', async () => {
    const { service, model } = await setup();
    service.model.setSnapshot(makeSnapshot({ variables: [], removed: ['df'] }));
    expect(model.staleReason).toBe('removed');
  });

  it('says the kernel restarted', async () => {
    const { service, model } = await setup();
    service.model.reset();
    expect(model.staleReason).toBe('restarted');
  });

  it('does not look at snapshots of another kernel', async () => {
    const { service, model } = await setup();
    service.model.setKernel({ id: 'k2', name: 'Python 3', source: 'b.ipynb' });
    service.model.setSnapshot(
      makeSnapshot({ kernel_id: 'k2', variables: [], removed: ['df'] })
    );
    expect(model.staleReason).toBeNull();
  });

  it('asks one row when the snapshot does not list the name, once a generation', async () => {
    const { service, model, probe, table } = await setup(3);
    table.failures.push(responseError(404, 'Variable not found: df'));
    service.model.setSnapshot(makeSnapshot({ variables: [] }));
    service.model.setSnapshot(makeSnapshot({ variables: [] })); // same generation
    await model.settled();
    await Promise.resolve();
    expect(probe).toHaveBeenCalledTimes(1);
    expect(probe.mock.calls[0]).toEqual([
      'df',
      { offset: 0, limit: 1, columns: '0:1', sort: undefined },
      'k1'
    ]);
    expect(model.staleReason).toBe('removed');
  });

  it('asks one row after an execution on its kernel (with the grid sort)', async () => {
    jest.useFakeTimers();
    try {
      const { service, model, probe, table } = await setup(3);
      model.setSort([{ column: 'c0', direction: 'desc' }]);
      service.executed.emit({ kernelId: 'k2', msgId: 'm0' });
      service.executed.emit({ kernelId: 'k1', msgId: 'm1' });
      service.executed.emit({ kernelId: 'k1', msgId: 'm2' });
      table.changedAt = 7;
      jest.advanceTimersByTime(400);
      expect(probe).toHaveBeenCalledTimes(1);
      expect(probe.mock.calls[0][1]?.sort).toBe('c0:desc');
      expect(probe.mock.calls[0][2]).toBe('k1');
      await probe.mock.results[0].value;
      await Promise.resolve();
      expect(model.staleReason).toBe('changed');
    } finally {
      jest.useRealTimers();
    }
  });

  it('asks failed blocks again after an execution when the kernel was busy', async () => {
    jest.useFakeTimers();
    try {
      const { service, model, table } = await setup(3, 1000);
      const busy = responseError(503, 'kernel busy', { 'Retry-After': '1' });
      table.failures.push(...Array(6).fill(busy));
      model.data('body', 500, 0);
      await model.settled();
      expect(model.errorStatus).toBe(503);
      const repaints: DataModel.ChangedArgs[] = [];
      model.changed.connect((_, args) => repaints.push(args));
      service.executed.emit({ kernelId: 'k1', msgId: 'm1' });
      jest.advanceTimersByTime(400);
      expect(model.error).toBeNull();
      expect(repaints).toContainEqual({
        type: 'cells-changed',
        region: 'body',
        row: 500,
        column: 0,
        rowSpan: 100,
        columnSpan: 2
      });
      expect(model.data('body', 500, 0)).toBeUndefined(); // asked again on repaint
      await model.settled();
      expect(model.data('body', 500, 0)).toBe('r500c0');
    } finally {
      jest.useRealTimers();
    }
  });

  it('stops following once disposed', async () => {
    const { service, model, watch } = await setup();
    watch.dispose();
    service.model.reset();
    expect(model.staleReason).toBeNull();
  });
});

describe('explorer texts', () => {
  it('counts rows and columns', () => {
    expect(sizeText(trans, 1_000_000, 20)).toBe('1,000,000 rows × 20 columns');
    expect(sizeText(trans, 1, 1)).toBe('1 row × 1 column');
  });

  it('says which rows are in view, with their labels', () => {
    expect(
      rangeText(trans, { first: 999_975, last: 999_999 }, 1_000_000, 'a', 'z')
    ).toBe('Rows 999,976–1,000,000 of 1,000,000 · index a … z');
    expect(rangeText(trans, { first: 0, last: 9 }, 10, undefined, '9')).toBe(
      'Rows 1–10 of 10'
    );
    expect(rangeText(trans, null, 0, null, null)).toBe('No rows');
  });

  it('names the stale reason', () => {
    expect(staleText(trans, 'removed', 'df')).toBe('df no longer exists');
    expect(staleText(trans, 'changed', 'df')).toBe('df changed since loaded');
  });

  it('writes missing values by dtype and aligns numbers', () => {
    expect(nullText('float64')).toBe('NaN');
    expect(nullText('datetime64[ns]')).toBe('NaT');
    expect(nullText('object')).toBe('null');
    expect(nullText(null)).toBe('null');
    expect(isNumericDtype('int64')).toBe(true);
    expect(isNumericDtype('Float32')).toBe(true);
    expect(isNumericDtype('object')).toBe(false);
  });
});

describe('FilterBar', () => {
  async function bar() {
    const table = new FakeTable(1000, 3);
    const model = makeModel(table);
    await model.load();
    const widget = new FilterBar({ model, trans });
    const node = widget.node;
    const get = <T extends HTMLElement>(id: string) =>
      node.querySelector(`[data-test-id="kernel-state-explorer-${id}"]`) as T;
    return {
      table,
      model,
      widget,
      column: () => get<HTMLSelectElement>('filter-column'),
      op: () => get<HTMLSelectElement>('filter-op'),
      value: () => get<HTMLInputElement>('filter-value'),
      form: () => node.querySelector('form')!,
      clear: () => get<HTMLButtonElement>('filter-clear')
    };
  }

  it('lists the known columns as text and applies one condition', async () => {
    const { model, column, op, value, form, clear, widget } = await bar();
    expect([...column().options].map(o => o.textContent)).toEqual([
      'c0',
      'c1',
      'c2'
    ]);
    expect(clear().style.display).toBe('none');
    column().value = 'c0';
    column().dispatchEvent(new Event('change'));
    op().value = 'ge';
    op().dispatchEvent(new Event('change'));
    value().value = '150';
    value().dispatchEvent(new Event('input'));
    form().dispatchEvent(new Event('submit', { cancelable: true }));
    await model.settled();
    expect(model.filter).toEqual({ column: 'c0', op: 'ge', value: '150' });
    expect(model.rowCount('body')).toBe(850);
    expect(clear().style.display).toBe('');
    expect(filterText(model.filter!, trans)).toBe('c0 ≥ 150');
    clear().click();
    await model.settled();
    expect(model.filter).toBeNull();
    widget.dispose();
  });

  it('sends no value for is missing', async () => {
    const { model, op, value, form } = await bar();
    op().value = 'isnull';
    op().dispatchEvent(new Event('change'));
    expect(value()).toBeNull(); // no value input for this operator
    form().dispatchEvent(new Event('submit', { cancelable: true }));
    await model.settled();
    expect(model.filter).toEqual({ column: 'c0', op: 'isnull' });
    expect(filterText(model.filter!, trans)).toBe('c0 is missing');
  });

  it('keeps a hostile column name as option text', async () => {
    const table = new FakeTable(2, 1);
    table.names[0] = '<img src=x onerror="window.__pwned=1">';
    const model = makeModel(table);
    await model.load();
    const widget = new FilterBar({ model, trans });
    expect(widget.node.querySelector('img')).toBeNull();
    expect(widget.node.querySelector('option')!.textContent).toBe(
      '<img src=x onerror="window.__pwned=1">'
    );
  });
});

describe('the explorer translated', () => {
  /**
   * Every text a user reads in `node` — text, titles, labels, placeholders — that
   * did not come through the translator, leaving out the data shown (the variable's
   * name, column names) and operator symbols.
   */
  function untranslated(node: HTMLElement, data: string[]): string[] {
    const texts: string[] = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ALL);
    for (let at: Node | null = walker.currentNode; at; at = walker.nextNode()) {
      if (at.nodeType === Node.TEXT_NODE) {
        texts.push(at.textContent ?? '');
      } else if (at instanceof HTMLElement) {
        for (const name of ['title', 'aria-label', 'placeholder']) {
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

  it('puts every string it shows through the translator', async () => {
    const table = new FakeTable(1000, 3);
    const translator = markingTranslator();
    const model = makeModel(table, { translator });
    const panel = createExplorer({
      name: 'df',
      kernelId: 'k1',
      model,
      translator
    });
    const data = ['df', 'c0', 'c1', 'c2'];
    const whole = () =>
      untranslated(panel.content.node, data).concat(
        untranslated(panel.toolbar.node, data)
      );
    expect(panel.title.caption).toBe('⟦df — Data Explorer⟧');
    expect(whole()).toEqual([]); // loading
    await model.load();
    expect(whole()).toEqual([]); // loaded
    model.setSort([{ column: 'c1', direction: 'desc' }]);
    await model.setFilter({ column: 'c0', op: 'isnull' });
    model.markStale('changed');
    expect(whole()).toEqual([]); // sorted, filtered, stale
    expect(
      panel.toolbar.node.querySelector(
        '[data-test-id="kernel-state-explorer-sort"]'
      )?.textContent
    ).toBe('⟦Sorted by c1 ▼⟧');
    panel.dispose();
  });

  it('translates why a sort was given up', async () => {
    const table = new FakeTable(1000, 3);
    const model = makeModel(table, { translator: markingTranslator() });
    await model.load();
    table.failures.push(responseError(422, 'too slow'));
    model.setSort([{ column: 'c1', direction: 'asc' }]);
    await model.settled();
    expect(model.queryError).toBe('⟦Cannot sort by c1: too slow⟧');
  });
});
