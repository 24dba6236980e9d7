/**
 * Public types and the service token of jupyter_kernel_state. The REST payload types
 * and queries, generated from the server's route table and JSON Schema
 * (`generated/rest.ts`, through `payloads.ts`), are re-exported here.
 */
import { Token } from '@lumino/coreutils';
import { IDisposable } from '@lumino/disposable';
import { ISignal } from '@lumino/signaling';

import {
  AccessKey,
  IAnnotation,
  IAnnotationUpdate,
  IBriefQuery,
  IBriefSnapshot,
  ICodeQuery,
  ICompareQuery,
  ICountQuery,
  ICountResult,
  IDetailQuery,
  IFileCodeQuery,
  IFileFindingsQuery,
  IFileProfileQuery,
  IFileRowsQuery,
  IFindingsQuery,
  IHistory,
  IImageList,
  IKernelList,
  IKeptVersions,
  IncludeGroup,
  IProfileQuery,
  IPromptQuery,
  IPromptResult,
  IRowsQuery,
  IRowsWindow,
  ISnapshot,
  ISnapshotQuery,
  ITableComparison,
  ITableFindings,
  ITableProfile,
  ITimeline,
  IVariableDetail,
  IViewCode,
  SnapshotSort
} from './payloads';

export * from './payloads';

/**
 * Where the sidebar stands, in the order a user meets the states.
 *
 * - `no-kernel`: no notebook or console with a kernel is active.
 * - `loading`: a kernel is attached and the first snapshot is on its way.
 * - `ready`: a snapshot is shown.
 * - `unsupported`: the kernel's language has no probe (501).
 * - `error`: the last request failed; `error` holds the server's message.
 */
export type KernelStateStatus =
  'no-kernel' | 'loading' | 'ready' | 'unsupported' | 'error';

/**
 * The kernel the service follows.
 */
export interface IKernelInfo {
  id: string;
  /**
   * The kernel spec's display name when known, else its name.
   */
  name: string;
  /**
   * The label of the notebook or console the kernel belongs to.
   */
  source: string;
  /**
   * The path of the notebook (relative to the server's root) when the kernel belongs
   * to a document; absent for a console.
   */
  path?: string;
}

/**
 * Read-only view of the kernel-state model.
 */
export interface IKernelStateModel extends IDisposable {
  readonly changed: ISignal<IKernelStateModel, void>;
  readonly status: KernelStateStatus;
  readonly kernel: IKernelInfo | null;
  readonly snapshot: ISnapshot | null;
  readonly error: string | null;
  /**
   * The snapshot is older than the running cell (`stale && kernel_busy`).
   */
  readonly isBusy: boolean;
  /**
   * The kernel restarted and no cell has run since: variables from before are gone.
   */
  readonly restarted: boolean;
}

/**
 * Options of the snapshots the service fetches.
 */
export interface IKernelStateOptions {
  include: IncludeGroup[];
  limit: number;
  sort: SnapshotSort;
  /**
   * A case-insensitive glob on names or type names, applied by the server before paging
   * (plain text matches anywhere); empty for all.
   */
  filter?: string;
}

/**
 * Emitted by the service when a user execution on the followed kernel ended.
 */
export interface IExecutedArgs {
  kernelId: string;
  /**
   * The `msg_id` of the `execute_request`.
   */
  msgId: string;
}

/**
 * Every route of the server's REST API (`{baseUrl}api/kernel-state/`, see
 * `docs/rest-api.md`), as typed requests and replies. This is the one door of the
 * frontend to the server: views, models and other extensions call these methods, and
 * only the REST module behind them (`restapi.ts`) makes HTTP requests.
 *
 * Each method acts on the followed kernel unless `kernelId` names another one (a Data
 * Explorer tab keeps the kernel it was opened on), and rejects with `Error('No
 * kernel')` when there is none. REST failures reject with
 * `ServerConnection.ResponseError` carrying the server's message and status (409 a
 * busy kernel or a lazy value, 503 with `Retry-After`, …).
 *
 * Routes land here with their types generated from the route table
 * (`generated/rest.ts`, `IRouteMap`). A jest test (`serviceRoutes.spec.ts`) fails while
 * a route of `docs/openapi.json` has no method here.
 */
