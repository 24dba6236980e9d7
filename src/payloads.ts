/**
 * The REST payloads of `{baseUrl}api/kernel-state/` and their queries.
 *
 * The interfaces mirror the contract, `jupyter_kernel_state/schema/rest-v1.json`
 * (`src/__tests__/contract.spec.ts` fails when a field or its required-ness differs),
 * and keep its snake_case names so a payload can be used as it arrives. Fields marked
 * "addition" extend DESIGN.md section 3. `tokens.ts` re-exports every name.
 */

/**
 * What kind of value a variable holds (the probe's classification).
 */
export type VariableKind =
  | 'number'
  | 'boolean'
  | 'none'
  | 'string'
  | 'bytes'
  | 'sequence'
  | 'mapping'
  | 'set'
  | 'array'
  | 'dataframe'
  | 'series'
  | 'index'
  | 'tensor'
  | 'callable'
  | 'class'
  | 'module'
  | 'object';

/**
 * How a variable changed relative to `since` (or the previous generation).
 */
export type VariableChange = 'new' | 'modified' | 'unchanged';

/**
 * One row of `GET kernels`.
 */
export interface IKernelSummary {
  kernel_id: string;
  language: string;
  execution_state: string;
  epoch: number;
  generation: number;
  execution_count: number | null;
  variables_total: number | null;
  images_total: number;
  /**
   * When the last user execution ended (ISO 8601), or null (addition).
   */
  last_execution_at: string | null;
  /**
   * The notebook or console the kernel belongs to (its session's path), or null.
   */
  path: string | null;
}

/**
 * The body of `GET kernels`.
 */
export interface IKernelList {
  kernels: IKernelSummary[];
}

/**
 * One variable of a snapshot.
 */
export interface IVariable {
  name: string;
  type: string;
  qualname: string;
  kind: VariableKind | string;
  size: number | null;
  shape: number[] | null;
  dtype: string | null;
  nbytes: number | null;
  preview: string;
  truncated: boolean;
  error: string | null;
  change: VariableChange;
  changed_at: number | null;
  /**
   * What changed structurally, e.g. `rows 1,000 → 980` (addition; at most 5).
   */
  changes: string[];
  description: string | null;
  constraints: string | null;
  hidden_from_prompt: boolean;
  /**
   * The name or value looks like a credential: masked in prompts (addition).
   */
  likely_secret: boolean;
  /**
   * Why it looks like a credential (addition).
   */
  secret_reason: string | null;
  /**
   * A cheap shallow size in bytes (numpy `nbytes`, pandas shallow `memory_usage`,
   * `sys.getsizeof`), or null when it cannot be told cheaply (addition).
   */
  memory: number | null;
  /**
   * The value is a likely secret and `preview` (detail: `repr`, `llm_repr`, children
   * previews) is masked; a detail asked with `reveal=true` has the real values and
   * `masked: false` (addition).
   */
  masked: boolean;
}

/**
 * The fields a snapshot's list leaves out when they hold their default (the lean
 * wire: `ListedVariable` in the schema); `qualname` is left out when it equals `type`.
 */
export const VARIABLE_DEFAULTS: Readonly<
  Pick<
    IVariable,
    | 'size'
    | 'shape'
    | 'dtype'
    | 'nbytes'
    | 'memory'
    | 'truncated'
    | 'error'
    | 'change'
    | 'changed_at'
    | 'changes'
    | 'description'
    | 'constraints'
    | 'hidden_from_prompt'
    | 'likely_secret'
    | 'secret_reason'
    | 'masked'
  >
> = {
  size: null,
  shape: null,
  dtype: null,
  nbytes: null,
  memory: null,
  truncated: false,
  error: null,
  change: 'unchanged',
  changed_at: null,
  changes: [],
  description: null,
  constraints: null,
  hidden_from_prompt: false,
  likely_secret: false,
  secret_reason: null,
  masked: false
};

/**
 * A listed variable as it travels (fields at their defaults left out) made whole.
 */
export function withVariableDefaults(
  listed: Pick<IVariable, 'name' | 'type' | 'kind' | 'preview'> &
    Partial<IVariable>
): IVariable {
  return {
    ...VARIABLE_DEFAULTS,
    qualname: listed.type,
    ...listed,
    changes: listed.changes ?? []
  };
}

/**
 * The body of `GET kernels/{kernel_id}/variables`.
 */
