/**
 * The explorer's model on the bugs users found (a filter keeping no row, a refresh
 * after a column was added), several sort keys, pinned and hidden columns, and the
 * names read for a search — against a fake of the rows route.
 */
import './canvasStub';

import { DataModel } from '@lumino/datagrid';

import { ColumnLayout } from '../explorer/data/layout';
import { nextSort, sortMarker, sortParam } from '../explorer/data/sort';
import { VariableWatch } from '../explorer/data/watch';
import { IKernelStateService } from '../tokens';
import { FakeTable, flush, makeModel, responseError } from './explorerFakes';
import { fakeService, makeSnapshot, makeVariable } from './helpers';

describe('a filter that keeps no row', () => {
  it('recovers: Clear, another filter and Refresh each ask the kernel again', async () => {
    const table = new FakeTable(1000, 3);
    const model = makeModel(table);
    await model.load();
    await model.setFilter({ column: 'c0', op: 'ge', value: '9990' });
    expect(model.info?.filteredRows).toBe(0);
    expect(model.rowCount('body')).toBe(0);
    // The headers are still known (a window without rows names its columns).
    expect(model.data('column-header', 0, 2)).toBe('c2');

    // Clear: the first block is asked whatever the old count (0) said.
    let before = table.queries.length;
    await model.setFilter(null);
    expect(table.queries.length).toBe(before + 1);
    expect(table.queries.at(-1)?.filter).toBeUndefined();
    expect(model.rowCount('body')).toBe(1000);
    expect(model.data('body', 5, 0)).toBe('r5c0');

    // Another empty filter, then another filter that keeps rows.
    await model.setFilter({ column: 'c0', op: 'eq', value: '-1' });
    expect(model.rowCount('body')).toBe(0);
    before = table.queries.length;
    await model.setFilter({ column: 'c0', op: 'lt', value: '10' });
    expect(table.queries.length).toBe(before + 1);
    expect(model.rowCount('body')).toBe(10);

    // Refresh after an empty filter reads it again too.
    await model.setFilter({ column: 'c0', op: 'gt', value: '5000' });
    before = table.queries.length;
    await model.refresh();
    expect(table.queries.length).toBe(before + 1);
    expect(model.info?.filteredRows).toBe(0);
    expect(model.loading).toBe(false);
  });

  it('asks one row at least, never a limit of 0, while the count is 0', async () => {
    const table = new FakeTable(50, 30);
    const model = makeModel(table);
    await model.load();
    await model.setFilter({ column: 'c0', op: 'in', value: ['-1', '-2'] });
    expect(model.rowCount('body')).toBe(0);
    table.queries = [];
    // The header of a column past the first block is asked with row 0.
    expect(model.data('column-header', 0, 25)).toBeUndefined();
    await model.settled();
    expect(table.queries).toEqual([
      expect.objectContaining({ offset: 0, limit: 1, columns: '20:30' })
    ]);
    expect(model.data('column-header', 0, 25)).toBe('c25');
  });
});

