/**
 * Every variable reachable at any size: the loader pages the list in (appending the
 * next page only while the kernel has not moved, else asking the window again), deltas
 * merge over every page loaded, counts come from `matched` (what the list selects) and
 * `total` (the namespace's), and the list model's "changed in the last execution" view
 * asks `changed_in` whatever the page and sort.
 */
import { applyDelta, countOf } from '../delta';
import { DEFAULT_OPTIONS } from '../defaults';
import { KernelStateModel } from '../models/kernel';
import { VariableListModel } from '../models/list/model';
import { SnapshotLoader } from '../snapshotLoader';
import { IKernelStateOptions, ISnapshot } from '../tokens';
import {
  fakeService,
  IScriptedReply,
  makeSnapshot,
  makeVariable,
  scriptedSettings,
  sleep,
  urlOf
} from './helpers';

const names = (from: number, to: number) =>
  Array.from(
    { length: to - from },
    (_, i) => `v${String(from + i).padStart(3, '0')}`
  );

/**
 * A page of `v000…` names: `[from, to)` of `count` variables.
 */
function page(from: number, to: number, count: number, extra = {}): ISnapshot {
  return makeSnapshot({
    variables: names(from, to).map(name => makeVariable(name)),
    total: count,
    matched: count,
    offset: from,
    limit: 2,
    ...extra
  });
}

function setup(
  replies: IScriptedReply[],
  options: IKernelStateOptions = { ...DEFAULT_OPTIONS, limit: 2 }
) {
  const { settings, requests } = scriptedSettings(replies);
  const model = new KernelStateModel();
  model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
  const loader = new SnapshotLoader({
    model,
    serverSettings: settings,
    options: () => options,
    isCurrent: () => true
  });
  const load = async (deltaAllowed = true) => {
    const loaded = await loader.load('k1', 1, deltaAllowed);
    loader.show(loaded!);
    return model.snapshot!;
  };
  const query = (i: number) => new URL(urlOf(requests[i])).searchParams;
  return { loader, model, requests, load, query };
}

describe('the loader pages the list in', () => {
  it('appends the next page while the kernel has not moved', async () => {
    const { loader, load, query, requests } = setup([
      { status: 200, body: page(0, 2, 5) },
      { status: 200, body: page(2, 4, 5) },
      { status: 200, body: page(4, 5, 5) }
    ]);
    expect((await load()).variables.map(v => v.name)).toEqual(['v000', 'v001']);
    expect(loader.grow()).toBe(true);
    const grown = await load();
    expect(grown.variables.map(v => v.name)).toEqual(names(0, 4));
    expect(query(1).get('offset')).toBe('2');
    expect(query(1).get('limit')).toBe('2');
    expect(loader.grow()).toBe(true);
    expect((await load()).variables.map(v => v.name)).toEqual(names(0, 5));
    expect(loader.window).toBe(6);
    // Every variable loaded: nothing more to ask.
    expect(loader.grow()).toBe(false);
    expect(requests).toHaveLength(3);
  });

  it('asks the window again from the start when the kernel moved', async () => {
    const { loader, load, query } = setup([
      { status: 200, body: page(0, 2, 5) },
      { status: 200, body: page(2, 4, 6, { generation: 2 }) }, // a later state
      { status: 200, body: page(0, 2, 6, { generation: 2, delta: false }) },
      { status: 200, body: page(2, 4, 6, { generation: 2 }) }
    ]);
    await load();
    loader.grow();
    const shown = await load();
    // The delta could not be told (delta: false): its page, then the next ones.
    expect(query(2).get('delta')).toBe('true');
    expect(shown.generation).toBe(2);
    expect(shown.variables.map(v => v.name)).toEqual(names(0, 4));
    expect(countOf(shown)).toBe(6);
  });

  it('merges a delta over every page loaded', async () => {
    const { loader, load, query, requests } = setup([
      { status: 200, body: page(0, 2, 5) },
      { status: 200, body: page(2, 4, 5) },
      {
        status: 200,
        body: makeSnapshot({
          generation: 2,
          delta: true,
          total: 5,
          matched: 5,
          variables: [makeVariable('v003', { change: 'modified' })]
        })
      }
    ]);
    await load();
    loader.grow();
    await load();
    const merged = await load();
    expect(query(2).get('since')).toBe('1');
    expect(merged.variables.map(v => [v.name, v.change])).toEqual([
      ['v000', 'unchanged'],
      ['v001', 'unchanged'],
      ['v002', 'unchanged'],
      ['v003', 'modified']
    ]);
    expect(requests).toHaveLength(3);
  });

  it('a page that fails leaves the rows loaded so far', async () => {
    const busy = {
      status: 503,
      body: { message: 'busy' },
      headers: { 'Retry-After': '1' }
    };
    const { loader, load, requests } = setup([
      { status: 200, body: page(0, 2, 5) },
      busy, // the next page
      busy, // the delta
      { status: 200, body: page(0, 2, 5) }, // the first page again
      busy // and the next one, still not there
    ]);
    await load();
    loader.grow();
    const shown = await load();
    expect(shown.variables.map(v => v.name)).toEqual(['v000', 'v001']);
    expect(requests).toHaveLength(5);
    expect(loader.grow()).toBe(true); // still more to ask later
  });

  it('starts over at one page when the options change', async () => {
    let options: IKernelStateOptions = { ...DEFAULT_OPTIONS, limit: 2 };
    const { settings } = scriptedSettings([
      { status: 200, body: page(0, 2, 5) },
      { status: 200, body: page(2, 4, 5) },
      { status: 200, body: page(0, 2, 5, { generation: 1 }) }
    ]);
    const model = new KernelStateModel();
    model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const loader = new SnapshotLoader({
      model,
      serverSettings: settings,
      options: () => options,
      isCurrent: () => true
    });
    const load = async () => {
      loader.show((await loader.load('k1', 1, true))!);
      return model.snapshot!;
    };
    await load();
    loader.grow();
    expect((await load()).variables).toHaveLength(4);
    options = { ...options, sort: 'type' };
    expect((await load()).variables).toHaveLength(2);
    expect(loader.window).toBe(2);
  });
});

