/**
 * The kernel-state service: follows the active notebook or console kernel and keeps its
 * snapshot current, driven by kernel events (no polling). It wires four parts:
 * `KernelFollower` (which kernel, and which executions are the user's),
 * `RefreshScheduler` (when to ask), `SnapshotLoader` (what to ask: a page, or a delta
 * merged with `applyDelta`) and `KernelStateRequests` (every REST route as a method, on
 * `restapi.ts`'s one typed `request()`), which it extends; the loader shares its one
 * snapshot cache.
 *
 * Refresh rules:
 * - a user execution finished → refresh after a short debounce;
 * - a user execution still runs after `busyDelay` → refresh once, so the view can say
 *   it shows the state as of an earlier execution;
 * - kernel changed, restarted, options changed, view shown → refresh;
 * - nothing is requested while no view is visible.
 *
 * Incremental list: `SnapshotLoader` asks only what changed and merges it; `refresh()`
 * and a change of annotations ask the normal page (a delta does not carry annotations).
 *
 * Every user execution that ends also emits `executed` (visible or not), so views of
 * images and of the assistant's prompt, and other extensions, can follow the kernel
 * without listening to IOPub themselves.
 */
import { Kernel, ServerConnection } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { DEFAULT_OPTIONS } from './defaults';
import { IAttachedArgs, KernelFollower, SessionWidget } from './kernelFollower';
import { KernelStateModel } from './models/kernel';
import { RefreshScheduler } from './refresh';
import { KernelStateRequests } from './requests';
import { retryAfterSeconds } from './restapi';
import { SnapshotLoader } from './snapshotLoader';
import {
  IExecutedArgs,
  IKernelStateModel,
  IKernelStateOptions,
  IKernelStateService,
  ISnapshot
} from './tokens';