describe('refresh', () => {
  it('reads the new shape whole: a column added is loaded, not left "…"', async () => {
    const table = new FakeTable(100, 8);
    const model = makeModel(table, { columnsPerBlock: 100 });
    await model.load();
    expect(table.queries[0].columns).toBe('0:100');
    expect(model.columnCount('body')).toBe(8);
    table.addColumn(); // sales["revenue"] = …
    model.markStale('changed');
    await model.refresh();
    // Not bounded by the old 8 columns.
    expect(table.queries.at(-1)?.columns).toBe('0:100');
    expect(model.columnCount('body')).toBe(9);
    expect(model.data('column-header', 0, 8)).toBe('c8');
    expect(model.data('body', 3, 8)).toBe('r3c8');
    expect(model.staleReason).toBeNull();
  });

  it('asks again a block read under the old shape that lacks a column', async () => {
    const table = new FakeTable(100, 8);
    const model = makeModel(table, { columnsPerBlock: 100 });
    await model.load();
    model.pinColumn(2);
    await model.settled();
    table.addColumn();
    await model.refresh();
    // The first block of the refresh asked a plain run of columns.
    expect(table.queries.at(-1)?.columns).toBe('0:100');
    table.queries = [];
    // Body column 7 is position 8 (2 is pinned): present in the block already.
    expect(model.data('body', 0, 7)).toBe('r0c8');
    expect(table.queries).toEqual([]);
  });

  it('the banner goes: a snapshot seen during the refresh does not mark it stale again', async () => {
    const service = fakeService('k1');
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const table = new FakeTable(100, 8, 3);
    const model = makeModel(table);
    await model.load();
    const watch = new VariableWatch({
      // the fake has what the watch uses (the service may have gained more)
      service: service as unknown as IKernelStateService,
      kernelId: 'k1',
      name: 'df',
      model
    });
    table.addColumn(); // changed_at 4
    service.model.setSnapshot(
      makeSnapshot({
        generation: 2,
        variables: [makeVariable('df', { changed_at: 4 })]
      })
    );
    expect(model.staleReason).toBe('changed');
    table.hold = true;
    const refreshed = model.refresh();
    // While the new window is on its way, the old info is still there: the watch
    // must not compare the snapshot with it.
    service.model.setSnapshot(
      makeSnapshot({
        generation: 3,
        variables: [makeVariable('df', { changed_at: 4 })]
      })
    );
    expect(model.staleReason).toBeNull();
    await flush();
    table.hold = false;
    table.release();
    await refreshed;
    expect(model.info?.changedAt).toBe(4);
    expect(model.staleReason).toBeNull();
    expect(model.columnCount('body')).toBe(9);
    watch.dispose();
  });
});

describe('several sort keys', () => {
  it('adds keys with shift, reverses then drops them, and ranks them', () => {
    let keys = nextSort([], 'price');
    keys = nextSort(keys, 'region', true);
    expect(sortParam(keys)).toBe('price:asc,region:asc');
    keys = nextSort(keys, 'region', true);
    expect(sortParam(keys)).toBe('price:asc,region:desc');
    expect(sortMarker(keys, 'price')).toBe('▲1');
    expect(sortMarker(keys, 'region')).toBe('▼2');
    expect(sortMarker(keys, 'qty')).toBe('');
    keys = nextSort(keys, 'region', true);
    expect(sortParam(keys)).toBe('price:asc');
    expect(sortMarker(keys, 'price')).toBe('▲');
    // A plain click on a key of several sorts by that column alone.
    keys = nextSort(
      [
        { column: 'a', direction: 'desc' },
        { column: 'b', direction: 'asc' }
      ],
      'b'
    );
    expect(keys).toEqual([{ column: 'b', direction: 'desc' }]);
  });

  it('sends the keys to the kernel and shows each header with its rank', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    model.clickSort(2);
    model.clickSort(0, true);
    model.clickSort(0, true);
    expect(model.sort).toEqual([
      { column: 'c2', direction: 'asc' },
      { column: 'c0', direction: 'desc' }
    ]);
    expect(model.data('body', 0, 0)).toBeUndefined();
    await model.settled();
    expect(table.queries.at(-1)?.sort).toBe('c2:asc,c0:desc');
    expect(model.data('column-header', 0, 2)).toBe('c2 ▲1');
    expect(model.data('column-header', 0, 0)).toBe('c0 ▼2');
    expect(model.data('column-header', 0, 1)).toBe('c1');
  });

  it('drops every key the kernel cannot sort by, and says which', async () => {
    const table = new FakeTable(1000, 5);
    const model = makeModel(table);
    await model.load();
    table.failures.push(responseError(422, 'too slow'));
    model.setSort([
      { column: 'c1', direction: 'asc' },
      { column: 'c2', direction: 'desc' }
    ]);
    await model.settled();
    expect(model.sort).toEqual([]);
    expect(model.queryError).toBe('Cannot sort by c1, c2: too slow');
  });
});

