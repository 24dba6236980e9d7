/**
 * The explorer on a table that lives in an engine (a DuckDB relation, a polars
 * LazyFrame, a Spark DataFrame…): rows "not counted" still scroll, growing as windows
 * come back full, until a short one marks the end or Count asks the engine; the status
 * line says which engine computes the rows and what its last query took; the summary
 * says which statistics are approximate; Convert to Code offers the engine's own
 * syntaxes; an engine's refusal or error is said in the status line, never a blank
 * grid.
 */
import './canvasStub';

import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { CodePanel } from '../explorer/code/panel';
import { ENGINE_SYNTAXES, engineSyntaxes } from '../explorer/code/syntaxes';
import { RowsDataModel } from '../explorer/data/model';
import { DEFAULT_NUMBER_FORMAT } from '../explorer/data/numbers';
import { costText, engineText, rangeText } from '../explorer/data/status';
import { SummaryPanel } from '../explorer/summary/panel';
import { ProfileLoader } from '../explorer/summary/profile';
import { sizeText } from '../explorer/toolbar/items';
import { createExplorer, DataExplorer } from '../explorer/widget';
import { ICodeQuery, IViewCode } from '../tokens';
import {
  FakeTable,
  flush,
  makeModel,
  responseError,
  trans
} from './explorerFakes';

/**
 * A DuckDB relation of `rows` × `columns` whose windows do not count it.
 */
function notCounted(rows: number, columns = 3): FakeTable {
  const table = new FakeTable(rows, columns);
  table.engine = FakeTable.engineInfo('duckdb', 'DuckDB');
  table.counted = false;
  return table;
}

function engineModel(table: FakeTable): RowsDataModel {
  return makeModel(table, { count: table.count });
}

async function open(
  table: FakeTable,
  model = engineModel(table)
): Promise<MainAreaWidget<DataExplorer>> {
  const panel = createExplorer({
    name: 'df',
    kernelId: 'k1',
    model,
    profile: table.profile
  });
  Widget.attach(panel, document.body);
  await model.load();
  return panel;
}

function part<T extends HTMLElement = HTMLElement>(
  panel: MainAreaWidget<DataExplorer>,
  id: string
): T {
  const node =
    panel.node.querySelector(`[data-test-id="kernel-state-explorer-${id}"]`) ??
    panel.toolbar.node.querySelector(
      `[data-test-id="kernel-state-explorer-${id}"]`
    );
  return node as T;
}