export class KernelStateService
  extends KernelStateRequests
  implements IKernelStateService
{
  constructor(options: KernelStateService.IOptions = {}) {
    super(options.serverSettings);
    this._options = { ...DEFAULT_OPTIONS, ...options.options };
    this._scheduler = new RefreshScheduler({
      fetch: token => this._request(token),
      ready: () => this._follower.kernel !== null,
      debounce: options.debounce,
      busyDelay: options.busyDelay,
      maxRetries: options.maxRetries
    });
    this._follower = new KernelFollower({
      trackers: options.trackers,
      shell: options.shell
    });
    this._model.changed.connect(this._emit, this);
    this._follower.attached.connect(this._onAttached, this);
    this._follower.statusChanged.connect(this._onStatusChanged, this);
    this._follower.runStarted.connect(this._onRunStarted, this);
    this._follower.runEnded.connect(this._onRunEnded, this);
    this._loader = new SnapshotLoader({
      model: this._model,
      serverSettings: this.serverSettings,
      options: () => this._options,
      isCurrent: token => this._scheduler.isCurrent(token),
      cache: this.snapshots
    });
    this._follower.start();
  }

  get changed(): ISignal<IKernelStateService, void> {
    return this._changed;
  }

  get executed(): ISignal<IKernelStateService, IExecutedArgs> {
    return this._executed;
  }

  get annotationChanged(): ISignal<IKernelStateService, string> {
    return this._annotationChanged;
  }

  get model(): IKernelStateModel {
    return this._model;
  }

  get snapshot(): ISnapshot | null {
    return this._model.snapshot;
  }

  get kernelId(): string | null {
    return this._follower.kernel?.id ?? null;
  }

  get options(): IKernelStateOptions {
    return this._options;
  }

  get visible(): boolean {
    return this._scheduler.visible;
  }

  /**
   * The widget whose kernel is followed.
   */
  get widget(): SessionWidget | null {
    return this._follower.widget;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  setVisible(visible: boolean): void {
    this._scheduler.setVisible(visible);
  }

  setOptions(options: Partial<IKernelStateOptions>): void {
    const next = { ...this._options, ...options };
    if (JSON.stringify(next) === JSON.stringify(this._options)) {
      return;
    }
    this._options = next;
    this._emit();
    void this.refresh();
  }

  refresh(): Promise<void> {
    this._loader.askFullPage();
    return this._scheduler.refresh();
  }

  async variablesSince(generation: number): Promise<ISnapshot> {
    return this._loader.since(this.target(), generation);
  }

  /**
   * One more page of the list: the loader's window grows, and the next load appends
   * the page (or asks the window again when the kernel moved meanwhile).
   */
  loadMore(): Promise<void> {
    if (!this._loader.grow()) {
      return Promise.resolve();
    }
    return this._scheduler.refresh();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._scheduler.dispose();
    this._follower.dispose();
    this._model.dispose();
    Signal.clearData(this);
  }

  /**
   * A note on the followed kernel changed: the snapshot's ETag covers the annotations,
   * so the refresh brings the new notes.
   */
  protected annotated(kernelId: string, name: string): void {
    if (this._isDisposed || kernelId !== this.kernelId) {
      return;
    }
    this._loader.askFullPage();
    this._annotationChanged.emit(name);
    void this.refresh();
  }

  private _onAttached(_: KernelFollower, args: IAttachedArgs): void {
    if (this._isDisposed) {
      return;
    }
    if (args.kernelChanged) {
      this._scheduler.resetAttempts();
      this._scheduler.invalidate();
      this._staleEpoch = null;
    }
    this._model.setKernel(args.info);
    if (args.kernel) {
      this._scheduler.schedule(0);
    }
  }

  private _onStatusChanged(_: KernelFollower, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._restarting = true;
      this._staleEpoch = this._model.snapshot?.epoch ?? this._staleEpoch;
      this._follower.forgetRuns();
      this._scheduler.invalidate();
      const kernel = this._follower.kernel;
      if (kernel) {
        this._loader.forgetKernel(kernel.id);
      }
      this._model.reset();
    } else if (status === 'idle' && this._restarting) {
      this._restarting = false;
      this._scheduler.schedule();
    } else if (status === 'dead') {
      this._scheduler.cancel();
      this._model.setError('error', 'The kernel is dead.');
    }
  }

  private _onRunStarted(follower: KernelFollower, msgId: string): void {
    this._scheduler.scheduleBusy(() => follower.isRunning(msgId));
  }

  private _onRunEnded(follower: KernelFollower, msgId: string): void {
    this._scheduler.resetAttempts();
    this._scheduler.schedule();
    const kernel = follower.kernel;
    if (kernel) {
      this._executed.emit({ kernelId: kernel.id, msgId });
    }
  }

  /**
   * One snapshot request for the followed kernel; `token` says whether the answer
   * still matters when it arrives.
   */
  private async _request(token: number): Promise<void> {
    const kernel = this._follower.kernel;
    if (!kernel) {
      return;
    }
    const scheduler = this._scheduler;
    try {
      const deltaAllowed = this._staleEpoch === null; // no restart pending
      const fetched = await this._loader.load(kernel.id, token, deltaAllowed);
      if (fetched === null || !scheduler.isCurrent(token)) {
        return;
      }
      const snapshot = fetched.snapshot;
      // The server may not have noticed a restart yet: never show the old kernel's
      // variables as current; ask again, bounded.
      if (this._staleEpoch !== null && snapshot.epoch <= this._staleEpoch) {
        if (scheduler.retry(0.2)) {
          return;
        }
      }
      this._staleEpoch = null;
      this._loader.show(fetched);
      // The server may not have seen the end of the run yet: ask again, bounded.
      const lagging =
        snapshot.stale &&
        snapshot.kernel_busy &&
        !this._follower.isRunning() &&
        this._follower.kernel?.status === 'idle';
      if (!(lagging && scheduler.retry(0.2))) {
        scheduler.resetAttempts();
      }
    } catch (error) {
      if (!scheduler.isCurrent(token)) {
        return;
      }
      const retryAfter = retryAfterSeconds(error);
      if (retryAfter !== null && scheduler.retry(retryAfter)) {
        return;
      }
      scheduler.resetAttempts();
      this._showError(error);
    }
  }

  private _showError(error: unknown): void {
    if (
      error instanceof ServerConnection.ResponseError &&
      error.response.status === 501
    ) {
      this._model.setError('unsupported', error.message);
    } else {
      this._model.setError(
        'error',
        error instanceof Error ? error.message : String(error)
      );
    }
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _options: IKernelStateOptions;
  private _follower: KernelFollower;
  private _scheduler: RefreshScheduler;
  private _model = new KernelStateModel();
  private _loader: SnapshotLoader;
  private _changed = new Signal<IKernelStateService, void>(this);
  private _executed = new Signal<IKernelStateService, IExecutedArgs>(this);
  private _annotationChanged = new Signal<IKernelStateService, string>(this);
  private _restarting = false;
  private _staleEpoch: number | null = null;
  private _isDisposed = false;
}

export namespace KernelStateService {
  /** The snapshot the model shows, with its reply and query (`SnapshotLoader.IHeld`). */
  export type IHeld = SnapshotLoader.IHeld;

  export interface IOptions extends KernelFollower.IOptions {
    serverSettings?: ServerConnection.ISettings;
    options?: Partial<IKernelStateOptions>;
    /**
     * Milliseconds between the end of an execution and the refresh.
     */
    debounce?: number;
    /**
     * Milliseconds an execution runs before the view asks for the stale state.
     */
    busyDelay?: number;
    /**
     * Attempts after a 503 (or a lagging busy answer) before giving up.
     */
    maxRetries?: number;
  }
}