describe('pinned and hidden columns', () => {
  it('maps body columns to positions around the columns taken out', () => {
    const layout = new ColumnLayout();
    layout.setTotal(10);
    expect(layout.positionOf(3)).toBe(3);
    layout.hide(2);
    layout.pin(5);
    expect(layout.bodyCount).toBe(8);
    expect(layout.bodyPositions(0, 8)).toEqual([0, 1, 3, 4, 6, 7, 8, 9]);
    expect(layout.viewOf(6)).toBe(4);
    expect(layout.viewOf(2)).toBe(-1);
    expect(layout.viewOf(5)).toBe(-1);
    expect(layout.shownPositions()).toEqual([5, 0, 1, 3, 4, 6, 7, 8, 9]);
    expect(layout.pin(5)).toBe(false);
    layout.setTotal(4); // the value lost columns: pins and hides past it go
    expect(layout.pinned).toEqual([]);
    expect(layout.bodyCount).toBe(3);
    // The last column shown cannot be hidden.
    layout.hide(0);
    layout.hide(1);
    expect(layout.hide(3)).toBe(false);
  });

  it('asks the positions shown, and shows pinned columns beside the labels', async () => {
    const table = new FakeTable(300, 6);
    const model = makeModel(table);
    await model.load();
    const resets: string[] = [];
    model.changed.connect((_, args: DataModel.ChangedArgs) =>
      resets.push(args.type)
    );
    expect(model.hideColumn(1)).toBe(true);
    expect(model.pinColumn(4)).toBe(true);
    expect(resets).toContain('model-reset');
    expect(model.columnCount('body')).toBe(4);
    expect(model.columnCount('row-header')).toBe(2);
    table.queries = [];
    expect(model.data('body', 0, 1)).toBeUndefined();
    expect(model.data('row-header', 0, 1)).toBeUndefined();
    await model.settled();
    expect(table.queries.map(q => q.columns).sort()).toEqual([
      '0,2,3,5',
      '4:5'
    ]);
    expect(model.data('body', 0, 1)).toBe('r0c2');
    expect(model.data('row-header', 0, 1)).toBe('r0c4');
    expect(model.data('row-header', 0, 0)).toBe('0');
    expect(model.data('corner-header', 0, 1)).toBe('c4');
    expect(model.data('corner-header', 1, 1)).toBe('int64');
    expect(model.metadata('row-header', 0, 1)).toEqual({ dtype: 'int64' });
    expect(model.positionAt('row-header', 1)).toBe(4);
    expect(model.positionAt('body', 3)).toBe(5);
    // Sorting by a pinned column from its header.
    model.clickSort(4);
    expect(model.data('corner-header', 0, 1)).toBe('c4 ▲');
    model.showAllColumns();
    model.unpinColumn(4);
    expect(model.columnCount('body')).toBe(6);
    expect(model.columnCount('row-header')).toBe(1);
  });
});

describe('column names for a search', () => {
  it('reads the names not known yet, one row a window, with the grid sort', async () => {
    const table = new FakeTable(10, 25);
    const model = makeModel(table);
    await model.load();
    model.setSort([{ column: 'c0', direction: 'desc' }]);
    await model.settled();
    expect(model.knownColumns().length).toBe(10);
    table.queries = [];
    const learned: number[] = [];
    model.columnsChanged.connect(() =>
      learned.push(model.knownColumns().length)
    );
    await model.loadNames();
    expect(table.queries).toEqual([
      { offset: 0, limit: 1, columns: '10:20', sort: 'c0:desc' },
      { offset: 0, limit: 1, columns: '20:25', sort: 'c0:desc' }
    ]);
    expect(learned).toEqual([20, 25]);
    expect(model.columnNamed('c24')?.position).toBe(24);
    // Known already: nothing asked.
    await model.loadNames();
    expect(table.queries).toHaveLength(2);
  });

  it('stops and marks the rows stale when the value changed meanwhile', async () => {
    const table = new FakeTable(10, 25);
    const model = makeModel(table);
    await model.load();
    table.addColumn();
    await model.loadNames();
    expect(model.staleReason).toBe('changed');
    expect(model.knownColumns().length).toBe(10);
  });
});
