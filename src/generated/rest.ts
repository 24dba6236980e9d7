/**
 * The REST API's types and route map, generated from the route table
 * (`jupyter_kernel_state/rest/table.py`) and the JSON Schema of its replies
 * (`jupyter_kernel_state/schema/rest-v1.json`) by `jlpm generate:rest`. Do not edit:
 * change the table or the schema and generate again (a test fails when this file is
 * not what they give).
 */
import type { AccessKey, ITableHead } from '../payloads';

/**
 * The body of `GET kernels`.
 */
export interface IKernelList {
  kernels: IKernelSummary[];
}

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
   * When the last user execution ended (ISO 8601); tools use it to pick the
   * most recently used kernel.
   */
  last_execution_at: string | null;
  /**
   * The notebook or console the kernel belongs to, as the server's session
   * names it (relative to the server's root); null for a kernel without a
   * session.
   */
  path: string | null;
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
   * The variables of the namespace the request lists (the visible names, with
   * the `include` groups), exact, whatever `filter` or `changed_in` select.
   */
  total: number;
  /**
   * The variables `filter` and `changed_in` select (equal to `total` without
   * them): exact, and what `offset` and `limit` page through. Older servers did
   * not send it (their `total` counted the matches).
   */
  matched?: number;
  offset: number;
  limit: number;
  variables: IVariable[];
  /**
   * Names removed since `since` (the generation asked for), newest first; in a
   * delta also the names still bound that the list no longer shows.
   */
  removed: string[];
  /**
   * True when this reply holds only what changed since `since` (asked with
   * `delta=true`): every new or modified entry, not paged, and the removed
   * names. False for a normal page, also when a delta was asked but could not
   * be told exactly (a restart since, a generation too old or unknown, more
   * changes than `limit`): the client then replaces its list.
   */
  delta?: boolean;
  /**
   * The detail level of the entries (query `detail`, default full).
   */
  detail?: 'names' | 'schema' | 'full';
}

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

export type VariableChange = 'new' | 'modified' | 'unchanged';

/**
 * A variable as a snapshot lists it (GET variables): the fields at their
 * default are left out to keep the wire lean, and a reader puts them back:
 * qualname (default: the type), size, shape, dtype, nbytes, memory, error,
 * changed_at, description, constraints, secret_reason (null), truncated,
 * hidden_from_prompt, likely_secret, masked (false), change ("unchanged"),
 * changes ([]).
 */
export interface IListedVariable {
  name: string;
  type: string;
  /**
   * Left out of a snapshot's list when equal to type.
   */
  qualname?: string;
  kind: VariableKind | string;
  size?: number | null;
  shape?: (number | null)[] | null;
  dtype?: string | null;
  nbytes?: number | null;
  preview: string;
  truncated?: boolean;
  error?: string | null;
  change?: VariableChange;
  changed_at?: number | null;
  /**
   * What changed structurally, e.g. `rows 1,000 → 980` (addition; at most 5).
   */
  changes?: string[];
  description?: string | null;
  constraints?: string | null;
  hidden_from_prompt?: boolean;
  /**
   * The name or value looks like a credential: masked in prompts.
   */
  likely_secret?: boolean;
  /**
   * Why it looks like a credential (addition).
   */
  secret_reason?: string | null;
  /**
   * Shallow memory in bytes, cheap: numpy/pandas nbytes (shallow, index
   * included), else a built-in sys.getsizeof of the object itself (not what it
   * refers to); null when only user code could tell.
   */
  memory?: number | null;
  /**
   * The value fields (preview; repr, llm_repr, children previews in a detail)
   * are masked because the variable is a likely secret; GET
   * variables/{name}?reveal=true shows them.
   */
  masked?: boolean;
}

/**
 * A variable with every field (a detail's base; a listed variable with its
 * defaults put back).
 */
export interface IVariable {
  name: string;
  type: string;
  /**
   * Left out of a snapshot's list when equal to type.
   */
  qualname: string;
  kind: VariableKind | string;
  size: number | null;
  shape: (number | null)[] | null;
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
   * The name or value looks like a credential: masked in prompts.
   */
  likely_secret: boolean;
  /**
   * Why it looks like a credential (addition).
   */
  secret_reason: string | null;
  /**
   * Shallow memory in bytes, cheap: numpy/pandas nbytes (shallow, index
   * included), else a built-in sys.getsizeof of the object itself (not what it
   * refers to); null when only user code could tell.
   */
  memory: number | null;
  /**
   * The value fields (preview; repr, llm_repr, children previews in a detail)
   * are masked because the variable is a likely secret; GET
   * variables/{name}?reveal=true shows them.
   */
  masked: boolean;
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
  columns?: IColumn[] | null;
  columns_total?: number | null;
  head?: ITableHead | null;
  keys?: string[] | null;
  keys_total?: number | null;
  signature?: string | null;
  doc?: string | null;
  llm_repr?: string | null;
  /**
   * An engine's table (lazy: `columns` is its schema, `head` null): the engine,
   * its known rows, where its data lives and its plan. Absent or null for every
   * other value.
   */
  engine?: IEngineDetail | null;
}

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
   * The image's ordinal in its kernel: 1 for the first image captured, never
   * reused (an identical picture shown again, or a display updated, is captured
   * again with the next number). Also the `since` cursor of the listing.
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
   * The kernel epoch (restarts) when captured; images survive restarts
   * (addition).
   */
  epoch: number;
  /**
   * The kernel generation when captured (addition).
   */
  generation: number;
  /**
   * The code of the cell that displayed the image, cut to `image_code_chars`
   * (default 2,000); null when unknown (a display updated after its cell was
   * forgotten, or a kernel that sends no execute_input).
   */
  code?: string | null;
  /**
   * `code` was cut to `image_code_chars`.
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
   * Images dropped so far past the caps: the store keeps the first `keep_first`
   * images of the kernel and the latest `keep_last`; a flood drops the ones in
   * between, oldest first.
   */
  dropped: number;
  /**
   * Oversized, undecodable or mislabelled images refused so far.
   */
  rejected: number;
  /**
   * How many of the kernel's first images are kept whatever comes after them
   * (trait `keep_first_images`).
   */
  keep_first?: number;
  /**
   * How many of the latest images are kept (trait `max_images`).
   */
  keep_last?: number;
}

/**
 * The body of `GET kernels/{kernel_id}/history`: oldest first.
 */
export interface IHistory {
  total: number;
  kept: number;
  entries: IHistoryEntry[];
}

export interface IHistoryEntry {
  execution_count: number | null;
  code: string;
  output: string;
  error: null | { ename: string; evalue: string };
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
 * A window of a table or array (GET variables/{name}/rows): at most
 * rows_max_rows rows and rows_max_columns columns, each cell at most
 * rows_cell_chars characters (null = a missing value). For an engine's table
 * (`engine` not null) the window is one query in the engine, its labels the
 * rows' positions in the view, and its counts may be null (not counted within
 * `rows_count_ms`).
 */
