/**
 * A fake of the server's rows, profile and findings routes for the explorer's specs:
 * a table of `rows` × `columns` whose cell (r, c) reads `r<label>c<c>` (the label is
 * the row's index label, so sorted answers are told apart) and whose column `c0`
 * holds the number r (for filters). Filters are evaluated on `c0` (numbers) — every operator
 * of the contract that makes sense on numbers, trees included — so a filter keeping
 * no row is a real answer of 0 rows. With `engine` set it is a table in an engine:
 * its answers name the engine and their cost, and with `counted` false its windows
 * say "not counted" (`total_rows: null`) and only `count` counts. Its findings are
 * `findingsList` (`FINDINGS` by default), their filters combined with the view's as
 * the server does. Not the code under test: the server's stand-in.
 */
import { ServerConnection } from '@jupyterlab/services';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';

import { RowsDataModel } from '../explorer/data/model';
import {
  FilterNode,
  IColumnProfile,
  ICountQuery,
  ICountResult,
  IEngineInfo,
  IFinding,
  IFindingsQuery,
  IProfileQuery,
  IRowsQuery,
  IRowsWindow,
  ITableFindings,
  ITableProfile
} from '../tokens';

export const trans = nullTranslator.load('jupyter_kernel_state');

export function responseError(
  status: number,
  message: string,
  headers: Record<string, string> = {}
): ServerConnection.ResponseError {
  return new ServerConnection.ResponseError(
    new Response(JSON.stringify({ message }), { status, headers }),
    message
  );
}

/**
 * The positions a `columns` value names (`a:b` or `0,3,7`), within `total`.
 */
export function parseColumns(
  columns: string | undefined,
  total: number
): number[] {
  if (columns === undefined) {
    return Array.from({ length: Math.min(100, total) }, (_, i) => i);
  }
  if (columns.includes(':')) {
    const [start, stop] = columns.split(':').map(Number);
    const positions: number[] = [];
    for (let p = start; p < Math.min(stop, total); p++) {
      positions.push(p);
    }
    return positions;
  }
  return columns
    .split(',')
    .map(Number)
    .filter(p => p < total);
}

/**
 * Whether row `r` meets a filter (only column `c0`, holding r, is filtered on).
 */
function meets(filter: FilterNode, r: number, names: string[]): boolean {
  if ('and' in filter) {
    return filter.and.every(node => meets(node, r, names));
  }
  if ('or' in filter) {
    return filter.or.some(node => meets(node, r, names));
  }
  if (filter.column !== names[0] && filter.column !== 0) {
    throw responseError(400, `filter: only ${names[0]} is filterable here`);
  }
  const number = (value: unknown) => {
    const n = Number(value);
    if (!Number.isFinite(n)) {
      throw responseError(
        400,
        `filter ${filter.op}: '${String(value)}' is not a number for column ${names[0]} (int64)`
      );
    }
    return n;
  };
  const value = filter.value;
  const list = Array.isArray(value) ? value : [value];
  switch (filter.op) {
    case 'eq':
      return r === number(value);
    case 'ne':
      return r !== number(value);
    case 'lt':
      return r < number(value);
    case 'le':
      return r <= number(value);
    case 'gt':
      return r > number(value);
    case 'ge':
      return r >= number(value);
    case 'between':
      return r >= number(list[0]) && r <= number(list[1]);
    case 'not_between':
      return r < number(list[0]) || r > number(list[1]);
    case 'in':
      return list.map(number).includes(r);
    case 'not_in':
      return !list.map(number).includes(r);
    case 'isnull':
      return false;
    case 'notnull':
      return true;
    default:
      throw responseError(400, `filter: ${filter.op} does not apply to int64`);
  }
}

/**
 * A finding of the fake table, with `overrides`.
 */
export function makeFinding(overrides: Partial<IFinding> = {}): IFinding {
  return {
    kind: 'outliers',
    severity: 'warning',
    columns: ['c0'],
    positions: [0],
    message: 'c0: 4 outliers (IQR rule: outside [2, 97])',
    count: 4,
    approximate: false,
    filter: {
      or: [
        { column: 'c0', op: 'lt', value: 2 },
        { column: 'c0', op: 'gt', value: 97 }
      ]
    },
    filter_note: null,
    fix: "df = df.assign(c0=df['c0'].clip(2, 97))",
    fix_note: null,
    details: { rule: 'iqr', low: 2, high: 97 },
    ...overrides
  };
}

