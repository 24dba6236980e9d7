/**
 * The kernel-state service: follows the active notebook or console kernel and keeps its
 * snapshot current, driven by kernel events (no polling).
 *
 * Refresh rules:
 * - a user execution finished (IOPub `status: idle` whose parent had an `execute_input`;
 *   the server's own probe runs silently and publishes no `execute_input`, so it never
 *   triggers a refresh of its own) → refresh after a short debounce;
 * - a user execution still runs after `busyDelay` → refresh once, so the view can say
 *   it shows the state as of an earlier execution;
 * - kernel changed, restarted, options changed, view shown → refresh;
 * - nothing is requested while no view is visible.
 *
 * Every user execution that ends also emits `executed` (visible or not), so views of
 * images and of the assistant's prompt, and other extensions, can follow the kernel
 * without listening to IOPub themselves.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { ServerConnection, Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { DEFAULT_OPTIONS } from './defaults';
import { KernelStateModel } from './models/kernel';
import { markSnapshotData } from './perf';
import {
  deleteAnnotation,
  getImage,
  getPrompt,
  getSnapshot,
  getVariable,
  listImages,
  putAnnotation,
  retryAfterSeconds,
  SnapshotCache
} from './restapi';
import {
  AccessKey,
  IAnnotation,
  IAnnotationUpdate,
  IExecutedArgs,
  IImageList,
  IKernelStateModel,
  IKernelStateOptions,
  IKernelStateService,
  IPromptQuery,
  IPromptResult,
  ISnapshot,
  IVariableDetail
} from './tokens';

/**
 * A widget with a kernel session: a notebook panel or a console panel.
 */
export type SessionWidget = Widget & { sessionContext: ISessionContext };

/**
 * The minimal surface of a widget tracker the service needs.
 */
export interface ISessionWidgetTracker {
  readonly currentWidget: SessionWidget | null;
  readonly currentChanged: ISignal<unknown, SessionWidget | null>;
  has(widget: Widget): boolean;
}

/**
 * The minimal surface of the application shell the service needs.
 */
export interface ICurrentWidgetShell {
  readonly currentWidget: Widget | null;
  readonly currentChanged?: ISignal<unknown, unknown>;
}

export { DEFAULT_OPTIONS };

export class KernelStateService implements IKernelStateService {
  constructor(options: KernelStateService.IOptions = {}) {
    this._settings = options.serverSettings ?? ServerConnection.makeSettings();
    this._trackers = options.trackers ?? [];
    this._shell = options.shell ?? null;
    this._debounce = options.debounce ?? 100;
    this._busyDelay = options.busyDelay ?? 750;
    this._maxRetries = options.maxRetries ?? 6;
    this._options = { ...DEFAULT_OPTIONS, ...options.options };
    this._model.changed.connect(this._onModelChanged, this);
    for (const tracker of this._trackers) {
      tracker.currentChanged.connect(this._pickWidget, this);
    }
    this._shell?.currentChanged?.connect(this._pickWidget, this);
    this._pickWidget();
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
    return this._kernel?.id ?? null;
  }

  get options(): IKernelStateOptions {
    return this._options;
  }

  get visible(): boolean {
    return this._visible;
  }