export interface IKernelStateRequests {
  /**
   * `GET kernels`: the kernels the server runs, each with its variable count.
   */
  kernels(): Promise<IKernelList>;
  /**
   * `GET variables`: a page of variables for a query of your own (ETag-cached: an
   * unchanged page costs a 304); `{since, delta: true}` asks only what changed.
   * Leaves the model and the service's options alone.
   */
  variables(query?: ISnapshotQuery, kernelId?: string): Promise<ISnapshot>;
  /**
   * `GET variables?detail=names|schema`: brief entries, e.g. for completions:
   * `{ detail: 'names', filter: 'sa*', limit: 50 }`.
   */
  listVariables(query: IBriefQuery, kernelId?: string): Promise<IBriefSnapshot>;
  /**
   * `GET variables/{name}`: one variable's detail, drilling into children along
   * `path` (the `access_key`s of `children`).
   */
  inspect(
    name: string,
    path?: AccessKey[],
    kernelId?: string
  ): Promise<IVariableDetail>;
  /**
   * `GET variables/{name}` with every option: `path`, `max_chars`, and `reveal: true`
   * for the real values of a masked (likely secret) variable.
   */
  detail(
    name: string,
    query?: IDetailQuery,
    kernelId?: string
  ): Promise<IVariableDetail>;
  /**
   * `GET variables/{name}/rows`: a window of a table, series or array (400 not a
   * table, 409 a lazy value, 422 the value's own code raised).
   */
  rows(
    name: string,
    query?: IRowsQuery,
    kernelId?: string
  ): Promise<IRowsWindow>;
  /**
   * `GET variables/{name}/profile`: statistics of the columns asked (`columns` as in
   * `rows`), of the rows `filter` keeps when given (400 a bad filter, 409 a lazy
   * value); `columns_cut` counts the columns left out for the time budget.
   */
  profile(
    name: string,
    query?: IProfileQuery,
    kernelId?: string
  ): Promise<ITableProfile>;
  /**
   * `GET variables/{name}/findings`: the data-quality findings of the rows `filter`
   * keeps (of the columns asked, as in `profile`), the most severe first, at most
   * `max_findings`; each with its rows as a filter and its fix code in `syntax`
   * (default: the value's own library; 400 one that does not fit the value).
   */
  findings(
    name: string,
    query?: IFindingsQuery,
    kernelId?: string
  ): Promise<ITableFindings>;
  /**
   * `POST variables/{name}/count`: the rows of a table (those `filter` keeps when
   * given), counted in its engine under a longer guard than a window's — for an
   * engine table whose window said "not counted" (`total_rows: null`). 422 when the
   * engine raised or the count was cancelled in the engine past its guard.
   */
  count(
    name: string,
    query?: ICountQuery,
    kernelId?: string
  ): Promise<ICountResult>;
  /**
   * `GET variables/{name}/code`: code that binds `{name}_view` to the rows, order and
   * columns of a view (`filter`, `sort`, `columns`), in `syntax` (default: the
   * value's own library; an engine table's own syntax).
   */
  code(name: string, query?: ICodeQuery, kernelId?: string): Promise<IViewCode>;
  /**
   * `GET files/rows?path=`: a window of a table file under the server's root (CSV,
   * TSV, Parquet, JSON Lines, Excel), read by the server's DuckDB worker — no kernel
   * (403 outside the root, 404 missing or hidden, 413 too large, 422 not what its
   * extension says).
   */
  fileRows(
    path: string,
    query?: Omit<IFileRowsQuery, 'path'>
  ): Promise<IRowsWindow>;
  /**
   * `GET files/profile?path=`: the statistics of a table file's columns.
   */
  fileProfile(
    path: string,
    query?: Omit<IFileProfileQuery, 'path'>
  ): Promise<ITableProfile>;
  /**
   * `GET files/findings?path=`: the data-quality findings of a table file.
   */
  fileFindings(
    path: string,
    query?: Omit<IFileFindingsQuery, 'path'>
  ): Promise<ITableFindings>;
  /**
   * `GET files/code?path=`: the code that loads a table file with a view (pandas,
   * polars, duckdb, dplyr), its path written from `relative_to`.
   */
  fileCode(
    path: string,
    query?: Omit<IFileCodeQuery, 'path'>
  ): Promise<IViewCode>;
  /**
   * `GET variables/{name}/compare`: the table `name` (the after) compared row by row
   * with `query.with` (the before) by `query.key` (else the index, else the position):
   * rows added, removed and changed, each compared column's changed cells, and a
   * window of the rows that differ (400 a key that repeats or tables of two libraries,
   * 422 past the size or time bound).
   */
  compare(
    name: string,
    query: ICompareQuery,
    kernelId?: string
  ): Promise<ITableComparison>;
  /**
   * `POST variables/{name}/kept`: keep a copy of the table as it is now (as of the
   * last execution), held by the extension in the kernel, to compare with later
   * (`compare` with `with: '@<execution>'`). 409 when the kept versions leave no room
   * under the server's caps (`evict` drops the oldest instead, named in `dropped`),
   * 422 when the copy alone is past the byte cap, 400 when it is no pandas or polars
   * DataFrame.
   */
  keep(
    name: string,
    evict?: boolean,
    kernelId?: string
  ): Promise<IKeptVersions>;
  /**
   * `GET variables/{name}/kept`: the versions of a table kept, oldest first.
   */
  keptVersions(name: string, kernelId?: string): Promise<IKeptVersions>;
  /**
   * `DELETE variables/{name}/kept/{execution}`: drop a kept version (404 when it is
   * not kept).
   */
  dropKept(
    name: string,
    execution: number,
    kernelId?: string
  ): Promise<IKeptVersions>;
  /**
   * `GET variables/{name}/timeline`: the last `limit` changes of a name, oldest first.
   */
  timeline(name: string, limit?: number, kernelId?: string): Promise<ITimeline>;
  /**
   * `DELETE variables/{name}`: unbind the exact name in the kernel (404 missing, 409
   * busy kernel).
   */
  deleteVariable(name: string, kernelId?: string): Promise<void>;
  /**
   * `PUT variables/{name}/annotation`: store a note on a variable (replaces the
   * previous one); on the followed kernel, the snapshot is then refreshed.
   */
  annotate(
    name: string,
    annotation: IAnnotationUpdate,
    kernelId?: string
  ): Promise<IAnnotation>;
  /**
   * `DELETE variables/{name}/annotation`: remove the note on a variable.
   */
  clearAnnotation(name: string, kernelId?: string): Promise<void>;
  /**
   * `GET images`: the images captured with `seq > since` (all when omitted), oldest
   * first; pass `next_since` back to get only new ones.
   */
  images(
    since?: number,
    limit?: number,
    kernelId?: string
  ): Promise<IImageList>;
  /**
   * `GET images/{id}`: one image's bytes (typed with its MIME type). Show it through
   * `<img src=URL.createObjectURL(blob)>` — never as HTML: SVG from a kernel is
   * untrusted — and revoke the URL when done.
   */
  imageBlob(imageId: string, kernelId?: string): Promise<Blob>;
  /**
   * `GET history`: the last `limit` executions (code, output, error, images), oldest
   * first.
   */
  history(limit?: number, kernelId?: string): Promise<IHistory>;
  /**
   * `GET prompt?format=json`: the prompt block an assistant would get, with its size.
   */
  prompt(options?: IPromptQuery, kernelId?: string): Promise<IPromptResult>;
}