describe('rows not counted', () => {
  it('shows the rows read so far and one more, growing as full windows come back, until a short one', async () => {
    const table = notCounted(450);
    const model = engineModel(table);
    const events: string[] = [];
    model.changed.connect((_, args) => events.push(args.type));
    await model.load();
    expect(model.viewRows).toBeNull();
    expect(model.shownRows).toBe(101); // 100 read, and the row that reads on
    expect(model.data('body', 99, 0)).toBe('r99c0');
    // Painting the extra row asks the next window, a whole block.
    events.length = 0;
    expect(model.data('body', 100, 0)).toBeUndefined();
    await model.settled();
    expect(model.shownRows).toBe(201);
    expect(model.data('body', 100, 0)).toBe('r100c0');
    // Grown by a reset (keeps the scroll position), never rows-inserted at the
    // bottom (the grid would follow it and read on and on).
    expect(events).toEqual(['model-reset']);
    for (const row of [200, 300, 400]) {
      model.data('body', row, 0);
      await model.settled();
    }
    // The last window came back with 50 rows: the end is known.
    expect(model.viewRows).toBe(450);
    expect(model.shownRows).toBe(450);
    expect(model.data('body', 449, 0)).toBe('r449c0');
    expect(table.queries.map(q => [q.offset, q.limit])).toEqual([
      [0, 100],
      [100, 100],
      [200, 100],
      [300, 100],
      [400, 100]
    ]);
    expect(model.staleReason).toBeNull();
  });

  it('counts when asked, and the grid takes the size', async () => {
    const table = notCounted(1000);
    const model = engineModel(table);
    await model.load();
    await model.setFilter({ column: 'c0', op: 'lt', value: 640 });
    expect(model.viewRows).toBeNull();
    const counting = model.count();
    expect(model.counting).toBe(true);
    await counting;
    expect(table.countQueries).toEqual([
      { filter: { column: 'c0', op: 'lt', value: 640 } }
    ]);
    expect(model.counting).toBe(false);
    expect(model.viewRows).toBe(640);
    expect(model.shownRows).toBe(640);
    expect(model.info?.filteredRows).toBe(640);
    expect(model.info?.totalRows).toBeNull();
    expect(model.lastCost).toEqual({ what: 'count', ms: 40 });
    // A later window of the same view is of the same value: not stale.
    model.data('body', 600, 0);
    await model.settled();
    expect(model.data('body', 600, 0)).toBe('r600c0');
    expect(model.staleReason).toBeNull();
  });

  it('drops a count of a view changed meanwhile, and says why a count failed', async () => {
    const table = notCounted(1000);
    const model = engineModel(table);
    await model.load();
    table.hold = true;
    const counting = model.count();
    await flush();
    table.hold = false;
    await model.setFilter({ column: 'c0', op: 'lt', value: 10 });
    table.release();
    await counting;
    expect(model.viewRows).toBe(10); // read to its end, not the old count
    expect(model.info?.totalRows).toBeNull();

    await model.setFilter(null);
    table.failures.push(
      responseError(
        422,
        'Counting was cancelled in DuckDB after 10,000 ms (count guard)'
      )
    );
    await model.count();
    expect(model.countError).toBe(
      'Counting was cancelled in DuckDB after 10,000 ms (count guard)'
    );
    expect(model.viewRows).toBeNull();
  });

  it('takes a count a later window brings (the engine finished it in time)', async () => {
    const table = notCounted(1000);
    const model = engineModel(table);
    await model.load();
    expect(model.shownRows).toBe(101);
    table.counted = true;
    model.data('body', 100, 0);
    await model.settled();
    expect(model.viewRows).toBe(1000);
    expect(model.shownRows).toBe(1000);
    expect(model.staleReason).toBeNull();
  });

  it('says it in the status line, with a Count button', async () => {
    const table = notCounted(1000);
    const panel = await open(table);
    const { model } = panel.content;
    expect(part(panel, 'engine').hidden).toBe(false);
    expect(part(panel, 'not-counted').hidden).toBe(false);
    expect(part(panel, 'size').textContent).toBe(
      'rows not counted × 3 columns'
    );
    const count = part<HTMLButtonElement>(panel, 'count');
    expect(count.style.display).toBe('');
    count.click();
    expect(count.disabled).toBe(true);
    expect(count.textContent).toBe('Counting…');
    await flush(10);
    expect(model.viewRows).toBe(1000);
    expect(part(panel, 'not-counted').hidden).toBe(true);
    expect(count.style.display).toBe('none');
    expect(part(panel, 'size').textContent).toBe('1,000 rows × 3 columns');
    expect(part(panel, 'cost').textContent).toBe('last count: 40 ms');
    panel.dispose();
  });

  it('words the size and the range of rows not counted', () => {
    expect(sizeText(trans, null, 3)).toBe('rows not counted × 3 columns');
    expect(sizeText(trans, 1000, 3, null, true)).toBe(
      'not counted of 1,000 rows × 3 columns'
    );
    expect(sizeText(trans, null, 3, 640, true)).toBe(
      '640 rows kept × 3 columns'
    );
    expect(sizeText(trans, 1000, 3, 640)).toBe('640 of 1,000 rows × 3 columns');
    expect(
      rangeText(trans, { first: 180, last: 200 }, 200, '180', '199', false)
    ).toBe('Rows 181–200 of 200 read so far · index 180 … 199');
  });
});

describe('the status line of an engine table', () => {
  it('says which engine computes the rows and what its last query took', async () => {
    const table = notCounted(1000);
    table.engine!.location = 'sales.duckdb';
    const panel = await open(table);
    const name = part(panel, 'engine-name');
    expect(name.textContent).toBe('lazy — computed by DuckDB');
    expect(name.title).toBe('sales.duckdb');
    expect(part(panel, 'cost').textContent).toBe('last window: 12 ms');
    // The statistics' cost, once the summary asked some.
    await panel.content.profiles.settled();
    await flush(10);
    expect(table.profileQueries.length).toBeGreaterThan(0);
    expect(part(panel, 'cost').textContent).toBe('last statistics: 80 ms');
    panel.dispose();
  });

  it('is hidden for a value in memory', async () => {
    const table = new FakeTable(100, 3);
    const panel = await open(table);
    expect(part(panel, 'engine').hidden).toBe(true);
    expect(part(panel, 'size').textContent).toBe('100 rows × 3 columns');
    panel.dispose();
  });

  it('words the engine and the costs', () => {
    const spark = FakeTable.engineInfo('spark', 'Spark');
    expect(engineText(trans, spark)).toBe('lazy — computed by Spark');
    expect(costText(trans, { what: 'window', ms: 1234 })).toBe(
      'last window: 1,234 ms'
    );
    expect(costText(trans, { what: 'count', ms: 5 })).toBe('last count: 5 ms');
    expect(costText(trans, { what: 'profile', ms: 80 })).toBe(
      'last statistics: 80 ms'
    );
  });
});