/**
 * The fake table's findings: outliers in c0 (with rows and a fix), duplicate rows (a
 * fix, no filter), a constant c2 (a fix) and the correlated c0 and c1 (neither).
 */
export const FINDINGS: readonly IFinding[] = [
  makeFinding(),
  makeFinding({
    kind: 'duplicate_rows',
    columns: [],
    positions: [],
    message: '2 duplicate rows',
    count: 2,
    filter: null,
    filter_note: 'no filter says "equal to another row"',
    fix: 'df = df.drop_duplicates()',
    details: {}
  }),
  makeFinding({
    kind: 'constant',
    severity: 'info',
    columns: ['c2'],
    positions: [2],
    message: 'c2: one value in every row',
    count: 100,
    filter: null,
    filter_note: 'every row',
    fix: "df = df.drop(columns=['c2'])",
    details: {}
  }),
  makeFinding({
    kind: 'correlated',
    severity: 'info',
    columns: ['c0', 'c1'],
    positions: [0, 1],
    message: 'c0 and c1 are correlated (r = 0.99)',
    count: 100,
    filter: null,
    filter_note: 'no rows in particular',
    fix: null,
    fix_note: 'correlated columns need no fix',
    details: { r: 0.99 }
  })
];

export class FakeTable {
  constructor(
    public rows: number,
    public columns: number,
    public changedAt = 1
  ) {}

  queries: IRowsQuery[] = [];
  profileQueries: IProfileQuery[] = [];
  /**
   * Errors to throw, one per call, before answering.
   */
  failures: unknown[] = [];
  /**
   * Hold answers until `release()`.
   */
  hold = false;
  /**
   * The server's `rows_max_rows` and `rows_max_columns`: larger windows get a 400.
   */
  maxRows = 1000;
  maxColumns = 100;
  /**
   * Column names by position (default `c<position>`).
   */
  names: Record<number, string> = {};
  /**
   * Columns the profile route leaves out for its time budget.
   */
  cut = new Set<number>();
  /**
   * The engine the table lives in (null: a value in memory), and whether its
   * windows count the rows (an engine's count may not finish in a window's guard).
   */
  engine: IEngineInfo | null = null;
  counted = true;
  /**
   * What each engine query takes (`cost_ms`), by route.
   */
  costs = { window: 12, count: 40, profile: 80 };
  countQueries: ICountQuery[] = [];
  findingsQueries: IFindingsQuery[] = [];
  /**
   * The findings the route finds (before `max_findings`), and fields of its reply.
   */
  findingsList: IFinding[] = [...FINDINGS];
  findingsReply: Partial<ITableFindings> = {};

  /**
   * A table of an engine: `engineInfo('duckdb', 'DuckDB')`.
   */
  static engineInfo(name: string, title: string): IEngineInfo {
    return {
      name,
      title,
      lazy: true,
      rows: null,
      location: null,
      cost_ms: null
    };
  }