export interface ISnapshot {
  kernel_id: string;
  language: string;
  epoch: number;
  generation: number;
  execution_count: number | null;
  stale: boolean;
  kernel_busy: boolean;
  taken_at: string;
  duration_ms: number;
  /**
   * The namespace's variables (with the `include` groups asked), exact, whatever
   * `filter` or `changed_in` select.
   */
  total: number;
  /**
   * The variables `filter` and `changed_in` select (`total` without them): what
   * `offset` and `limit` page through (addition; absent from older servers, whose
   * `total` counted the matches).
   */
  matched?: number;
  offset: number;
  limit: number;
  variables: IVariable[];
  removed: string[];
  /**
   * True when the reply holds only what changed since `since` (asked with
   * `delta=true`): every new or modified entry, not paged, and the removed names. False
   * (or absent, from an older server) for a normal page: the client replaces its list.
   */
  delta?: boolean;
  /**
   * The detail level of the entries (`names`, `schema` or `full`); the sidebar asks
   * `full` (the default), whose entries are `IVariable`.
   */
  detail?: 'names' | 'schema' | 'full';
}

/**
 * A variable at `detail=names` (name, type, kind) or `detail=schema` (also sizes, shape,
 * dtype, memory, change and, for tables, their first 50 columns with dtypes).
 */
export interface IVariableBrief {
  name: string;
  type: string;
  kind: VariableKind | string;
  size?: number | null;
  shape?: number[] | null;
  dtype?: string | null;
  nbytes?: number | null;
  memory?: number | null;
  change?: VariableChange;
  changed_at?: number | null;
  likely_secret?: boolean;
  columns?: IColumn[] | null;
  columns_total?: number | null;
  error?: string | null;
}

/**
 * The body of `GET kernels/{kernel_id}/variables?detail=names|schema`: a snapshot whose
 * entries are brief.
 */
export interface IBriefSnapshot extends Omit<ISnapshot, 'variables'> {
  variables: IVariableBrief[];
}

/**
 * Which otherwise hidden groups of names a snapshot includes.
 */
export type IncludeGroup = 'private' | 'modules' | 'callables' | 'classes';

/**
 * What a snapshot can be sorted by.
 */
export type SnapshotSortKey = 'name' | 'type' | 'size' | 'changed' | 'memory';

/**
 * Server-side sort orders of a snapshot: a key in its own direction (name and type
 * ascending; size, memory and changed largest or latest first), or a key with an
 * explicit direction.
 */
export type SnapshotSort =
  SnapshotSortKey | `${SnapshotSortKey}:asc` | `${SnapshotSortKey}:desc`;

/**
 * Query of `GET kernels/{kernel_id}/variables`.
 */