export interface IRowsWindow {
  name: string;
  /**
   * `dataframe`, `series`, `array` or `records`.
   */
  kind: 'dataframe' | 'series' | 'array' | 'records' | string;
  type: string;
  /**
   * [rows, columns] (rows null: not counted).
   */
  shape: (number | null)[];
  /**
   * Exact number of rows of the value; null when an engine's count did not
   * finish within `rows_count_ms` (not counted: POST variables/{name}/count
   * counts it).
   */
  total_rows: number | null;
  offset: number;
  limit: number;
  columns: IRowsColumn[];
  columns_total: number;
  index_name: string | null;
  /**
   * Row labels of the window (an engine's table: the rows' positions in the
   * view, as text).
   */
  index: (string | null)[];
  rows: (string | null)[][];
  /**
   * The sort keys applied, as text: price:desc,region:asc (null: the value's
   * own order).
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
   * Execution count at which the variable was last bound or changed.
   */
  changed_at: number | null;
  /**
   * How many cells were cut to the cell budget.
   */
  cells_truncated: number;
  /**
   * Cells whose own repr timed out or was not read within the time budget;
   * their text says which.
   */
  cells_unread: number;
  /**
   * The filter applied (query `filter`): a condition or an and/or tree, or
   * null.
   */
  filter: FilterNode | null;
  /**
   * Exact number of rows the filter keeps (null without a filter, or when an
   * engine's count did not finish within `rows_count_ms`); offset and limit
   * page through them.
   */
  filtered_rows: number | null;
  /**
   * The view applied: sort keys and filter (addition; absent from older
   * servers).
   */
  view?: IView;
  /**
   * The engine that computed the window (null: a table in memory).
   */
  engine: IEngineInfo | null;
}

/**
 * One column of a rows window: its label, its dtype and its position in the
 * table.
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
 * The engine: duckdb, polars (a LazyFrame), ibis, spark (classic and Spark
 * Connect) or dask.
 */
export type EngineName = 'duckdb' | 'polars' | 'ibis' | 'spark' | 'dask';

/**
 * The engine that computed an answer about an engine's table (a DuckDB
 * relation, a polars LazyFrame, an Ibis table, a Spark or dask DataFrame):
 * `engine` of RowsWindow, TableProfile and CountResult; null for a table in
 * memory.
 */
export interface IEngineInfo {
  /**
   * The engine: duckdb, polars (a LazyFrame), ibis, spark (classic and Spark
   * Connect) or dask.
   */
  name: EngineName | string;
  /**
   * The engine's name for people: DuckDB, polars, Ibis (its backend), Spark,
   * dask.
   */
  title: string;
  /**
   * Always true: the table is a plan, computed in its engine, never collected
   * into the kernel.
   */
  lazy: boolean;
  /**
   * The rows counted: the whole table's, or (with a filter) those the filter
   * keeps; null when not counted.
   */
  rows: number | null;
  /**
   * Where the data lives (a database file, scanned paths, a cluster), or null.
   */
  location: string | null;
  /**
   * Milliseconds the engine's query (the window's, the profile's, the count's)
   * took.
   */
  cost_ms: number | null;
}

/**
 * An engine's table in a VariableDetail: what EngineInfo says, read from the
 * plan without computing anything, and the plan's text.
 */
export interface IEngineDetail {
  /**
   * The engine: duckdb, polars (a LazyFrame), ibis, spark (classic and Spark
   * Connect) or dask.
   */
  name: EngineName | string;
  /**
   * The engine's name for people: DuckDB, polars, Ibis (its backend), Spark,
   * dask.
   */
  title: string;
  /**
   * Always true: the table is a plan, computed in its engine, never collected
   * into the kernel.
   */
  lazy: boolean;
  /**
   * The rows, when the engine knows them without computing (else null).
   */
  rows: number | null;
  /**
   * Where the data lives (a database file, scanned paths, a cluster), or null.
   */
  location: string | null;
  /**
   * The engine's plan as text (EXPLAIN, a logical plan), at most 4,000
   * characters.
   */
  plan: string;
  plan_truncated: boolean;
}

/**
 * The rows of a table that a filter keeps (every row without one), counted in
 * the kernel (POST variables/{name}/count): by its engine for an engine's
 * table, under `engine_count_ms`; past it the count is cancelled in the engine
 * (422).
 */
export interface ICountResult {
  name: string;
  /**
   * The value's type name.
   */
  type: string;
  /**
   * The rows counted.
   */
  rows: number;
  /**
   * The count is of the rows the filter keeps.
   */
  filtered: boolean;
  /**
   * Milliseconds the count took (0 when the engine knew it, or it was counted
   * before for this execution).
   */
  cost_ms: number;
  /**
   * The engine that counted (null: a table in memory, counted by its own
   * library).
   */
  engine: IEngineInfo | null;
  /**
   * A busy kernel: the last count of the same query, from before the running
   * cell.
   */
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
}

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
 * Rows kept where a column meets a condition. eq ne lt le gt ge: `value` text
 * or a number or true/false, read as the column's type; between, not_between:
 * `value` [low, high], both included; in, not_in: `value` a list of 1 to 1,000
 * items; contains, not_contains, starts_with, ends_with, regex: `value` text
 * and `case` (default false: case-insensitive; regex in the column library's
 * dialect); isnull, notnull, empty, not_empty, is_true, is_false: no value.
 * Missing values (null, NaN, NaT, None) match only isnull: every other
 * condition, negated ones included, is false on them.
 */
export interface IFilterCondition {
  /**
   * The column's name as listed, or its position.
   */
  column: string | number;
  op: FilterOp;
  value?: FilterScalar | FilterScalar[] | null;
  /**
   * Text operators only: match case (default false).
   */
  case?: boolean;
}

/**
 * One value of a condition: text (read as the column's type), a number or a
 * boolean.
 */
export type FilterScalar = string | number | boolean;

/**
 * A filter: one condition, or {"and": [...]} / {"or": [...]} of nodes, nested;
 * at most 50 conditions in all and 5 trees deep.
 */
export type FilterNode = IFilterCondition | IFilterAll | IFilterAny;

export interface IFilterAll {
  and: FilterNode[];
}

export interface IFilterAny {
  or: FilterNode[];
}

/**
 * How rows are chosen: the sort keys (stable, missing values last), the filter,
 * and (code, profile) the column positions shown (null: every column).
 */
export interface IView {
  sort: { column: string | number; desc: boolean }[];
  filter: FilterNode | null;
  columns?: number[] | null;
}

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
 * The code of a view (GET variables/{name}/code): run in the kernel where
 * `name` lives, it binds `{name}_view` to exactly the rows, order and columns
 * of the view.
 */
export interface IViewCode {
  syntax: CodeSyntax;
  /**
   * The code, import lines first (those it needs), ending with a newline.
   */
  code: string;
  name: string;
  view: IView;
}