  count = (query: ICountQuery): Promise<ICountResult> => {
    this.countQueries.push(query);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      return Promise.reject(failure);
    }
    const answer: ICountResult = {
      name: 'df',
      type: 'DuckDBPyRelation',
      rows: this.matching(query.filter ?? null).length,
      filtered: query.filter !== undefined,
      cost_ms: this.costs.count,
      engine: this._engine('count'),
      stale: false,
      kernel_busy: false,
      epoch: 0,
      generation: 1
    };
    if (this.hold) {
      return new Promise(resolve => this._held.push(() => resolve(answer)));
    }
    return Promise.resolve(answer);
  };

  name(position: number): string {
    return this.names[position] ?? `c${position}`;
  }

  /**
   * A column added to the value, as `sales["revenue"] = …` does.
   */
  addColumn(): void {
    this.columns++;
    this.changedAt++;
  }

  fetch = (query: IRowsQuery): Promise<IRowsWindow> => {
    this.queries.push(query);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      return Promise.reject(failure);
    }
    const positions = parseColumns(query.columns, this.columns);
    if (
      (query.limit ?? 0) > this.maxRows ||
      (query.columns !== undefined && positions.length > this.maxColumns)
    ) {
      return Promise.reject(responseError(400, 'limit must be ≤ max'));
    }
    query = {
      ...query,
      limit: query.limit ?? Math.min(100, this.maxRows),
      columns: query.columns ?? `0:${Math.min(this.maxColumns, this.columns)}`
    };
    let answer: IRowsWindow;
    try {
      answer = this.window(query);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.hold) {
      return new Promise(resolve => this._held.push(() => resolve(answer)));
    }
    return Promise.resolve(answer);
  };

  profile = (query: IProfileQuery): Promise<ITableProfile> => {
    this.profileQueries.push(query);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      return Promise.reject(failure);
    }
    const positions = parseColumns(query.columns, this.columns);
    const kept = this.matching(query.filter ?? null).length;
    const answer: ITableProfile = {
      name: 'df',
      type: 'DataFrame',
      kind: 'dataframe',
      total_rows: this.counted ? this.rows : null,
      filtered_rows: query.filter && this.counted ? kept : null,
      columns_total: this.columns,
      columns: positions
        .filter(p => !this.cut.has(p))
        .map(p => this.columnProfile(p, kept)),
      columns_cut: positions.filter(p => this.cut.has(p)).length,
      sampled: false,
      sample_rows: null,
      engine: this._engine('profile'),
      values_truncated: 0,
      view: {
        sort: [],
        filter: query.filter ?? null,
        columns: positions
      },
      stale: false,
      kernel_busy: false,
      epoch: 0,
      generation: 1
    };
    if (this.hold) {
      return new Promise(resolve => this._held.push(() => resolve(answer)));
    }
    return Promise.resolve(answer);
  };

  findings = (query: IFindingsQuery): Promise<ITableFindings> => {
    this.findingsQueries.push(query);
    const failure = this.failures.shift();
    if (failure !== undefined) {
      return Promise.reject(failure);
    }
    const view = query.filter ?? null;
    const syntax = query.syntax ?? 'pandas';
    const all = this.findingsList.map(finding => ({
      ...finding,
      filter:
        view && finding.filter
          ? { and: [view, finding.filter] }
          : finding.filter,
      fix:
        finding.fix === null || syntax === 'pandas'
          ? finding.fix
          : `# ${syntax}\n${finding.fix}`
    }));
    const listed = all.slice(0, query.max_findings ?? 100);
    const count = (severity: IFinding['severity']) =>
      all.filter(finding => finding.severity === severity).length;
    const answer: ITableFindings = {
      name: 'df',
      type: 'DataFrame',
      kind: 'dataframe',
      total_rows: this.rows,
      filtered_rows: view ? this.matching(view).length : null,
      columns_total: this.columns,
      columns_cut: 0,
      findings: listed,
      findings_total: all.length,
      findings_cut: all.length - listed.length,
      severities: {
        error: count('error'),
        warning: count('warning'),
        info: count('info')
      },
      errors: [],
      not_checked: [],
      syntax,
      sampled: false,
      sample_rows: null,
      view: {
        sort: [],
        filter: view,
        columns: parseColumns(query.columns, this.columns)
      },
      stale: false,
      kernel_busy: false,
      epoch: 0,
      generation: 1,
      engine: this._engine('profile'),
      ...this.findingsReply
    };
    if (this.hold) {
      return new Promise(resolve => this._held.push(() => resolve(answer)));
    }
    return Promise.resolve(answer);
  };

  columnProfile(position: number, rows: number): IColumnProfile {
    const base = {
      name: this.name(position),
      position,
      approximate: false,
      error: null
    };
    if (position === 1) {
      const nulls = Math.ceil(rows / 10);
      return {
        ...base,
        dtype: 'float64',
        family: 'number',
        count: rows - nulls,
        null_count: nulls,
        min: 0.5,
        max: 6949.488000000001,
        mean: 1234.5678,
        median: 1000,
        std: 99.25,
        quantiles: { '5': 1, '25': 10, '75': 100, '95': 1000 },
        histogram: { edges: [0, 10, 20, 30], counts: [5, 0, 12] }
      };
    }
    if (position === 2) {
      return {
        ...base,
        dtype: 'object',
        family: 'string',
        count: rows,
        null_count: 0,
        distinct: 3,
        empty: 0,
        top: [
          { value: 'north', count: 7 },
          { value: '<b>south</b>', count: 2 }
        ],
        other: 1
      };
    }
    return {
      ...base,
      dtype: 'int64',
      family: 'number',
      count: rows,
      null_count: 0,
      min: 0,
      max: Math.max(0, rows - 1),
      mean: rows / 2,
      median: rows / 2,
      std: 1,
      quantiles: { '5': 0, '25': 1, '75': 2, '95': 3 },
      histogram: { edges: [0, 1, 2], counts: [1, 1] }
    };
  }

  /**
   * The row numbers a filter keeps, in table order.
   */
  matching(filter: FilterNode | null): number[] {
    const names = [this.name(0)];
    const kept: number[] = [];
    for (let r = 0; r < this.rows; r++) {
      if (!filter || meets(filter, r, names)) {
        kept.push(r);
      }
    }
    return kept;
  }

  release(): void {
    const held = this._held;
    this._held = [];
    held.forEach(resolve => resolve());
  }

  window(query: IRowsQuery): IRowsWindow {
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 100;
    const positions = parseColumns(query.columns, this.columns);
    const sort = query.sort ?? '';
    const descending = sort.startsWith('[')
      ? JSON.parse(sort)[0]?.desc === true
      : (sort.split(',')[0] ?? '').endsWith(':desc');
    let kept = this.matching(query.filter ?? null);
    if (descending) {
      kept = [...kept].reverse();
    }
    const here = kept.slice(offset, offset + limit);
    return {
      name: 'df',
      kind: 'dataframe',
      type: 'DataFrame',
      shape: [this.counted ? this.rows : null, this.columns],
      total_rows: this.counted ? this.rows : null,
      filtered_rows: query.filter && this.counted ? kept.length : null,
      engine: this._engine('window'),
      filter: query.filter ?? null,
      offset,
      limit,
      columns: positions.map(position => ({
        name: this.name(position),
        dtype: position === 1 ? 'float64' : 'int64',
        position
      })),
      columns_total: this.columns,
      index_name: null,
      index: here.map(String),
      rows: here.map(r =>
        positions.map(c => (c === 1 && r % 10 === 0 ? null : `r${r}c${c}`))
      ),
      sort: query.sort ?? null,
      stale: false,
      kernel_busy: false,
      generation: 1,
      changed_at: this.changedAt,
      cells_truncated: 0,
      cells_unread: 0
    };
  }

  private _engine(what: 'window' | 'count' | 'profile'): IEngineInfo | null {
    return this.engine ? { ...this.engine, cost_ms: this.costs[what] } : null;
  }

  private _held: (() => void)[] = [];
}