describe('the summary of an engine table', () => {
  async function summarize(table: FakeTable) {
    const model = engineModel(table);
    await model.load();
    const loader = new ProfileLoader({ fetch: table.profile });
    const panel = new SummaryPanel({
      model,
      loader,
      trans,
      onGoTo: () => undefined,
      numberFormat: DEFAULT_NUMBER_FORMAT
    });
    Widget.attach(panel, document.body);
    await loader.settled();
    const note = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-summary-note"]'
    )!;
    return { panel, loader, note };
  }

  it('says which statistics the engine estimated', async () => {
    const table = notCounted(1000);
    const exact = table.columnProfile.bind(table);
    table.columnProfile = (position, rows) => ({
      ...exact(position, rows),
      approximate: position === 0
    });
    const { panel, loader, note } = await summarize(table);
    expect(loader.rows?.approximate).toBe(true);
    expect(loader.rows?.totalRows).toBeNull();
    expect(note.textContent).toBe(
      'Statistics marked ≈ are approximate (estimated by DuckDB)'
    );
    panel.toggle(0, true);
    const details = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-summary-details"]'
    )!;
    expect(details.textContent).toContain('median≈ ');
    panel.dispose();
  });

  it('says which ones come from the first rows, their full aggregate cancelled', async () => {
    const table = notCounted(1000);
    const profile = table.profile;
    table.profile = async query => ({
      ...(await profile(query)),
      sampled: true,
      sample_rows: 10000
    });
    const { panel, note } = await summarize(table);
    expect(note.textContent).toBe(
      'Statistics marked ≈ are approximate: DuckDB cancelled some full aggregates, computed on the first 10,000 rows instead'
    );
    panel.dispose();
  });
});

describe('Convert to Code of an engine table', () => {
  function codePanel(model: RowsDataModel) {
    const queries: ICodeQuery[] = [];
    const panel = new CodePanel({
      model,
      fetch: async (query): Promise<IViewCode> => {
        queries.push(query);
        return {
          syntax: query.syntax ?? 'pandas',
          code: `df_view = df  # ${query.syntax}`,
          name: 'df',
          view: { sort: [], filter: null, columns: null }
        };
      },
      insert: async () => null,
      trans
    });
    panel.hide();
    Widget.attach(panel, document.body);
    panel.show();
    const select = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-code-syntax"]'
    ) as HTMLSelectElement;
    return { panel, queries, select };
  }

  it("offers the engine's syntaxes, its own first and asked by default", async () => {
    const table = notCounted(100);
    const model = engineModel(table);
    await model.load();
    const { panel, queries, select } = codePanel(model);
    await flush();
    expect(queries).toEqual([{ syntax: 'duckdb' }]);
    expect([...select.options].map(o => o.value)).toEqual(['duckdb', 'sql']);
    expect(select.options[0].textContent).toBe('duckdb (its engine)');
    expect(select.value).toBe('duckdb');
    expect(select.disabled).toBe(false);
    select.value = 'sql';
    select.dispatchEvent(new Event('change'));
    await flush();
    expect(queries.at(-1)).toEqual({ syntax: 'sql' });
    panel.dispose();
  });

  it.each([
    ['duckdb', ['duckdb', 'sql']],
    ['polars', ['polars_lazy', 'polars']],
    ['ibis', ['ibis']],
    ['spark', ['pyspark']],
    ['dask', ['dask']]
  ])('maps the engine %s to %j', (name, syntaxes) => {
    expect(engineSyntaxes(FakeTable.engineInfo(name, name))).toEqual(syntaxes);
    expect(ENGINE_SYNTAXES[name]).toEqual(syntaxes);
  });

  it("keeps a value in memory's choices", async () => {
    expect(engineSyntaxes(null)).toBeNull();
    expect(engineSyntaxes(FakeTable.engineInfo('oracle', 'Oracle'))).toBeNull();
    const model = makeModel(new FakeTable(100, 3));
    await model.load();
    const { panel, queries, select } = codePanel(model);
    await flush();
    expect(queries).toEqual([{}]);
    expect([...select.options].map(o => o.value)).toEqual(['pandas', 'polars']);
    panel.dispose();
  });

  it('a single syntax (Spark) cannot be changed', async () => {
    const table = notCounted(100);
    table.engine = FakeTable.engineInfo('spark', 'Spark');
    const model = engineModel(table);
    await model.load();
    const { panel, queries, select } = codePanel(model);
    await flush();
    expect(queries).toEqual([{ syntax: 'pyspark' }]);
    expect(select.disabled).toBe(true);
    panel.dispose();
  });
});