/**
 * The statistics of some columns of a table or array (GET
 * variables/{name}/profile), computed in the kernel a column at a time under
 * the time guard, of the rows the filter keeps.
 */
export interface ITableProfile {
  name: string;
  type: string;
  kind: 'dataframe' | 'series' | 'array' | 'records' | string;
  /**
   * The value's rows (null: an engine's table not counted yet).
   */
  total_rows: number | null;
  /**
   * The rows the filter keeps (null without one, or an engine's table not
   * counted yet).
   */
  filtered_rows: number | null;
  columns_total: number;
  columns: IColumnProfile[];
  /**
   * Columns asked for but not profiled: the request's time ran out before them.
   */
  columns_cut: number;
  /**
   * Some statistics come from a sample: more rows than `profile_sample_rows` (a
   * fixed-seed sample), or, for an engine's table, a column whose aggregate was
   * cancelled past `profile_column_ms`, computed again on the view's first
   * `sample_rows` rows.
   */
  sampled: boolean;
  sample_rows: number | null;
  /**
   * Listed values cut to `rows_cell_chars`.
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
  /**
   * The engine that computed the statistics (null: a table in memory).
   */
  engine: IEngineInfo | null;
}

export type ColumnFamily =
  'number' | 'string' | 'category' | 'boolean' | 'datetime' | 'other';

/**
 * The statistics of one column (GET variables/{name}/profile). Only the fields
 * of the column's family are present (none of them when `error` says why the
 * column could not be profiled). Missing values (null, None, NaN, NaT, pd.NA)
 * are counted in `null_count`, never in a statistic; ±inf is counted in `count`
 * and left out of every statistic of a number column. In a sampled table in
 * memory (`approximate`), `count` and `null_count` stay exact and the other
 * statistics come from the sample, counts scaled to the column's size. An
 * engine's column is `approximate` when the engine's aggregates are
 * (approximate quantiles and distinct counts), or when it was computed on the
 * view's first `sample_rows` rows (then every count is of those rows).
 */
export interface IColumnProfile {
  name: string;
  position: number;
  dtype: string | null;
  family: ColumnFamily;
  /**
   * Values present (null only when `error` came first).
   */
  count: number | null;
  null_count: number | null;
  /**
   * The statistics come from the table's sample, or from an engine's
   * approximate aggregates.
   */
  approximate: boolean;
  /**
   * Why the column could not be profiled (its own code raised, or it ran past
   * `profile_column_ms`), or null.
   */
  error: string | null;
  /**
   * Numbers: the smallest finite value (exact for integers); datetimes: ISO
   * text.
   */
  min?: number | string | null;
  max?: number | string | null;
  mean?: number | null;
  /**
   * The 50 % quantile (linear interpolation); datetimes: ISO text, as the
   * column's library computes it.
   */
  median?: number | string | null;
  /**
   * Sample standard deviation (ddof 1; null under 2 values).
   */
  std?: number | null;
  /**
   * Percent → value, linear interpolation (numpy's default).
   */
  quantiles?: Record<string, number | null>;
  /**
   * numpy.histogram's equal-width bins over [min, max] (Freedman–Diaconis,
   * Sturges when the IQR is 0; at most 50): `edges` has one more item than
   * `counts`; both empty without finite values.
   */
  histogram?: { edges: number[]; counts: number[] };
  /**
   * Distinct values (of the sample when approximate).
   */
  distinct?: number;
  /**
   * Empty strings.
   */
  empty?: number;
  /**
   * The most frequent values, count descending, ties in the order they first
   * appear; text cut to `rows_cell_chars` (counted in the profile's
   * `values_truncated`).
   */
  top?: IValueCount[];
  /**
   * Values present that `top` does not list.
   */
  other?: number;
  true?: number;
  false?: number;
}

/**
 * One value of a column and how often it occurs.
 */
export interface IValueCount {
  value: string | number | boolean | null;
  count: number;
}

/**
 * When a variable was new, modified or removed (GET variables/{name}/timeline),
 * oldest first.
 */
export interface ITimeline {
  name: string;
  /**
   * Entries the probe holds for the name (exact for the executions after
   * complete_after).
   */
  total: number;
  limit: number;
  entries: ITimelineEntry[];
  /**
   * The timeline is complete for the executions after this one (null: since the
   * probe was installed); older entries were dropped to keep its memory
   * bounded.
   */
  complete_after: number | null;
  /**
   * Whether the name is bound now.
   */
  exists: boolean;
  /**
   * Executions whose code bound, changed or deleted the name (static analysis
   * of the cell as it ran), the latest lineage_limit, oldest first. Absent: no
   * lineage (R kernels).
   */
  defined_in?: ILineageExecution[];
  /**
   * Executions whose code read the name, the latest lineage_limit, oldest
   * first.
   */
  used_in?: ILineageExecution[];
  /**
   * Executions whose dynamic access (globals(), exec, eval, vars(), setattr on
   * a module, star imports, %store -r, %run) or size kept the names they
   * touched from being told: any name may have been bound or read there.
   */
  unknown?: ILineageExecution[];
  /**
   * Executions whose code did not parse: nothing recorded (they did not run
   * either).
   */
  not_analysed?: ILineageNote[];
  /**
   * Executions held in each lineage list (the lists show the latest
   * lineage_limit).
   */
  lineage_totals?: {
    defined_in: number;
    used_in: number;
    unknown: number;
    not_analysed: number;
  };
  /**
   * The lineage is complete for the executions after this one (null: since the
   * probe was installed).
   */
  lineage_complete_after?: number | null;
}

/**
 * One entry of a variable's change timeline.
 */
export interface ITimelineEntry {
  execution_count: number;
  change: 'new' | 'modified' | 'removed';
  /**
   * Structural changes read from fingerprints ("rows 100,000 → 95,991", "column
   * revenue added").
   */
  changes: string[];
}

/**
 * A variable at detail=names (name, type, kind) or detail=schema (+ sizes,
 * shape, dtype, memory, change, and for tables their first 50 columns with
 * dtypes).
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

export type FindingKind =
  | 'empty_column'
  | 'missing'
  | 'duplicate_rows'
  | 'id_like'
  | 'duplicate_keys'
  | 'constant'
  | 'outliers'
  | 'mixed_types'
  | 'numbers_as_text'
  | 'dates_as_text'
  | 'near_duplicate_labels'
  | 'correlated';

/**
 * error: the column or key is unusable as it stands; warning: the values
 * distort results until fixed; info: a fact that needs no fix.
 */
export type FindingSeverity = 'error' | 'warning' | 'info';

/**
 * One data-quality finding of a table: what, where, how bad, the rows it
 * concerns as a filter the grid can open, and fix code that rebinds the
 * variable to a fixed table (never edits it in place).
 */
