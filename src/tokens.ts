/**
 * Public types and the service token of jupyter_kernel_state. The REST payload types
 * live in `payloads.ts` (checked against the JSON Schema) and are re-exported here.
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
  IImageList,
  IncludeGroup,
  IPromptQuery,
  IPromptResult,
  ISnapshot,
  IVariableDetail,
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
 * The kernel-state service: follows the active notebook or console kernel and keeps
 * its variables current. Other extensions (chat panels) may require it to show or send
 * the state of the kernel the user works with:
 *
 * ```ts
 * const { text } = await service.prompt({ budget: 4000 });
 * service.executed.connect(() => ...); // refresh your own view after each run
 * ```
 *
 * Every method acts on the followed kernel (`kernelId`) and rejects with `Error('No
 * kernel')` when there is none; REST failures reject with
 * `ServerConnection.ResponseError` carrying the server's message.
 */
export interface IKernelStateService extends IDisposable {
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
   * Emitted after `annotate` or `clearAnnotation` succeeded, with the variable name.
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
   * Brief entries (`detail: 'names' | 'schema'`) of the followed kernel's variables for
   * a query of your own, e.g. completions: `{ detail: 'names', filter: 'sa*', limit:
   * 50 }`. Leaves the model and the service's options alone.
   */
  listVariables(query: IBriefQuery): Promise<IBriefSnapshot>;
  /**
   * Fetch one variable's detail from the followed kernel.
   */
  inspect(name: string, path?: AccessKey[]): Promise<IVariableDetail>;
  /**
   * The images captured from the followed kernel with `seq > since` (all when
   * omitted), oldest first; pass `next_since` back to get only new ones.
   */
  images(since?: number, limit?: number): Promise<IImageList>;
  /**
   * One image's bytes (typed with its MIME type). Show it through
   * `<img src=URL.createObjectURL(blob)>` — never as HTML: SVG from a kernel is
   * untrusted — and revoke the URL when done.
   */
  imageBlob(imageId: string): Promise<Blob>;
  /**
   * The prompt block an assistant would get for the followed kernel, with its size.
   */
  prompt(options?: IPromptQuery): Promise<IPromptResult>;
  /**
   * Store a note on a variable (replaces the previous one), then refresh.
   */
  annotate(name: string, annotation: IAnnotationUpdate): Promise<IAnnotation>;
  /**
   * Remove the note on a variable, then refresh.
   */
  clearAnnotation(name: string): Promise<void>;
}

/**
 * The kernel-state service token.
 */
export const IKernelStateService = new Token<IKernelStateService>(
  'jupyter-kernel-state:IKernelStateService',
  'A service that follows the active notebook or console kernel and exposes its variables (snapshot, changes, detail) for views and assistants.'
);