describe("an engine's refusals and errors", () => {
  it('a deep sorted page refused fails alone: the sort and the rows read stay, the reason is said', async () => {
    const table = notCounted(1000);
    table.engine = FakeTable.engineInfo('spark', 'Spark');
    table.counted = true;
    const panel = await open(table);
    const { model } = panel.content;
    model.setSort([{ column: 'c1', direction: 'desc' }]);
    await model.settled();
    expect(model.data('body', 0, 0)).toBe('r999c0');
    const reason =
      'Spark cannot sort a page this deep (offset 500) without collecting: filter first';
    table.failures.push(responseError(400, reason));
    model.data('body', 500, 0);
    await model.settled();
    expect(model.sort).toEqual([{ column: 'c1', direction: 'desc' }]);
    expect(model.queryError).toBeNull();
    expect(model.data('body', 0, 0)).toBe('r999c0');
    expect(model.data('body', 500, 0)).toBeUndefined(); // "…", not asked again
    await model.settled();
    const status = part(panel, 'status');
    expect(status.textContent).toBe(reason);
    expect(status.classList.contains('jp-mod-error')).toBe(true);
    panel.dispose();
  });

  it('a sort cancelled in the engine is given up, and says so', async () => {
    const table = notCounted(1000);
    const panel = await open(table);
    const { model } = panel.content;
    table.failures.push(
      responseError(422, 'sorting was cancelled in DuckDB after 2,000 ms')
    );
    model.setSort([{ column: 'c1', direction: 'asc' }]);
    await model.settled();
    expect(model.sort).toEqual([]);
    expect(part(panel, 'status').textContent).toBe(
      'Cannot sort by c1: sorting was cancelled in DuckDB after 2,000 ms'
    );
    expect(model.data('body', 0, 0)).toBe('r0c0');
    panel.dispose();
  });

  it('a sort given up for time is asked again with more time of its own', async () => {
    const table = notCounted(1000);
    const panel = await open(table);
    const { model } = panel.content;
    table.failures.push(
      responseError(422, 'sorting was cancelled in DuckDB after 2,000 ms')
    );
    model.setSort([{ column: 'c1', direction: 'desc' }]);
    await model.settled();
    expect(model.sort).toEqual([]);
    expect(model.canTakeLonger).toBe(true);
    const more = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-more-time"]'
    ) as HTMLButtonElement;
    expect(more.hidden).toBe(false);
    expect(table.queries.every(query => query.budget_ms === undefined)).toBe(
      true
    );

    table.queries = [];
    more.click();
    await model.settled();
    // The sort is back, every request of the view gives itself 60 s.
    expect(model.sort).toEqual([{ column: 'c1', direction: 'desc' }]);
    expect(table.queries.length).toBeGreaterThan(0);
    expect(
      table.queries.every(
        query => query.budget_ms === 60_000 && query.sort === 'c1:desc'
      )
    ).toBe(true);
    expect(model.canTakeLonger).toBe(false);
    expect(more.hidden).toBe(true);

    // Another view goes back to the server's guards; an error that is not about time
    // offers nothing.
    table.queries = [];
    model.setSort([{ column: 'c2', direction: 'asc' }]);
    await model.settled();
    expect(table.queries.every(query => query.budget_ms === undefined)).toBe(
      true
    );
    table.failures.push(responseError(422, 'c3 does not compare'));
    model.setSort([{ column: 'c3', direction: 'asc' }]);
    await model.settled();
    expect(model.canTakeLonger).toBe(false);
    expect(more.hidden).toBe(true);
    panel.dispose();
  });

  it("an engine's error on the first window is said, not a blank grid waiting", async () => {
    const table = notCounted(1000);
    table.failures.push(
      responseError(
        422,
        'BinderException: Referenced column "price" not found in FROM clause'
      )
    );
    const panel = await open(table);
    const status = part(panel, 'status');
    expect(status.textContent).toBe(
      'BinderException: Referenced column "price" not found in FROM clause'
    );
    expect(status.classList.contains('jp-mod-error')).toBe(true);
    panel.dispose();
  });

  it('a count cancelled in the engine is said in the status line', async () => {
    const table = notCounted(1000);
    const panel = await open(table);
    table.failures.push(
      responseError(
        422,
        'Counting was cancelled in Spark after 10,000 ms (count guard)'
      )
    );
    part<HTMLButtonElement>(panel, 'count').click();
    await flush(10);
    const status = part(panel, 'status');
    expect(status.textContent).toBe(
      'Counting was cancelled in Spark after 10,000 ms (count guard)'
    );
    expect(status.classList.contains('jp-mod-error')).toBe(true);
    // Still not counted: the button is there to try again.
    expect(part<HTMLButtonElement>(panel, 'count').disabled).toBe(false);
    expect(part(panel, 'count').style.display).toBe('');
    panel.dispose();
  });
});