export interface IFinding {
  kind: FindingKind;
  /**
   * error: the column or key is unusable as it stands; warning: the values
   * distort results until fixed; info: a fact that needs no fix.
   */
  severity: FindingSeverity;
  /**
   * The columns it is about (two for a correlated pair, none for duplicate
   * rows).
   */
  columns: string[];
  positions: number[];
  /**
   * One short line, e.g. `price: 12 outliers (IQR rule: outside [3.1, 250])`.
   */
  message: string;
  /**
   * The rows it concerns (of the sample when `approximate`).
   */
  count: number;
  /**
   * Computed on a sample or from an engine's approximate aggregates.
   */
  approximate: boolean;
  /**
   * The rows it concerns as a filter tree (combined with the view's filter when
   * both fit the filter limits); null when no filter can say them
   * (`filter_note` says why).
   */
  filter: FilterNode | null;
  filter_note: string | null;
  /**
   * Code in the reply's `syntax` that rebinds the variable to the fixed table;
   * null when no sensible automatic fix exists (`fix_note` says why).
   */
  fix: string | null;
  fix_note: string | null;
  /**
   * The numbers behind it, by kind: `share`; `rule`, `low`, `high`, `q1`,
   * `median`, `q3`; `distinct`; `keys`, `examples`; `groups`, `labels`;
   * `types`; `r`.
   */
  details: Record<string, unknown>;
}

/**
 * The data-quality findings of some columns of a table (GET
 * variables/{name}/findings), of the rows the filter keeps, computed in the
 * kernel under the profile's guards (an engine's table by its aggregates, never
 * collected).
 */
export interface ITableFindings {
  name: string;
  type: string;
  kind: 'dataframe' | 'series' | 'array' | 'records';
  total_rows: number | null;
  filtered_rows: number | null;
  columns_total: number;
  /**
   * Columns asked for but not checked: the request's time ran out before them.
   */
  columns_cut: number;
  /**
   * By severity, then column, then kind; at most `max_findings`.
   */
  findings: IFinding[];
  findings_total: number;
  /**
   * Findings past `max_findings`, not listed.
   */
  findings_cut: number;
  severities: { error: number; warning: number; info: number };
  /**
   * Checks that raised or ran out of time (the rest continued).
   */
  errors: IFindingError[];
  /**
   * Kinds of findings not computed for this table, and why.
   */
  not_checked: IFindingNotChecked[];
  /**
   * The fix code's language.
   */
  syntax: string | null;
  sampled: boolean;
  sample_rows: number | null;
  view: IView;
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
  engine: IEngineInfo | null;
}

export interface IFindingError {
  check: string;
  column?: string | null;
  position?: number | null;
  error: string;
}

export interface IFindingNotChecked {
  kind: string;
  reason: string;
}

/**
 * Two tables compared row by row (GET variables/{name}/compare): `name` (the
 * after) against `with` (the before), by a key, the index or the position; the
 * counts of rows added (only in `name`), removed (only in `with`), changed and
 * unchanged, each compared column's changed cells and summary on both sides,
 * and a window of the rows of `statuses` (kept by `filter`, in the order of
 * `sort`, on the values shown).
 */
export interface ITableComparison {
  /**
   * The table compared (the after).
   */
  name: string;
  /**
   * The table it is compared against (the before): a variable's name, whose
   * version kept as of `with_execution` is compared when that is not null.
   */
  with: string;
  /**
   * The execution count of the kept version of `with` compared against
   * (`with=@12`: the table as it was then, kept on request, POST
   * variables/{name}/kept); null: `with`'s current value.
   */
  with_execution: number | null;
  /**
   * `name`'s type name.
   */
  type: string;
  /**
   * `with`'s type name.
   */
  with_type: string;
  /**
   * The library that compared them (both tables are its DataFrames).
   */
  library: 'pandas' | 'polars';
  /**
   * How rows were matched: the key's columns, the index (unique in both, not
   * both the default 0 … n-1), or the position.
   */
  by: 'key' | 'index' | 'position';
  /**
   * The key's columns (`by` key), else null.
   */
  key: string[] | null;
  /**
   * Why no key was used (`by` index or position): none given, a default or
   * repeating index, a polars table.
   */
  key_note: string | null;
  /**
   * Rows of `name`.
   */
  total_rows: number;
  /**
   * Rows of `with`.
   */
  with_rows: number;
  /**
   * Rows only in `name`.
   */
  added: number;
  /**
   * Rows only in `with`.
   */
  removed: number;
  /**
   * Rows of both with a compared cell that differs.
   */
  changed: number;
  /**
   * Rows of both whose compared cells are all equal.
   */
  unchanged: number;
  /**
   * The compared columns (both tables have them; the key's excepted), in
   * `name`'s order.
   */
  columns: IColumnComparison[];
  /**
   * Columns only `name` has (the first 200).
   */
  only_in_name: string[];
  only_in_name_total: number;
  /**
   * Columns only `with` has (the first 200).
   */
  only_in_with: string[];
  only_in_with_total: number;
  /**
   * Columns of both not compared, and why (a label that repeats in a table;
   * past the first 1,000 compared).
   */
  not_compared: { name: string; reason: string }[];
  not_compared_total: number;
  /**
   * The statuses of the rows the window pages through.
   */
  statuses: ('added' | 'removed' | 'changed' | 'unchanged')[];
  /**
   * Rows of those statuses.
   */
  listed_rows: number;
  /**
   * Those the filter keeps (null without a filter); offset and limit page
   * through them.
   */
  filtered_rows: number | null;
  offset: number;
  limit: number;
  /**
   * The compared columns the window shows (`cells` follow them).
   */
  window_columns: IComparedColumn[];
  rows: IComparedRow[];
  view: IView;
  /**
   * The sort keys applied, as text (null: `name`'s order, the removed rows
   * last).
   */
  sort: string | null;
  /**
   * The filter applied to the rows listed, on the values shown.
   */
  filter: FilterNode | null;
  cells_truncated: number;
  cells_unread: number;
  /**
   * Code that binds `{name}_vs_{with}` to the rows that differ, each with its
   * status (null: see `code_note`).
   */
  code: { syntax: 'pandas' | 'polars' | 'dplyr'; code: string } | null;
  /**
   * Why no code was written (a column label that is no text, an index an R data
   * frame lacks); or, comparing with a kept version, that the code names it
   * `<with>_at_<execution>`, which is no variable of the user's: bind it to
   * that version to run the code.
   */
  code_note: string | null;
  /**
   * Milliseconds the comparison took in the kernel (0 when it was kept from an
   * earlier request: `reused`).
   */
  compare_ms: number;
  /**
   * The comparison was kept from an earlier request of this execution (paging).
   */
  reused: boolean;
  /**
   * A busy kernel: the last window of the same query, from before the running
   * cell.
   */
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
}

export interface IComparedColumn {
  name: string;
  /**
   * Its place in `columns`.
   */
  position: number;
  dtype: string;
  with_dtype: string;
}

/**
 * One compared column: where it is in each table, its dtypes, its changed cells
 * (of the matched rows) and its mean and missing values in each table.
 */