export function makeModel(
  table: FakeTable,
  extra: Partial<RowsDataModel.IOptions> = {}
): RowsDataModel {
  return new RowsDataModel({
    fetch: table.fetch,
    rowsPerBlock: 100,
    columnsPerBlock: 10,
    maxBlocks: 4,
    wait: () => Promise.resolve(),
    ...extra
  });
}

/**
 * A translator that marks every string it gives: `⟦…⟧`.
 */
export function markingTranslator(): ITranslator {
  const base = nullTranslator.load('jupyter_kernel_state');
  const mark = (text: string) => `⟦${text}⟧`;
  const bundle: TranslationBundle = {
    __: (msgid, ...args) => mark(base.__(msgid, ...args)),
    _n: (msgid, plural, n, ...args) => mark(base._n(msgid, plural, n, ...args)),
    _p: (context, msgid, ...args) => mark(base._p(context, msgid, ...args)),
    _np: (context, msgid, plural, n, ...args) =>
      mark(base._np(context, msgid, plural, n, ...args)),
    gettext: (msgid, ...args) => mark(base.gettext(msgid, ...args)),
    ngettext: (msgid, plural, n, ...args) =>
      mark(base.ngettext(msgid, plural, n, ...args)),
    pgettext: (context, msgid, ...args) =>
      mark(base.pgettext(context, msgid, ...args)),
    npgettext: (context, msgid, plural, n, ...args) =>
      mark(base.npgettext(context, msgid, plural, n, ...args)),
    dcnpgettext: (domain, context, msgid, plural, n, ...args) =>
      mark(base.dcnpgettext(domain, context, msgid, plural, n, ...args))
  };
  return { languageCode: 'xx', load: () => bundle };
}

/**
 * Let pending promise callbacks run.
 */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) {
    await Promise.resolve();
  }
}
