/**
 * Public types and the service token of jupyter_kernel_state.
 *
 * The payload interfaces mirror the REST contract (DESIGN.md section 3) and keep its
 * snake_case names so a payload can be used as it arrives.
 */
import { Token } from '@lumino/coreutils';
import { IDisposable } from '@lumino/disposable';
import { ISignal } from '@lumino/signaling';

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
  execution_count: number;
  variables_total: number;
  images_total: number;
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
  changes?: string[];
  description: string | null;
  constraints: string | null;
  hidden_from_prompt: boolean;
}

/**
 * The body of `GET kernels/{kernel_id}/variables`.
 */
export interface ISnapshot {
  kernel_id: string;
  language: string;
  epoch: number;
  generation: number;
  execution_count: number;
  stale: boolean;
  kernel_busy: boolean;
  taken_at: string | number;
  duration_ms: number;
  total: number;
  offset: number;
  limit: number;
  variables: IVariable[];
  removed: string[];
}

/**
 * Which otherwise hidden groups of names a snapshot includes.
 */
export type IncludeGroup = 'private' | 'modules' | 'callables' | 'classes';

/**
 * Server-side sort orders of a snapshot.
 */
export type SnapshotSort = 'name' | 'type' | 'size' | 'changed';

/**
 * Query of `GET kernels/{kernel_id}/variables`.
 */
export interface ISnapshotQuery {
  include?: IncludeGroup[];
  limit?: number;
  offset?: number;
  sort?: SnapshotSort;
  since?: number;
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
  columns: IColumn[] | null;
  columns_total: number | null;
  head: ITableHead | null;
  keys: string[] | null;
  keys_total: number | null;
  signature: string | null;
  doc: string | null;
  llm_repr: string | null;
}

/**
 * Query of `GET kernels/{kernel_id}/variables/{name}`.
 */
export interface IDetailQuery {
  path?: AccessKey[];
  max_chars?: number;
}

/**
 * One image captured from IOPub (`GET kernels/{kernel_id}/images`).
 */
export interface IImage {
  id: string;
  seq: number;
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  sha256: string;
  execution_count: number | null;
  msg_id: string | null;
  display_id: string | null;
  created_at: string | number;
}

export interface IImageList {
  images: IImage[];
  next_since: number;
  dropped: number;
  rejected: number;
}

export interface IImageQuery {
  since?: number;
  limit?: number;
}

export interface IHistoryEntry {
  execution_count: number;
  code: string;
  output: string;
  error: { ename: string; evalue: string } | null;
  duration_ms: number | null;
  started_at: string | number | null;
  image_ids: string[];
}

export interface IHistory {
  total: number;
  entries: IHistoryEntry[];
}

export interface IPromptQuery {
  budget?: number;
  since?: number;
  history?: number;
  images?: boolean;
}

export interface IPromptResult {
  text: string;
  chars: number;
  tokens_estimate: number;
  variables_included: number;
  variables_omitted: number;
  generation: number;
}

/**
 * What a person may say about a variable for the assistant.
 */
export interface IAnnotation {
  description?: string | null;
  constraints?: string | null;
  hidden_from_prompt?: boolean;
}

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
  | 'no-kernel'
  | 'loading'
  | 'ready'
  | 'unsupported'
  | 'error';

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
}

/**
 * Options of the snapshots the service fetches.
 */
export interface IKernelStateOptions {
  include: IncludeGroup[];
  limit: number;
  sort: SnapshotSort;
}

/**
 * The kernel-state service: follows the active notebook or console kernel and keeps
 * its variables current. Other extensions (chat panels) may require it.
 */
export interface IKernelStateService extends IDisposable {
  /**
   * Emitted whenever the model changes (kernel, snapshot, status).
   */
  readonly changed: ISignal<IKernelStateService, void>;
  readonly model: IKernelStateModel;
  readonly snapshot: ISnapshot | null;
  readonly kernelId: string | null;
  readonly options: IKernelStateOptions;
  /**
   * Whether some view shows the state; no request is made while nothing does.
   */
  readonly visible: boolean;
  setVisible(visible: boolean): void;
  setOptions(options: Partial<IKernelStateOptions>): void;
  /**
   * Fetch a snapshot now (a 304 when nothing changed).
   */
  refresh(): Promise<void>;
  /**
   * Fetch one variable's detail from the followed kernel.
   */
  inspect(name: string, path?: AccessKey[]): Promise<IVariableDetail>;
}

/**
 * The kernel-state service token.
 */
export const IKernelStateService = new Token<IKernelStateService>(
  'jupyter-kernel-state:IKernelStateService',
  'A service that follows the active notebook or console kernel and exposes its variables (snapshot, changes, detail) for views and assistants.'
);