export interface IColumnComparison {
  name: string;
  /**
   * Its position in `name`.
   */
  position: number;
  /**
   * Its position in `with`.
   */
  with_position: number;
  dtype: string;
  with_dtype: string;
  /**
   * Cells that differ among the matched rows (null: not compared, see `error`).
   */
  changed: number | null;
  /**
   * Why the column could not be compared (its values' own comparison raised).
   */
  error: string | null;
  /**
   * Its mean in `name` (numbers only; missing values left out).
   */
  mean: number | null;
  /**
   * Its mean in `with`.
   */
  with_mean: number | null;
  /**
   * Missing values in `name` (null, NaN, NaT).
   */
  nulls: number;
  /**
   * Missing values in `with`.
   */
  with_nulls: number;
}

export type CompareStatus = 'added' | 'removed' | 'changed' | 'unchanged';

/**
 * One row of a comparison's window.
 */
export interface IComparedRow {
  status: CompareStatus;
  /**
   * Its row position in `name` (in `with` for a removed row).
   */
  position: number;
  /**
   * What matched it: its key's cells, its index label, or its position, as
   * text.
   */
  key: (string | null)[];
  /**
   * The cells of `window_columns` as text (null: missing): `name`'s values,
   * `with`'s for a removed row.
   */
  cells: (string | null)[];
  /**
   * A changed row's shown cells that differ, before (`with`) → after (`name`).
   */
  changes: { column: number; before: string | null; after: string | null }[];
  /**
   * Cells of the row that differ, over every compared column.
   */
  changed_cells: number;
}

/**
 * A version of a table kept on request, held by the extension in the kernel
 * (never in the user's namespace).
 */
export interface IKeptVersion {
  /**
   * The variable it is a version of.
   */
  name: string;
  /**
   * The last execution when it was kept: the table as of then
   * (`compare?with=@<execution_count>`).
   */
  execution_count: number;
  /**
   * The copy's type name.
   */
  type: string;
  library: 'pandas' | 'polars';
  rows: number;
  columns: number;
  /**
   * Its memory, measured as the list's `memory` measures a table (its arrays
   * and index; Python objects of an object column are shared with the table,
   * not copied).
   */
  bytes: number;
}

/**
 * The versions of a table kept on request (GET, POST and DELETE
 * variables/{name}/kept): the name's, oldest first; what the kernel's kept
 * versions (every name's) hold against the caps; what this request kept and
 * dropped.
 */
export interface IKeptVersions {
  name: string;
  /**
   * The versions of `name` kept, oldest first.
   */
  versions: IKeptVersion[];
  /**
   * Versions kept in the kernel, every name's.
   */
  kept_total: number;
  /**
   * Bytes they hold.
   */
  bytes_total: number;
  /**
   * The server's `max_kept`.
   */
  max_kept: number;
  /**
   * The server's `max_kept_bytes`.
   */
  max_kept_bytes: number;
  /**
   * The version this request kept (POST; null otherwise).
   */
  kept: IKeptVersion | null;
  /**
   * It replaced the version of the same execution.
   */
  replaced: boolean;
  /**
   * The versions this request dropped: the oldest, to make room (POST with
   * `evict`), or the one deleted (DELETE).
   */
  dropped: IKeptVersion[];
  stale: boolean;
  kernel_busy: boolean;
  epoch: number;
  generation: number;
}

/**
 * One execution in a variable's lineage (defined_in, used_in, unknown).
 */
export interface ILineageExecution {
  execution_count: number;
  /**
   * The notebook cell's id when the frontend sent it (ipykernel ≥ 6), else
   * null.
   */
  cell_id: string | null;
  /**
   * The head of the cell's code (an ellipsis when cut).
   */
  code: string;
  /**
   * defined_in: bound (assigned, imported, def/class, loop or with target),
   * changed (through an item or attribute, or augmented assignment), deleted
   * (del).
   */
  kind?: 'bound' | 'changed' | 'deleted';
  /**
   * used_in: read only inside a function or lambda body the cell defined (a
   * global read when it is called).
   */
  in_function?: boolean;
  /**
   * unknown: the dynamic access seen ("globals()", "exec()", "from m import *",
   * "%store", "not analysed: cell over 20,000 characters").
   */
  reasons?: string[];
}

/**
 * An execution whose code was not analysed, and why (nothing recorded).
 */
export interface ILineageNote {
  execution_count: number;
  cell_id: string | null;
  reason: string;
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
 * A snapshot's order: a key in its own direction (name and type ascending;
 * size, memory and changed largest or latest first), or a key with an explicit
 * direction.
 */
export type SnapshotSort =
  SnapshotSortKey | `${SnapshotSortKey}:asc` | `${SnapshotSortKey}:desc`;

/**
 * Query of `GET kernels/{kernel_id}/variables`.
 */
export interface IVariablesQuery {
  /**
   * Comma list of the groups of names shown besides the public ones.
   */
  include?: IncludeGroup[];
  /**
   * Page size. Default: the server's `page_size` (500). Clamped to the server's
   * `max_page_size` (10,000).
   */
  limit?: number;
  /**
   * Page start. Clamped to 4,611,686,018,427,387,904.
   */
  offset?: number;
  /**
   * Order: name, type (A to Z), size, memory, changed (largest or latest
   * first), each optionally with `:asc` or `:desc` (`memory:asc`); unknown
   * values last either way.
   */
  sort?: SnapshotSort;
  /**
   * Generation to compute `change` against (default: the previous execution).
   */
  since?: number;
  /**
   * Only names or type names matching this case-insensitive glob (`*` and `?`);
   * plain text matches anywhere. `matched` counts the matches; `total` stays
   * the namespace's count.
   */
  filter?: string;
  /**
   * Only the variables last bound or changed in this execution (an execution
   * count, as in `changed_at`), whatever the page and sort: `matched` counts
   * them, `offset` and `limit` page through them. Not with `delta`. Python and
   * R kernels (501 from a probe that cannot apply it). Clamped to
   * 4,611,686,018,427,387,904.
   */
  changed_in?: number;
  /**
   * Only the variables the last execution of this notebook cell (its id, as
   * JupyterLab sends it) bound or read, from the lineage (see the timeline),
   * whatever the page and sort: `matched` counts them. None for a cell not run
   * (or not analysed). Not with `delta`. Python kernels (R: 501).
   */
  used_by_cell?: string;
  /**
   * With `since`: only what changed since that generation — every new or
   * modified entry (not paged, at most `limit`) and the removed names, with
   * `delta: true` and the exact `matched`. When that cannot be told exactly (a
   * restart since, a generation too old or unknown, more changes than `limit`)
   * the answer is a normal page with `delta: false`.
   */
  delta?: boolean;
  /**
   * `names` (name, type, kind), `schema` (+ size, shape, dtype, nbytes, memory,
   * and for tables `columns` with dtypes, at most 50, and `columns_total`) or
   * `full` (every field).
   */
  detail?: 'names' | 'schema' | 'full';
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}`.
 */
export interface IDetailQuery {
  /**
   * JSON array of `access_key` values from `children`.
   */
  path?: AccessKey[];
  /**
   * Characters of the repr. Default: the server's `detail_chars` (10,000).
   * Clamped to the server's `max_detail_chars` (65,536).
   */
  max_chars?: number;
  /**
   * Show a likely secret's value (`masked: false`). Without it, `preview`,
   * `repr`, `llm_repr` and children previews of a likely secret are masked,
   * here and in every other response.
   */
  reveal?: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/rows`.
 */