export interface ISnapshotQuery {
  include?: IncludeGroup[];
  limit?: number;
  offset?: number;
  sort?: SnapshotSort;
  since?: number;
  filter?: string;
  /**
   * Only the variables last bound or changed in this execution count (their
   * `changed_at`), whatever the page and sort; not with `delta` (addition).
   */
  changed_in?: number;
  /**
   * With `since`: only what changed since that generation (`ISnapshot.delta`).
   */
  delta?: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/variables` at a brief detail level (no deltas).
 */
export interface IBriefQuery extends Omit<ISnapshotQuery, 'since' | 'delta'> {
  detail: 'names' | 'schema';
}

/**
 * An access key produced by the probe to reach a child of a value; opaque to us.
 */
export type AccessKey = string | number | boolean | null | AccessKey[];

export interface IAttribute {
  name: string;
  type: string;
}

export interface IChild {
  access_key: AccessKey;
  label: string;
  type: string;
  preview: string;
}

export interface IColumn {
  name: string;
  dtype: string;
}

export interface ITableHead {
  columns: string[];
  index: string[];
  rows: string[][];
}

/**
 * The body of `GET kernels/{kernel_id}/variables/{name}`.
 */
export interface IVariableDetail extends IVariable {
  repr: string;
  repr_truncated: boolean;
  attributes: IAttribute[];
  attributes_total: number;
  children: IChild[];
  children_total: number;
  /*
   * The contract leaves the fields below optional (the server sends them, null when
   * they do not apply).
   */
  columns?: IColumn[] | null;
  columns_total?: number | null;
  head?: ITableHead | null;
  keys?: string[] | null;
  keys_total?: number | null;
  signature?: string | null;
  doc?: string | null;
  llm_repr?: string | null;
  /**
   * The engine of a table that lives in one (a polars LazyFrame, a DuckDB relation,
   * an Ibis table, a PySpark or dask DataFrame), with its plan; null for everything
   * else (addition).
   */
  engine?: IEngineDetail | null;
}

/**
 * The engines whose tables are explored where they live (never collected).
 */
export type EngineName = 'duckdb' | 'polars' | 'ibis' | 'spark' | 'dask';

/**
 * The engine that computed a window, a count or a profile of an engine table.
 */
export interface IEngineInfo {
  name: EngineName | string;
  /**
   * Its name for people: `DuckDB`, `Spark`, …
   */
  title: string;
  /**
   * Always true: the table is a plan, computed when asked.
   */
  lazy: boolean;
  /**
   * The rows counted: the whole table's, or (with a filter) those the filter keeps;
   * null when not counted.
   */
  rows: number | null;
  /**
   * Where the data lives (a database file, scanned paths, a cluster), or null.
   */
  location: string | null;
  /**
   * What the query behind this answer (the window's, the profile's, the count's)
   * took in the engine, or null.
   */
  cost_ms: number | null;
}

/**
 * The engine of an engine table in a variable's detail, with its query plan.
 */
export interface IEngineDetail {
  name: EngineName | string;
  title: string;
  lazy: boolean;
  /**
   * The rows, when the engine knows them without computing (else null).
   */
  rows: number | null;
  location: string | null;
  /**
   * The engine's plan as text (EXPLAIN, a logical plan), at most 4,000 characters
   * (`plan_truncated`).
   */
  plan: string;
  plan_truncated: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}`.
 */
export interface IDetailQuery {
  path?: AccessKey[];
  max_chars?: number;
  /**
   * The real values of a masked (likely secret) variable; never the default.
   */
  reveal?: boolean;
}

/**
 * One entry of a variable's change timeline.
 */
export interface ITimelineEntry {
  execution_count: number;
  change: 'new' | 'modified' | 'removed';
  /**
   * What changed structurally, e.g. `rows 100,000 → 95,991`.
   */
  changes: string[];
}

/**
 * The body of `GET kernels/{kernel_id}/variables/{name}/timeline`: the last `limit`
 * changes of a name, oldest first; `total` = how many the probe recorded.
 */
export interface ITimeline {
  name: string;
  total: number;
  limit: number;
  entries: ITimelineEntry[];
  /**
   * The timeline is complete for the executions after this one; older entries were
   * dropped to bound the probe's memory (null: complete since the probe was installed).
   */
  complete_after: number | null;
  /**
   * Whether the name is bound now.
   */
  exists: boolean;
}

/**
 * The image formats the server captures.
 */
export type ImageMime =
  'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/svg+xml';

/**
 * One image captured from IOPub (`GET kernels/{kernel_id}/images`).
 */
export interface IImage {
  /**
   * The first 16 hex digits of the SHA-256 of the bytes.
   */
  id: string;
  /**
   * The image's ordinal in its kernel (1 for the first captured, never reused), shown
   * as `#seq`; `since` cursors compare against it.
   */
  seq: number;
  mime: ImageMime | string;
  bytes: number;
  width: number | null;
  height: number | null;
  sha256: string;
  execution_count: number | null;
  msg_id: string | null;
  display_id: string | null;
  created_at: string;
  /**
   * The kernel epoch (restarts) when captured; images survive restarts (addition).
   */
  epoch: number;
  /**
   * The kernel generation when captured (addition).
   */
  generation: number;
  /**
   * The code of the cell that displayed it, cut to the server's `image_code_chars`;
   * null when not known (addition).
   */
  code?: string | null;
  /**
   * `code` was cut (addition).
   */
  code_truncated?: boolean;
}

/**
 * The body of `GET kernels/{kernel_id}/images`: oldest first.
 */
export interface IImageList {
  images: IImage[];
  /**
   * Pass back as `since` to get exactly what is new.
   */
  next_since: number;
  /**
   * Images the server holds now (addition).
   */
  total: number;
  /**
   * Images newer than `since` left out by `limit` (addition).
   */
  more: number;
  /**
   * Images evicted from the server's bounded buffer so far.
   */
  dropped: number;
  /**
   * Oversized, undecodable or mislabelled images refused so far.
   */
  rejected: number;
  /**
   * The store keeps the kernel's first `keep_first` images and the latest `keep_last`;
   * a flood drops the ones in between (counted in `dropped`) (additions).
   */
  keep_first?: number;
  keep_last?: number;
}

export interface IImageQuery {
  since?: number;
  limit?: number;
}

export interface IHistoryEntry {
  execution_count: number | null;
  code: string;
  output: string;
  error: { ename: string; evalue: string } | null;
  success: boolean;
  duration_ms: number | null;
  started_at: string | null;
  image_ids: string[];
  /**
   * Images of the step left out of `image_ids` (at most 50 are listed).
   */
  images_omitted: number;
}

/**
 * The body of `GET kernels/{kernel_id}/history`: oldest first.
 */
export interface IHistory {
  total: number;
  kept: number;
  entries: IHistoryEntry[];
}

/**
 * Query of `GET kernels/{kernel_id}/prompt`.
 */
export interface IPromptQuery {
  /**
   * Characters, 200 to 200,000 (server default 6,000).
   */
  budget?: number;
  /**
   * The generation of the assistant's last look.
   */
  since?: number;
  /**
   * Recent steps to include (server default 0).
   */
  history?: number;
  images?: boolean;
}

/**
 * The body of `GET kernels/{kernel_id}/prompt?format=json`.
 */
export interface IPromptResult {
  text: string;
  chars: number;
  /**
   * `ceil(chars / 4)`.
   */
  tokens_estimate: number;
  variables_included: number;
  variables_omitted: number;
  /**
   * Variables marked `hidden_from_prompt`, never named in the text.
   */
  variables_hidden: number;
  /**
   * Pass back as `since` next time to hear only what changed.
   */
  generation: number;
}

/**
 * The body of `PUT .../annotation`: what a person says about a variable for the
 * assistant. The PUT replaces the whole note: a missing field is stored as null/false.
 * Strings are at most 2,000 characters.
 */
export interface IAnnotationUpdate {
  description?: string | null;
  constraints?: string | null;
  hidden_from_prompt?: boolean;
}

/**
 * The stored note (the answer of `PUT .../annotation`).
 */
export interface IAnnotation {
  name: string;
  description: string | null;
  constraints: string | null;
  hidden_from_prompt: boolean;
  updated_at: string;
}

/**
 * The maximum length of a description or constraints text.
 */
export const ANNOTATION_MAX_CHARS = 2000;

/**
 * One column of a rows window: its label, its dtype and its position in the table.
 */
export interface IRowsColumn {
  name: string;
  /**
   * Null when the value has no dtype (records).
   */
  dtype: string | null;
  position: number;
}

/**
 * A row filter computed in the kernel on one column: `contains` (case-insensitive
 * text), `eq`, `ne`, `lt`, `le`, `gt`, `ge` (the value read as the column's type), or
 * `isnull` / `notnull` (no value).
 */
export interface IRowsFilter {
  column: string;
  op: string;
  value?: string | null;
}

/**
 * The body of `GET kernels/{kernel_id}/variables/{name}/rows`: a window of a table or
 * an array. Cells are text formatted by dtype (at most 200 characters); null is a
 * missing value (NaN, None, NaT).
 */
export interface IRowsWindow {
  name: string;
  /**
   * `dataframe`, `series`, `array` or `records`.
   */
  kind: string;
  type: string;
  /**
   * Rows and columns; the rows are null for an engine table not counted.
   */
  shape: (number | null)[];
  /**
   * The rows of the value, or null when an engine's count did not finish within the
   * window's count guard ("not counted": the window still holds its rows).
   */
  total_rows: number | null;
  /**
   * The rows the filter keeps (null without a filter, or not counted); offset and
   * limit page through them.
   */
  filtered_rows: number | null;
  /**
   * The engine that computed the window (a table that lives in one), or null for a
   * value in the kernel's memory.
   */
  engine: IEngineInfo | null;
  /**
   * The filter applied (a condition or a tree), or null.
   */
  filter: FilterNode | null;
  /**
   * The view applied: sort keys and filter (addition; absent from older servers).
   */
  view?: IView;
  offset: number;
  limit: number;
  columns: IRowsColumn[];
  columns_total: number;
  index_name: string | null;
  /**
   * The row labels of the window.
   */
  index: (string | null)[];
  rows: (string | null)[][];
  /**
   * The sort the rows are in, `<column name>:asc|desc`, or null.
   */
  sort: string | null;
  stale: boolean;
  kernel_busy: boolean;
  /**
   * The kernel's epoch (moves on at each restart).
   */
  epoch?: number;
  generation: number;
  /**
   * The execution count at which the variable was last bound or changed.
   */
  changed_at: number | null;
  /**
   * How many cells were cut to the cell budget.
   */
  cells_truncated: number;
  /**
   * Cells whose own repr timed out or was not read within the time budget (their
   * text says which).
   */
  cells_unread: number;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/rows`.
 */
export interface IRowsQuery {
  /**
   * The first row (0-based position), default 0.
   */
  offset?: number;
  /**
   * How many rows, 1..1000 (default 100).
   */
  limit?: number;
  /**
   * Column positions, `start:stop` or `0,3,7` (default `0:100`; at most 100).
   */
  columns?: string;
  /**
   * The sort keys, `price:desc,region:asc` (`:asc` by default), or a JSON list
   * `[{"column": "a,b", "desc": true}]` for names with commas or colons (see
   * `ISortKey`); absent for the table's own order.
   */
  sort?: string;
  /**
   * Keep only the rows that match (sent as JSON): one condition or a tree.
   */
  filter?: FilterNode;
}

/**
 * The operators of a filter condition (`rows`, `profile`, `code`):
 *
 * - `eq ne lt le gt ge`: `value` read as the column's type (text, or a JSON number or
 *   boolean; a value that does not fit the dtype is a 400 naming the column);
 * - `between`, `not_between`: `value` `[low, high]`, both inclusive;
 * - `in`, `not_in`: `value` a list of 1–1,000 items;
 * - `contains not_contains starts_with ends_with regex`: `value` text, `case`
 *   (default false: case-insensitive); `regex` in the column library's dialect;
 * - `isnull notnull empty not_empty is_true is_false`: no `value`.
 *
 * Missing values match only `isnull`: every other condition, negated ones included,
 * is false on a missing value.
 */
export type FilterOp =
  | 'eq'
  | 'ne'
  | 'lt'
  | 'le'
  | 'gt'
  | 'ge'
  | 'between'
  | 'not_between'
  | 'in'
  | 'not_in'
  | 'contains'
  | 'not_contains'
  | 'starts_with'
  | 'ends_with'
  | 'regex'
  | 'isnull'
  | 'notnull'
  | 'empty'
  | 'not_empty'
  | 'is_true'
  | 'is_false';

/**
 * One value of a condition: text (read as the column's type), a number or a boolean.
 */
export type FilterScalar = string | number | boolean;

/**
 * One condition of a filter on a column (its name or position).
 */
export interface IFilterCondition {
  column: string | number;
  op: FilterOp;
  value?: FilterScalar | FilterScalar[];
  /**
   * Text operators only: match case (default false).
   */
  case?: boolean;
}

/**
 * Rows that meet every node.
 */
export interface IFilterAll {
  and: FilterNode[];
}

/**
 * Rows that meet at least one node.
 */
export interface IFilterAny {
  or: FilterNode[];
}

/**
 * A filter: one condition, or a tree of them (at most 50 conditions, depth 5).
 */
export type FilterNode = IFilterCondition | IFilterAll | IFilterAny;

/**
 * One key of the JSON form of `sort`.
 */
export interface ISortKey {
  column: string;
  desc?: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/profile`.
 */
export interface IProfileQuery {
  /**
   * Column positions, `start:stop` or `0,3,7`.
   */
  columns?: string;
  /**
   * Profile the rows this filter keeps.
   */
  filter?: FilterNode;
}

/**
 * What kind of values a column holds, as the profile groups them.
 */
export type ColumnFamily =
  'number' | 'string' | 'category' | 'boolean' | 'datetime' | 'other';

/**
 * One value of a column and how often it occurs.
 */
export interface IValueCount {
  value: string | number | boolean | null;
  count: number;
}

/**
 * The statistics of one column. Fields not relevant to the column's family are absent;
 * `approximate` says they come from a fixed-seed sample (`count` and `null_count`
 * stay exact when cheap).
 */
export interface IColumnProfile {
  name: string;
  position: number;
  dtype: string | null;
  family: ColumnFamily;
  /**
   * Values present, and missing (null only when `error` came first).
   */
  count: number | null;
  null_count: number | null;
  approximate: boolean;
  /**
   * Why the column could not be profiled, or null.
   */
  error: string | null;
  // numbers; datetimes give `min`, `max` and `median` as ISO text
  min?: number | string | null;
  max?: number | string | null;
  mean?: number | null;
  median?: number | string | null;
  std?: number | null;
  /**
   * Keys `5`, `25`, `75`, `95` (percent).
   */
  quantiles?: Record<string, number | null>;
  /**
   * Freedman–Diaconis bins (else Sturges), at most 50: `edges` has one more item.
   */
  histogram?: { edges: number[]; counts: number[] };
  // strings and categories
  distinct?: number;
  empty?: number;
  /**
   * The most frequent values (at most 10), then how many rows hold the others.
   */
  top?: IValueCount[];
  other?: number;
  // booleans
  true?: number;
  false?: number;
}

/**
 * The body of `GET kernels/{kernel_id}/variables/{name}/profile`.
 */
export interface ITableProfile {
  name: string;
  type: string;
  kind: string;
  /**
   * The rows of the value, or null when an engine did not count them in time.
   */
  total_rows: number | null;
  /**
   * The rows the filter keeps, or null without a filter (or not counted).
   */
  filtered_rows: number | null;
  columns_total: number;
  columns: IColumnProfile[];
  /**
   * Columns asked for but not profiled within the time budget.
   */
  columns_cut: number;
  /**
   * The statistics come from a sample of `sample_rows` rows (an engine table: the
   * columns whose full aggregate was cancelled are of the view's first `sample_rows`
   * rows).
   */
  sampled: boolean;
  sample_rows: number | null;
  /**
   * The engine that computed the statistics, or null for a value in memory.
   */
  engine: IEngineInfo | null;
  /**
   * Listed values (top values) cut to the server's cell budget.
   */
  values_truncated: number;
  /**
   * The view applied (filter, columns).
   */
  view: IView;
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
}

/**
 * How rows are chosen, as the server applied it: the sort keys, the filter, and (code,
 * profile) the column positions shown (null: every column).
 */
export interface IView {
  sort: { column: string | number; desc: boolean }[];
  filter: FilterNode | null;
  columns?: number[] | null;
}

/**
 * The languages of the code of a view.
 */
export type CodeSyntax =
  | 'pandas'
  | 'polars'
  | 'dplyr'
  | 'polars_lazy'
  | 'duckdb'
  | 'sql'
  | 'ibis'
  | 'pyspark'
  | 'dask';

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/code`.
 */
export interface ICodeQuery {
  filter?: FilterNode;
  /**
   * As `IRowsQuery.sort`.
   */
  sort?: string;
  /**
   * Column positions, `start:stop` or `0,3,7`, in the order shown.
   */
  columns?: string;
  /**
   * Default: the value's own library (dplyr for R data.frames; an engine table's
   * own syntax); 400 for a syntax that does not fit the value, listing those that do.
   */
  syntax?: CodeSyntax;
}

/**
 * The body of `GET kernels/{kernel_id}/variables/{name}/code`: code that, run in the
 * kernel where `name` lives, binds `{name}_view` to exactly the rows, order and
 * columns of the view.
 */
export interface IViewCode {
  syntax: CodeSyntax;
  /**
   * The code, the import lines it needs first, ending with a newline.
   */
  code: string;
  name: string;
  view: IView;
}

/**
 * Query of `POST kernels/{kernel_id}/variables/{name}/count`.
 */
export interface ICountQuery {
  /**
   * Count the rows this filter keeps (as `IRowsQuery.filter`).
   */
  filter?: FilterNode;
}

/**
 * The body of `POST kernels/{kernel_id}/variables/{name}/count`: the rows of an
 * engine table (or of a table in memory), counted in the engine under a longer guard
 * than a window's; a count past its guard is a 422 saying it was cancelled.
 */
export interface ICountResult {
  name: string;
  type: string;
  /**
   * The rows counted: those the filter keeps when `filtered`, else all.
   */
  rows: number;
  filtered: boolean;
  /**
   * What the count took in the engine.
   */
  cost_ms: number;
  /**
   * The engine that counted, or null for a value in memory.
   */
  engine: IEngineInfo | null;
  /**
   * A busy kernel: the last count of the same query, from before the running cell.
   */
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
}