/**
 * The kernel-state service: follows the active notebook or console kernel and keeps
 * its variables current, and makes every REST request of the frontend
 * (`IKernelStateRequests`). Other extensions (chat panels) may require it to show or
 * send the state of the kernel the user works with:
 *
 * ```ts
 * const { text } = await service.prompt({ budget: 4000 });
 * service.executed.connect(() => ...); // refresh your own view after each run
 * ```
 */
export interface IKernelStateService extends IKernelStateRequests, IDisposable {
  /**
   * Emitted whenever the model changes (kernel, snapshot, status).
   */
  readonly changed: ISignal<IKernelStateService, void>;
  /**
   * Emitted when a user execution on the followed kernel ended (from any client),
   * whether or not a view is visible; never for the server's own silent probe runs.
   */
  readonly executed: ISignal<IKernelStateService, IExecutedArgs>;
  /**
   * Emitted after `annotate` or `clearAnnotation` on the followed kernel succeeded,
   * with the variable name.
   */
  readonly annotationChanged: ISignal<IKernelStateService, string>;
  readonly model: IKernelStateModel;
  readonly snapshot: ISnapshot | null;
  readonly kernelId: string | null;
  readonly options: IKernelStateOptions;
  /**
   * Whether some view shows the state; no snapshot is requested while none does.
   */
  readonly visible: boolean;
  setVisible(visible: boolean): void;
  setOptions(options: Partial<IKernelStateOptions>): void;
  /**
   * Fetch the full page now (a 304 when nothing changed), not a delta: it also brings
   * annotations changed by other clients. Refreshes after executions ask only what
   * changed since the snapshot shown, when it can be merged exactly.
   */
  refresh(): Promise<void>;
  /**
   * The variables of the followed kernel (with the service's options) changed since
   * `generation` (an `ISnapshot.generation` you saw): only what changed since that
   * generation — `delta: true`, every new or modified entry, the `removed` names and the
   * exact `total` — or a full page with `delta: false` when the server cannot tell
   * exactly (a restart since, an unknown generation, more changes than `limit`).
   */
  variablesSince(generation: number): Promise<ISnapshot>;
  /**
   * Load the next page of the list (`options.limit` more variables) into `snapshot`:
   * its `variables` then hold every page loaded, kept current by later refreshes,
   * until the options or the kernel change. Does nothing when every variable the list
   * selects (`matched`) is loaded.
   */
  loadMore(): Promise<void>;
}

/**
 * The kernel-state service token.
 */
export const IKernelStateService = new Token<IKernelStateService>(
  'jupyter-kernel-state:IKernelStateService',
  'A service that follows the active notebook or console kernel and exposes its variables (snapshot, changes, detail) for views and assistants.'
);