export interface IRowsQuery {
  /**
   * First row.
   */
  offset?: number;
  /**
   * Rows. Clamped to the server's `rows_max_rows` (1,000).
   */
  limit?: number;
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `rows_max_columns` (100).
   */
  columns?: string;
  /**
   * Sort keys: `price:desc,region:asc` (comma-separated, each split at its last
   * colon, `:asc` by default), or a JSON list `[{"column": "a,b", "desc":
   * true}]` for names with commas or colons; at most 10. Stable; missing values
   * last in both directions.
   */
  sort?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `POST kernels/{kernel_id}/variables/{name}/count`.
 */
export interface ICountQuery {
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/code`.
 */
export interface ICodeQuery {
  /**
   * The columns shown, in order: a range `start:stop` or a list `0,3,7` of
   * positions; default every column.
   */
  columns?: string;
  /**
   * Sort keys: `price:desc,region:asc` (comma-separated, each split at its last
   * colon, `:asc` by default), or a JSON list `[{"column": "a,b", "desc":
   * true}]` for names with commas or colons; at most 10. Stable; missing values
   * last in both directions.
   */
  sort?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * The code's language; default the value's own library, or its engine's (400
   * for a syntax that does not fit the value, listing those that do).
   */
  syntax?: CodeSyntax;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/profile`.
 */
export interface IProfileQuery {
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `profile_max_columns` (100).
   */
  columns?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/findings`.
 */
export interface IFindingsQuery {
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `profile_max_columns` (100).
   */
  columns?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Findings listed, the most severe first (`findings_cut` counts the rest).
   * Clamped to 1,000.
   */
  max_findings?: number;
  /**
   * The fix code's language: pandas, polars, dplyr or duckdb; default the
   * value's own library (400 for one that does not fit the value).
   */
  syntax?: 'pandas' | 'polars' | 'dplyr' | 'duckdb';
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/compare`.
 */
export interface ICompareQuery {
  /**
   * The table compared against (the before; `name` is the after): a variable's
   * name, or a version kept on request (POST …/kept): `@12` (or `12`) for
   * `name` as of execution 12, `raw@12` for another's. Required (a 400 without
   * it); a version not kept is a 404 listing those that are.
   */
  with?: string;
  /**
   * The columns that identify a row in both tables, by name: `id` or
   * `region,day` (comma-separated), or a JSON list `["a,b", "c"]` for names
   * with commas; at most 10. Default: the index when meaningful, else the
   * position.
   */
  key?: string;
  /**
   * The rows the window lists, comma-separated (default added,removed,changed).
   */
  status?: CompareStatus[];
  /**
   * First listed row.
   */
  offset?: number;
  /**
   * Rows. Clamped to the server's `rows_max_rows` (1,000).
   */
  limit?: number;
  /**
   * The compared columns shown, as positions in the reply's `columns` list: a
   * range `start:stop` or a list `0,3,7`; default the first ones, as many as
   * allowed. At most the server's `rows_max_columns` (100).
   */
  columns?: string;
  /**
   * Sort keys: `price:desc,region:asc` (comma-separated, each split at its last
   * colon, `:asc` by default), or a JSON list `[{"column": "a,b", "desc":
   * true}]` for names with commas or colons; at most 10. Stable; missing values
   * last in both directions.
   */
  sort?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * The code's language: pandas, polars or dplyr; default the tables' own
   * library (400 for one that does not fit).
   */
  syntax?: 'pandas' | 'polars' | 'dplyr';
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `POST kernels/{kernel_id}/variables/{name}/kept`.
 */
export interface IKeepQuery {
  /**
   * Drop the oldest kept versions (every name's) to make room under the caps,
   * instead of refusing (409).
   */
  evict?: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}/timeline`.
 */
export interface ITimelineQuery {
  /**
   * Entries, the latest. Clamped to 100.
   */
  limit?: number;
  /**
   * Executions per lineage list, the latest. Clamped to 100.
   */
  lineage_limit?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/images`.
 */
export interface IImageQuery {
  /**
   * Only images with `seq` greater than this.
   */
  since?: number;
  /**
   * At most this many. Default: the server's `keep_first_images + max_images`
   * (60). Clamped to the server's `keep_first_images + max_images` (60).
   */
  limit?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/images/{image_id}`.
 */
export interface IImageBytesQuery {
  /**
   * Adds `Content-Disposition: attachment` (any value but 0 or false).
   */
  download?: boolean;
}

/**
 * Query of `GET kernels/{kernel_id}/history`.
 */
export interface IHistoryQuery {
  /**
   * Entries, the latest. Clamped to the server's `history_entries` (100).
   */
  limit?: number;
}

/**
 * Query of `GET kernels/{kernel_id}/prompt`.
 */
export interface IPromptQuery {
  /**
   * Characters of the text. Clamped to 200,000.
   */
  budget?: number;
  /**
   * Generation of the assistant's last look.
   */
  since?: number;
  /**
   * Recent steps to include. Clamped to the server's `history_entries` (100).
   */
  history?: number;
  /**
   * Mention images produced since.
   */
  images?: boolean;
  /**
   * The reply: the text itself, or PromptResult.
   */
  format?: 'text' | 'json';
}

/**
 * Query of `GET files/rows`.
 */
export interface IFileRowsQuery {
  /**
   * The file's path under the server's root, as the file browser says it
   * (`data/sales.parquet`): .csv, .tsv, .parquet, .jsonl, .ndjson or .xlsx.
   * Symlinks are resolved: a file outside the root is a 403; a hidden file
   * (unless `ContentsManager.allow_hidden`) a 404.
   */
  path?: string;
  /**
   * First row.
   */
  offset?: number;
  /**
   * Rows. Clamped to the server's `rows_max_rows` (1,000).
   */
  limit?: number;
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `rows_max_columns` (100).
   */
  columns?: string;
  /**
   * Sort keys: `price:desc,region:asc` (comma-separated, each split at its last
   * colon, `:asc` by default), or a JSON list `[{"column": "a,b", "desc":
   * true}]` for names with commas or colons; at most 10. Stable; missing values
   * last in both directions.
   */
  sort?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET files/profile`.
 */
export interface IFileProfileQuery {
  /**
   * The file's path under the server's root, as the file browser says it
   * (`data/sales.parquet`): .csv, .tsv, .parquet, .jsonl, .ndjson or .xlsx.
   * Symlinks are resolved: a file outside the root is a 403; a hidden file
   * (unless `ContentsManager.allow_hidden`) a 404.
   */
  path?: string;
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `profile_max_columns` (100).
   */
  columns?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET files/findings`.
 */
export interface IFileFindingsQuery {
  /**
   * The file's path under the server's root, as the file browser says it
   * (`data/sales.parquet`): .csv, .tsv, .parquet, .jsonl, .ndjson or .xlsx.
   * Symlinks are resolved: a file outside the root is a 403; a hidden file
   * (unless `ContentsManager.allow_hidden`) a 404.
   */
  path?: string;
  /**
   * Column positions: a range `start:stop` or a list `0,3,7`; default the first
   * ones, as many as allowed. At most the server's `profile_max_columns` (100).
   */
  columns?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * Findings listed, the most severe first (`findings_cut` counts the rest).
   * Clamped to 1,000.
   */
  max_findings?: number;
  /**
   * The fix code's language: duckdb (default) or dplyr.
   */
  syntax?: 'pandas' | 'polars' | 'dplyr' | 'duckdb';
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * Query of `GET files/code`.
 */
export interface IFileCodeQuery {
  /**
   * The file's path under the server's root, as the file browser says it
   * (`data/sales.parquet`): .csv, .tsv, .parquet, .jsonl, .ndjson or .xlsx.
   * Symlinks are resolved: a file outside the root is a 403; a hidden file
   * (unless `ContentsManager.allow_hidden`) a 404.
   */
  path?: string;
  /**
   * The columns shown, in order: a range `start:stop` or a list `0,3,7` of
   * positions; default every column.
   */
  columns?: string;
  /**
   * Sort keys: `price:desc,region:asc` (comma-separated, each split at its last
   * colon, `:asc` by default), or a JSON list `[{"column": "a,b", "desc":
   * true}]` for names with commas or colons; at most 10. Stable; missing values
   * last in both directions.
   */
  sort?: string;
  /**
   * JSON: one condition `{"column": "price", "op": "gt", "value": 10}` or a
   * tree `{"or": [<node>, ...]}` / `{"and": [...]}` (at most 50 conditions, 5
   * deep); see FilterCondition for the ops and their values. Each value is read
   * as its column's type (400 naming the column and its dtype when it does not
   * fit). Missing values match only isnull. `filtered_rows` counts the rows
   * kept.
   */
  filter?: FilterNode;
  /**
   * The code's language.
   */
  syntax?: 'pandas' | 'polars' | 'duckdb' | 'dplyr';
  /**
   * A directory (an API path, `analysis/`) the file's path is written from, as
   * a kernel started there sees it; default the server's root.
   */
  relative_to?: string;
  /**
   * Time (ms) this request may spend in the kernel, when the server's guards
   * are too short for it (a sort of a billion rows in an engine): every guard
   * of the request (reads, sort, filter, count, each profile column) is set to
   * it and the reply is awaited that long. Default: the server's guards. A
   * request past it is cancelled as at the defaults (422). At most the server's
   * `max_request_budget_ms` (60,000).
   */
  budget_ms?: number;
}

/**
 * The body of `PUT .../annotation`: what a person says about a variable for the
 * assistant. The PUT replaces the whole note: a missing field is stored as
 * null/false.
 */
export interface IAnnotationUpdate {
  description?: string | null;
  constraints?: string | null;
  hidden_from_prompt?: boolean;
}

/**
 * The maximum length of a description or constraints text.
 */
export const ANNOTATION_MAX_CHARS = 2000;

/**
 * The fields a snapshot's list leaves out when they hold their default (the
 * lean wire: `ListedVariable` in the schema); `qualname` is left out when it
 * equals `type`.
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
 * A route's path segments, query, reply and body, as the frontend reads them.
 */
export interface IRoute<P, Q, R, B = never> {
  path: P;
  query: Q;
  reply: R;
  body: B;
}

export type NoSegments = Record<never, never>;
export type NoQuery = Record<string, never>;
export type KernelPath = { kernel_id: string };
export type VariablePath = KernelPath & { name: string };
export type ImagePath = KernelPath & { image_id: string };
export type KeptPath = VariablePath & { execution: number };

/**
 * Every route of the REST API by name (`jupyter_kernel_state/rest/table.py`).
 */
export interface IRouteMap {
  /**
   * Running kernels with their state counters and notebook paths.
   */
  kernels: IRoute<NoSegments, NoQuery, IKernelList>;
  /**
   * A snapshot of the kernel's variables (one page, exact counts).
   */
  variables: IRoute<KernelPath, IVariablesQuery, ISnapshot>;
  /**
   * One variable in depth, or one of its children.
   */
  variable: IRoute<VariablePath, IDetailQuery, IVariableDetail>;
  /**
   * Delete a variable from the kernel's namespace.
   */
  delete_variable: IRoute<VariablePath, NoQuery, void>;
  /**
   * A window of a table or array (the data explorer).
   */
  rows: IRoute<VariablePath, IRowsQuery, IRowsWindow>;
  /**
   * Count a table's rows (those a filter keeps), in its engine.
   */
  count: IRoute<VariablePath, ICountQuery, ICountResult>;
  /**
   * The code of a view: the rows, order and columns the explorer shows.
   */
  code: IRoute<VariablePath, ICodeQuery, IViewCode>;
  /**
   * The statistics of a table's columns (of the rows a filter keeps).
   */
  profile: IRoute<VariablePath, IProfileQuery, ITableProfile>;
  /**
   * Data-quality findings of a table, each with its rows and fix code.
   */
  findings: IRoute<VariablePath, IFindingsQuery, ITableFindings>;
  /**
   * Two tables compared row by row: rows added, removed and changed, the
   * changed cells.
   */
  compare: IRoute<VariablePath, ICompareQuery, ITableComparison>;
  /**
   * Keep this version of a table, to compare the table with it later.
   */
  keep: IRoute<VariablePath, IKeepQuery, IKeptVersions>;
  /**
   * The versions of a table kept, and how much of the caps the kernel's use.
   */
  kept: IRoute<VariablePath, NoQuery, IKeptVersions>;
  /**
   * Drop a kept version of a table.
   */
  drop_kept: IRoute<KeptPath, NoQuery, IKeptVersions>;
  /**
   * When a variable was bound, changed or removed, and how.
   */
  timeline: IRoute<VariablePath, ITimelineQuery, ITimeline>;
  /**
   * Describe a variable, state its constraints, or hide it from assistants.
   */
  annotate: IRoute<VariablePath, NoQuery, IAnnotation, IAnnotationUpdate>;
  /**
   * Remove a variable's annotation.
   */
  clear_annotation: IRoute<VariablePath, NoQuery, void>;
  /**
   * Images the kernel produced (captured from IOPub).
   */
  images: IRoute<KernelPath, IImageQuery, IImageList>;
  /**
   * The bytes of one image.
   */
  image: IRoute<ImagePath, IImageBytesQuery, Blob>;
  /**
   * Recent user executions rebuilt from IOPub.
   */
  history: IRoute<KernelPath, IHistoryQuery, IHistory>;
  /**
   * The token-budgeted text an assistant receives.
   */
  prompt: IRoute<KernelPath, IPromptQuery, IPromptResult>;
  /**
   * A window of a table file (CSV, TSV, Parquet, JSON Lines, Excel), no kernel
   * needed.
   */
  file_rows: IRoute<NoSegments, IFileRowsQuery, IRowsWindow>;
  /**
   * The statistics of a table file's columns.
   */
  file_profile: IRoute<NoSegments, IFileProfileQuery, ITableProfile>;
  /**
   * The data-quality findings of a table file.
   */
  file_findings: IRoute<NoSegments, IFileFindingsQuery, ITableFindings>;
  /**
   * The code that loads a table file with a view's filter, sort and columns.
   */
  file_code: IRoute<NoSegments, IFileCodeQuery, IViewCode>;
}

/**
 * How one route is sent (`ROUTES`).
 */
export interface IRouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /**
   * Under `{baseUrl}api/kernel-state/`, with `{segment}`s from the route's
   * path.
   */
  path: string;
  status: 200 | 204;
  reply: 'json' | 'snapshot' | 'blob' | 'empty';
  large: boolean;
  query: { readonly [name: string]: QueryEncoding };
}

/**
 * How a query value is written: a number, text, a comma list, JSON, a boolean,
 * or a flag (left out when false).
 */
export type QueryEncoding =
  'number' | 'text' | 'list' | 'json' | 'boolean' | 'flag';

/**
 * How `request()` sends each route: its method and path, the status of success,
 * how the reply is read and how each query value is written; `large`: the query
 * may go in a JSON body (POST) when too long for a URL.
 */
export const ROUTES: { readonly [K in keyof IRouteMap]: IRouteSpec } = {
  kernels: {
    method: 'GET',
    path: 'kernels',
    status: 200,
    reply: 'json',
    large: false,
    query: {}
  },
  variables: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables',
    status: 200,
    reply: 'snapshot',
    large: false,
    query: {
      include: 'list',
      limit: 'number',
      offset: 'number',
      sort: 'text',
      since: 'number',
      filter: 'text',
      changed_in: 'number',
      used_by_cell: 'text',
      delta: 'flag',
      detail: 'text'
    }
  },
  variable: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}',
    status: 200,
    reply: 'json',
    large: true,
    query: { path: 'json', max_chars: 'number', reveal: 'flag' }
  },
  delete_variable: {
    method: 'DELETE',
    path: 'kernels/{kernel_id}/variables/{name}',
    status: 204,
    reply: 'empty',
    large: false,
    query: {}
  },
  rows: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/rows',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      offset: 'number',
      limit: 'number',
      columns: 'text',
      sort: 'text',
      filter: 'json',
      budget_ms: 'number'
    }
  },
  count: {
    method: 'POST',
    path: 'kernels/{kernel_id}/variables/{name}/count',
    status: 200,
    reply: 'json',
    large: true,
    query: { filter: 'json', budget_ms: 'number' }
  },
  code: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/code',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      columns: 'text',
      sort: 'text',
      filter: 'json',
      syntax: 'text',
      budget_ms: 'number'
    }
  },
  profile: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/profile',
    status: 200,
    reply: 'json',
    large: true,
    query: { columns: 'text', filter: 'json', budget_ms: 'number' }
  },
  findings: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/findings',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      columns: 'text',
      filter: 'json',
      max_findings: 'number',
      syntax: 'text',
      budget_ms: 'number'
    }
  },
  compare: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/compare',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      with: 'text',
      key: 'text',
      status: 'list',
      offset: 'number',
      limit: 'number',
      columns: 'text',
      sort: 'text',
      filter: 'json',
      syntax: 'text',
      budget_ms: 'number'
    }
  },
  keep: {
    method: 'POST',
    path: 'kernels/{kernel_id}/variables/{name}/kept',
    status: 200,
    reply: 'json',
    large: false,
    query: { evict: 'flag' }
  },
  kept: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/kept',
    status: 200,
    reply: 'json',
    large: false,
    query: {}
  },
  drop_kept: {
    method: 'DELETE',
    path: 'kernels/{kernel_id}/variables/{name}/kept/{execution}',
    status: 200,
    reply: 'json',
    large: false,
    query: {}
  },
  timeline: {
    method: 'GET',
    path: 'kernels/{kernel_id}/variables/{name}/timeline',
    status: 200,
    reply: 'json',
    large: false,
    query: { limit: 'number', lineage_limit: 'number' }
  },
  annotate: {
    method: 'PUT',
    path: 'kernels/{kernel_id}/variables/{name}/annotation',
    status: 200,
    reply: 'json',
    large: false,
    query: {}
  },
  clear_annotation: {
    method: 'DELETE',
    path: 'kernels/{kernel_id}/variables/{name}/annotation',
    status: 204,
    reply: 'empty',
    large: false,
    query: {}
  },
  images: {
    method: 'GET',
    path: 'kernels/{kernel_id}/images',
    status: 200,
    reply: 'json',
    large: false,
    query: { since: 'number', limit: 'number' }
  },
  image: {
    method: 'GET',
    path: 'kernels/{kernel_id}/images/{image_id}',
    status: 200,
    reply: 'blob',
    large: false,
    query: { download: 'flag' }
  },
  history: {
    method: 'GET',
    path: 'kernels/{kernel_id}/history',
    status: 200,
    reply: 'json',
    large: false,
    query: { limit: 'number' }
  },
  prompt: {
    method: 'GET',
    path: 'kernels/{kernel_id}/prompt',
    status: 200,
    reply: 'json',
    large: false,
    query: {
      budget: 'number',
      since: 'number',
      history: 'number',
      images: 'boolean',
      format: 'text'
    }
  },
  file_rows: {
    method: 'GET',
    path: 'files/rows',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      path: 'text',
      offset: 'number',
      limit: 'number',
      columns: 'text',
      sort: 'text',
      filter: 'json',
      budget_ms: 'number'
    }
  },
  file_profile: {
    method: 'GET',
    path: 'files/profile',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      path: 'text',
      columns: 'text',
      filter: 'json',
      budget_ms: 'number'
    }
  },
  file_findings: {
    method: 'GET',
    path: 'files/findings',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      path: 'text',
      columns: 'text',
      filter: 'json',
      max_findings: 'number',
      syntax: 'text',
      budget_ms: 'number'
    }
  },
  file_code: {
    method: 'GET',
    path: 'files/code',
    status: 200,
    reply: 'json',
    large: true,
    query: {
      path: 'text',
      columns: 'text',
      sort: 'text',
      filter: 'json',
      syntax: 'text',
      relative_to: 'text',
      budget_ms: 'number'
    }
  }
};