  /**
   * The widget whose kernel is followed.
   */
  get widget(): SessionWidget | null {
    return this._widget;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  setVisible(visible: boolean): void {
    if (visible === this._visible) {
      return;
    }
    this._visible = visible;
    if (visible) {
      void this.refresh();
    } else {
      this._cancelTimers();
    }
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

  async refresh(): Promise<void> {
    this._cancelTimers();
    await this._fetch();
  }

  async inspect(
    name: string,
    path: AccessKey[] = []
  ): Promise<IVariableDetail> {
    return getVariable(this._requireKernel(), name, { path }, this._settings);
  }

  async images(since?: number, limit?: number): Promise<IImageList> {
    return listImages(this._requireKernel(), { since, limit }, this._settings);
  }

  async imageBlob(imageId: string): Promise<Blob> {
    return getImage(this._requireKernel(), imageId, this._settings);
  }

  async prompt(options: IPromptQuery = {}): Promise<IPromptResult> {
    return getPrompt(this._requireKernel(), options, this._settings);
  }

  async annotate(
    name: string,
    annotation: IAnnotationUpdate
  ): Promise<IAnnotation> {
    const note = await putAnnotation(
      this._requireKernel(),
      name,
      annotation,
      this._settings
    );
    this._afterAnnotation(name);
    return note;
  }

  async clearAnnotation(name: string): Promise<void> {
    await deleteAnnotation(this._requireKernel(), name, this._settings);
    this._afterAnnotation(name);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._cancelTimers();
    this._follow(null);
    this._model.dispose();
    Signal.clearData(this);
  }

  private _requireKernel(): string {
    const kernelId = this.kernelId;
    if (!kernelId) {
      throw new Error('No kernel');
    }
    return kernelId;
  }

  /**
   * The snapshot's ETag covers the annotations, so the refresh brings the new notes.
   */
  private _afterAnnotation(name: string): void {
    if (this._isDisposed) {
      return;
    }
    this._annotationChanged.emit(name);
    void this.refresh();
  }

  /**
   * Follow the shell's current widget when it has a kernel session; otherwise keep the
   * widget followed so far while it lives (focusing the file browser or an editor does
   * not blank the panel), else the trackers' current widget.
   */
  private _pickWidget(): void {
    if (this._isDisposed) {
      return;
    }
    const current = this._shell?.currentWidget ?? null;
    let next: SessionWidget | null = null;
    if (current) {
      next = this._trackers.find(t => t.has(current))
        ? (current as SessionWidget)
        : null;
    }
    if (!next && this._widget && !this._widget.isDisposed) {
      next = this._widget;
    }
    if (!next) {
      next =
        this._trackers
          .map(t => t.currentWidget)
          .find(w => w && !w.isDisposed) ?? null;
    }
    this._follow(next);
  }

  private _follow(widget: SessionWidget | null): void {
    if (widget === this._widget) {
      return;
    }
    if (this._widget) {
      const old = this._widget;
      old.disposed.disconnect(this._onWidgetDisposed, this);
      old.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      old.sessionContext.statusChanged.disconnect(this._onStatusChanged, this);
    }
    this._widget = widget;
    if (widget) {
      widget.disposed.connect(this._onWidgetDisposed, this);
      widget.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
      widget.sessionContext.statusChanged.connect(this._onStatusChanged, this);
    }
    this._attachKernel(widget?.sessionContext.session?.kernel ?? null);
  }

  private _onWidgetDisposed(): void {
    this._widget = null;
    this._attachKernel(null);
    this._pickWidget();
  }

  private _onKernelChanged(): void {
    this._attachKernel(this._widget?.sessionContext.session?.kernel ?? null);
  }

  private _attachKernel(kernel: Kernel.IKernelConnection | null): void {
    if (kernel !== this._kernel) {
      this._kernel?.iopubMessage.disconnect(this._onIOPub, this);
      this._kernel = kernel;
      this._kernel?.iopubMessage.connect(this._onIOPub, this);
      this._userRuns.clear();
      this._attempts = 0;
      this._staleEpoch = null;
      this._token++;
      this._cancelTimers();
    }
    this._model.setKernel(
      kernel && this._widget
        ? {
            id: kernel.id,
            name: this._widget.sessionContext.kernelDisplayName || kernel.name,
            source: this._widget.title.label
          }
        : null
    );
    if (kernel) {
      this._schedule(0);
    }
  }

  private _onStatusChanged(_: ISessionContext, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting') {
      this._restarting = true;
      this._staleEpoch = this._model.snapshot?.epoch ?? this._staleEpoch;
      this._userRuns.clear();
      this._token++;
      this._cancelTimers();
      if (this._kernel) {
        this._cache.forgetKernel(this._kernel.id);
      }
      this._model.reset();
    } else if (status === 'idle' && this._restarting) {
      this._restarting = false;
      this._schedule(this._debounce);
    } else if (status === 'dead') {
      this._cancelTimers();
      this._model.setError('error', 'The kernel is dead.');
    }
  }

  private _onIOPub(
    _: Kernel.IKernelConnection,
    msg: KernelMessage.IIOPubMessage
  ): void {
    const parent = (msg.parent_header as KernelMessage.IHeader | undefined)
      ?.msg_id;
    if (!parent) {
      return;
    }
    if (msg.header.msg_type === 'execute_input') {
      if (this._userRuns.size > 100) {
        this._userRuns.clear();
      }
      this._userRuns.add(parent);
      this._scheduleBusy(parent);
    } else if (
      msg.header.msg_type === 'status' &&
      (msg as KernelMessage.IStatusMsg).content.execution_state === 'idle' &&
      this._userRuns.delete(parent)
    ) {
      this._attempts = 0;
      this._schedule(this._debounce);
      if (this._kernel) {
        this._executed.emit({ kernelId: this._kernel.id, msgId: parent });
      }
    }
  }

  private _scheduleBusy(run: string): void {
    if (!this._visible) {
      return;
    }
    clearTimeout(this._busyTimer);
    this._busyTimer = setTimeout(() => {
      if (this._userRuns.has(run)) {
        void this._fetch();
      }
    }, this._busyDelay);
  }

  private _schedule(delay: number): void {
    if (!this._visible || this._isDisposed) {
      return;
    }
    clearTimeout(this._timer);
    this._timer = setTimeout(() => void this._fetch(), delay);
  }

  private _cancelTimers(): void {
    clearTimeout(this._timer);
    clearTimeout(this._busyTimer);
  }

  private async _fetch(): Promise<void> {
    const kernel = this._kernel;
    if (!this._visible || !kernel || this._isDisposed) {
      return;
    }
    if (this._inFlight) {
      this._again = true;
      return this._inFlight;
    }
    const token = this._token;
    const done = this._request(kernel.id, token);
    this._inFlight = done;
    try {
      await done;
    } finally {
      this._inFlight = null;
      if (this._again) {
        this._again = false;
        void this._fetch();
      }
    }
  }

  private async _request(kernelId: string, token: number): Promise<void> {
    const { include, limit, sort, filter } = this._options;
    try {
      const snapshot = await getSnapshot(
        kernelId,
        { include, limit, sort, filter },
        this._settings,
        this._cache
      );
      if (token !== this._token || this._isDisposed) {
        return;
      }
      // The server may not have noticed a restart yet: never show the old kernel's
      // variables as current; ask again, bounded.
      if (this._staleEpoch !== null && snapshot.epoch <= this._staleEpoch) {
        if (this._attempts < this._maxRetries) {
          this._schedule(this._backoff(0.2));
          return;
        }
      }
      this._staleEpoch = null;
      if (snapshot !== this._model.snapshot) {
        markSnapshotData(snapshot.variables.length);
      }
      this._model.setSnapshot(snapshot);
      // The server may not have seen the end of the run yet: ask again, bounded.
      const lagging =
        snapshot.stale &&
        snapshot.kernel_busy &&
        this._userRuns.size === 0 &&
        this._kernel?.status === 'idle';
      if (lagging && this._attempts < this._maxRetries) {
        this._schedule(this._backoff(0.2));
      } else {
        this._attempts = 0;
      }
    } catch (error) {
      if (token !== this._token || this._isDisposed) {
        return;
      }
      const retryAfter = retryAfterSeconds(error);
      if (retryAfter !== null && this._attempts < this._maxRetries) {
        this._schedule(this._backoff(retryAfter));
        return;
      }
      this._attempts = 0;
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
  }

  /**
   * Milliseconds before the next attempt: what the server asked, doubled per attempt,
   * capped at 10 s.
   */
  private _backoff(seconds: number): number {
    const delay = Math.max(seconds * 1000, 250) * 2 ** this._attempts;
    this._attempts++;
    return Math.min(delay, 10_000);
  }

  private _onModelChanged(): void {
    this._emit();
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _settings: ServerConnection.ISettings;
  private _trackers: ISessionWidgetTracker[];
  private _shell: ICurrentWidgetShell | null;
  private _debounce: number;
  private _busyDelay: number;
  private _maxRetries: number;
  private _options: IKernelStateOptions;
  private _model = new KernelStateModel();
  private _cache = new SnapshotCache();
  private _changed = new Signal<IKernelStateService, void>(this);
  private _executed = new Signal<IKernelStateService, IExecutedArgs>(this);
  private _annotationChanged = new Signal<IKernelStateService, string>(this);
  private _widget: SessionWidget | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _visible = false;
  private _restarting = false;
  private _staleEpoch: number | null = null;
  private _userRuns = new Set<string>();
  private _timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _busyTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _inFlight: Promise<void> | null = null;
  private _again = false;
  private _attempts = 0;
  private _token = 0;
  private _isDisposed = false;
}

export namespace KernelStateService {
  export interface IOptions {
    serverSettings?: ServerConnection.ISettings;
    /**
     * Trackers of widgets with a kernel session (notebooks, consoles).
     */
    trackers?: ISessionWidgetTracker[];
    /**
     * The application shell; its current widget decides which kernel is followed.
     */
    shell?: ICurrentWidgetShell | null;
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
