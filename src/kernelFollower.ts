/**
 * Follows the kernel of the active notebook or console and tells apart the user's
 * executions: an execution whose IOPub shows an `execute_input` is the user's. The
 * server's own probe runs silently; IPython publishes nothing for them, but IRkernel
 * publishes an `execute_input` even for silent requests, so messages whose parent comes
 * from the server's probe session (`PROBE_USERNAME`) are never the user's.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { IKernelInfo } from './tokens';

/**
 * The username of the server's probe session (service/connection.py): its requests are
 * never the user's executions.
 */
export const PROBE_USERNAME = 'jupyter_kernel_state';

/**
 * A widget with a kernel session: a notebook panel or a console panel.
 */
export type SessionWidget = Widget & { sessionContext: ISessionContext };

/**
 * What the follower reads of a document widget (a notebook panel): its file's path.
 */
interface IDocumentWidgetLike {
  context: { path: string; pathChanged?: ISignal<unknown, string> };
}

/**
 * The minimal surface of a widget tracker the follower needs.
 */
export interface ISessionWidgetTracker {
  readonly currentWidget: SessionWidget | null;
  readonly currentChanged: ISignal<unknown, SessionWidget | null>;
  has(widget: Widget): boolean;
}

/**
 * The minimal surface of the application shell the follower needs.
 */
export interface ICurrentWidgetShell {
  readonly currentWidget: Widget | null;
  readonly currentChanged?: ISignal<unknown, unknown>;
}

/**
 * What `attached` says: the kernel followed now (or none), and whether it is another
 * kernel than before (else only the widget or its labels changed).
 */
export interface IAttachedArgs {
  kernel: Kernel.IKernelConnection | null;
  info: IKernelInfo | null;
  kernelChanged: boolean;
}

export class KernelFollower implements IDisposable {
  constructor(options: KernelFollower.IOptions = {}) {
    this._trackers = options.trackers ?? [];
    this._shell = options.shell ?? null;
  }

  /**
   * Start following (separate from the constructor so listeners see the first kernel).
   */
  start(): void {
    for (const tracker of this._trackers) {
      tracker.currentChanged.connect(this._pickWidget, this);
    }
    this._shell?.currentChanged?.connect(this._pickWidget, this);
    this._pickWidget();
  }

  /**
   * Emitted whenever the followed widget or kernel is (re)attached.
   */
  get attached(): ISignal<this, IAttachedArgs> {
    return this._attached;
  }

  /**
   * The followed widget's session status (restarting, idle, dead…).
   */
  get statusChanged(): ISignal<this, Kernel.Status> {
    return this._statusChanged;
  }

  /**
   * A user execution started (its `execute_input`), with the request's msg id.
   */
  get runStarted(): ISignal<this, string> {
    return this._runStarted;
  }

  /**
   * A user execution ended (`status: idle`), with the request's msg id.
   */
  get runEnded(): ISignal<this, string> {
    return this._runEnded;
  }

  get widget(): SessionWidget | null {
    return this._widget;
  }

  get kernel(): Kernel.IKernelConnection | null {
    return this._kernel;
  }

  /**
   * Whether a user execution is running: `msgId` or, without it, any.
   */
  isRunning(msgId?: string): boolean {
    return msgId === undefined
      ? this._userRuns.size > 0
      : this._userRuns.has(msgId);
  }

  /**
   * Forget the running executions (after a restart their ends never come).
   */
  forgetRuns(): void {
    this._userRuns.clear();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    for (const tracker of this._trackers) {
      tracker.currentChanged.disconnect(this._pickWidget, this);
    }
    this._shell?.currentChanged?.disconnect(this._pickWidget, this);
    this._follow(null);
    this._isDisposed = true;
    Signal.clearData(this);
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
      old.title.changed.disconnect(this._onTitleChanged, this);
      contextOf(old)?.pathChanged?.disconnect(this._onTitleChanged, this);
      old.disposed.disconnect(this._onWidgetDisposed, this);
      old.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
      old.sessionContext.statusChanged.disconnect(this._onStatusChanged, this);
    }
    this._widget = widget;
    if (widget) {
      widget.title.changed.connect(this._onTitleChanged, this);
      contextOf(widget)?.pathChanged?.connect(this._onTitleChanged, this);
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

  /**
   * A renamed or moved notebook: say so when its label or path changed (not on every
   * title change: the dirty mark changes it too).
   */
  private _onTitleChanged(): void {
    const before = this._info;
    const after = this._describe(this._kernel);
    if (before?.source !== after?.source || before?.path !== after?.path) {
      this._attachKernel(this._kernel);
    }
  }

  private _attachKernel(kernel: Kernel.IKernelConnection | null): void {
    const kernelChanged = kernel !== this._kernel;
    if (kernelChanged) {
      this._kernel?.iopubMessage.disconnect(this._onIOPub, this);
      this._kernel = kernel;
      this._kernel?.iopubMessage.connect(this._onIOPub, this);
      this._userRuns.clear();
    }
    const info = this._describe(kernel);
    this._info = info;
    if (!this._isDisposed) {
      this._attached.emit({ kernel, info, kernelChanged });
    }
  }

  private _describe(
    kernel: Kernel.IKernelConnection | null
  ): IKernelInfo | null {
    const widget = this._widget;
    if (!kernel || !widget) {
      return null;
    }
    const path = contextOf(widget)?.path;
    return {
      id: kernel.id,
      name: widget.sessionContext.kernelDisplayName || kernel.name,
      source: widget.title.label,
      ...(path ? { path } : {})
    };
  }

  private _onStatusChanged(_: ISessionContext, status: Kernel.Status): void {
    this._statusChanged.emit(status);
  }

  private _onIOPub(
    _: Kernel.IKernelConnection,
    msg: KernelMessage.IIOPubMessage
  ): void {
    const header = msg.parent_header as KernelMessage.IHeader | undefined;
    const parent = header?.msg_id;
    if (!parent || header?.username === PROBE_USERNAME) {
      return;
    }
    if (msg.header.msg_type === 'execute_input') {
      if (this._userRuns.size > 100) {
        this._userRuns.clear();
      }
      this._userRuns.add(parent);
      this._runStarted.emit(parent);
    } else if (
      msg.header.msg_type === 'status' &&
      (msg as KernelMessage.IStatusMsg).content.execution_state === 'idle' &&
      this._userRuns.delete(parent)
    ) {
      this._runEnded.emit(parent);
    }
  }

  private _trackers: ISessionWidgetTracker[];
  private _shell: ICurrentWidgetShell | null;
  private _widget: SessionWidget | null = null;
  private _kernel: Kernel.IKernelConnection | null = null;
  private _info: IKernelInfo | null = null;
  private _userRuns = new Set<string>();
  private _attached = new Signal<this, IAttachedArgs>(this);
  private _statusChanged = new Signal<this, Kernel.Status>(this);
  private _runStarted = new Signal<this, string>(this);
  private _runEnded = new Signal<this, string>(this);
  private _isDisposed = false;
}

export namespace KernelFollower {
  export interface IOptions {
    /**
     * Trackers of widgets with a kernel session (notebooks, consoles).
     */
    trackers?: ISessionWidgetTracker[];
    /**
     * The application shell; its current widget decides which kernel is followed.
     */
    shell?: ICurrentWidgetShell | null;
  }
}

/**
 * The document context of a notebook panel (it knows the file's path); none for a
 * console.
 */
function contextOf(
  widget: SessionWidget
): IDocumentWidgetLike['context'] | null {
  return (widget as Partial<IDocumentWidgetLike>).context ?? null;
}