describe('counts', () => {
  it('merges by what the list selects (matched), not the namespace', () => {
    const held = page(0, 2, 2, { total: 100 });
    const reply = makeSnapshot({
      generation: 2,
      delta: true,
      total: 101,
      matched: 3,
      variables: [makeVariable('v002', { change: 'new' })]
    });
    const merged = applyDelta(held, reply, { limit: 10 });
    expect(merged?.variables.map(v => v.name)).toEqual([
      'v000',
      'v001',
      'v002'
    ]);
    expect([merged?.total, countOf(merged!)]).toEqual([101, 3]);
    // From an older server without matched: total counted the list.
    expect(countOf({ total: 7 })).toBe(7);
  });
});

describe('the list model', () => {
  function serviceWith(snapshot: ISnapshot) {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(snapshot);
    return service;
  }

  it('says what is loaded out of what is selected, out of the namespace', async () => {
    const service = serviceWith(
      page(0, 2, 12, { total: 100_003, execution_count: 7 })
    );
    const model = new VariableListModel({ service });
    expect(model.counts).toEqual({ loaded: 2, selected: 12, total: 100_003 });
    expect(model.hasMore).toBe(true);
    await model.loadMore();
    expect(service.loadMore).toHaveBeenCalledTimes(1);
    expect(model.loadingMore).toBe(false);
    model.dispose();
  });

  it('lists the variables the last execution changed, whatever the page', async () => {
    const service = serviceWith(
      page(0, 2, 100_001, { execution_count: 3, generation: 3 })
    );
    service.variables.mockImplementation(async () =>
      makeSnapshot({
        variables: [makeVariable('wide', { change: 'new', changed_at: 3 })],
        total: 100_001,
        matched: 1,
        generation: 3
      })
    );
    const model = new VariableListModel({ service });
    const emitted = jest.fn();
    model.changed.connect(emitted);
    model.setChangedOnly(true);
    expect(model.changedOnly).toBe(true);
    await sleep(0);
    expect(service.variables).toHaveBeenCalledWith(
      expect.objectContaining({ changed_in: 3, offset: 0, sort: 'name' })
    );
    expect(model.rows.map(r => r.variable.name)).toEqual(['wide']);
    expect(model.changedView).toEqual({
      executionCount: 3,
      matched: 1,
      loading: false,
      error: null,
      byCell: false,
      cellId: null
    });
    expect(model.counts).toEqual({ loaded: 1, selected: 1, total: 100_001 });
    expect(model.hasMore).toBe(false);

    // The next execution: asked again for it.
    service.variables.mockImplementation(async () =>
      makeSnapshot({ variables: [], total: 100_001, matched: 0, generation: 4 })
    );
    service.model.setSnapshot(
      page(0, 2, 100_001, { execution_count: 4, generation: 4 })
    );
    await sleep(0);
    expect(service.variables).toHaveBeenLastCalledWith(
      expect.objectContaining({ changed_in: 4 })
    );
    expect(model.rows).toEqual([]);
    expect(model.changedView?.executionCount).toBe(4);

    model.setChangedOnly(false);
    expect(model.rows.map(r => r.variable.name)).toEqual(['v000', 'v001']);
    expect(emitted).toHaveBeenCalled();
    model.dispose();
  });

  it('pages the changed view in, and says why it failed', async () => {
    const service = serviceWith(
      page(0, 2, 50, { execution_count: 5, generation: 5 })
    );
    service.variables.mockImplementation(async query =>
      makeSnapshot({
        variables: names(query.offset, query.offset + 2).map(name =>
          makeVariable(name, { changed_at: 5 })
        ),
        total: 50,
        matched: 3,
        generation: 5
      })
    );
    const model = new VariableListModel({ service });
    model.setChangedOnly(true);
    await sleep(0);
    expect(model.hasMore).toBe(true);
    await model.loadMore();
    expect(service.variables).toHaveBeenLastCalledWith(
      expect.objectContaining({ changed_in: 5, offset: 2 })
    );
    expect(model.rows.map(r => r.variable.name)).toEqual(names(0, 4));

    service.variables.mockImplementation(async () => {
      throw new Error('changed_in is not available for R kernels yet');
    });
    service.model.setSnapshot(
      page(0, 2, 50, { execution_count: 6, generation: 6 })
    );
    await sleep(0);
    expect(model.changedView?.error).toBe(
      'changed_in is not available for R kernels yet'
    );
    model.dispose();
  });

  it('has no changed view before a cell ran', async () => {
    const service = serviceWith(page(0, 1, 1, { execution_count: null }));
    const model = new VariableListModel({ service });
    model.setChangedOnly(true);
    await sleep(0);
    expect(service.variables).not.toHaveBeenCalled();
    expect(model.changedView?.executionCount).toBeNull();
    expect(model.rows).toEqual([]);
    model.dispose();
  });
});
