/**
 * The base of the sidebar's section models (image strip, assistant view): follows the
 * service's kernel, loads only while the section is active (panel visible and section
 * expanded), coalesces overlapping loads and drops answers about a kernel it no longer
 * follows.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { IExecutedArgs, IKernelStateService } from '../tokens';

export abstract class KernelSectionModel implements IDisposable {
  constructor(service: IKernelStateService, debounce = 50) {
    this.service = service;
    this._debounce = debounce;
    this._kernelId = service.kernelId;
    this._snapshotKey = snapshotKey(service);
    service.changed.connect(this._onServiceChanged, this);
    service.executed.connect(this._onExecuted, this);
    service.annotationChanged.connect(this._onAnnotationChanged, this);
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * The kernel whose data the model holds.
   */
  get kernelId(): string | null {
    return this._kernelId;
  }

  get active(): boolean {
    return this._active;
  }

  get loading(): boolean {
    return this._loading;
  }

  /**
   * The server's message for the last failed load, or null.
   */
  get error(): string | null {
    return this._error;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Load only while active; becoming active loads when something may have changed.
   */
  setActive(active: boolean): void {
    if (active === this._active || this._isDisposed) {
      return;
    }
    this._active = active;
    if (active) {
      if (this.needsLoad()) {
        this.schedule(0);
      }
    } else {
      clearTimeout(this._timer);
    }
  }

  /**
   * Load now (when active and a kernel is followed).
   */
  async refresh(): Promise<void> {
    clearTimeout(this._timer);
    const kernelId = this._kernelId;
    if (!this._active || !kernelId || this._isDisposed) {
      return;
    }
    if (this._inFlight) {
      this._again = true;
      return this._inFlight;
    }
    const token = this._token;
    const isCurrent = () => token === this._token && !this._isDisposed;
    this._loading = true;
    this.emit();
    const done = this.load(kernelId, isCurrent)
      .then(() => {
        if (isCurrent()) {
          this._error = null;
        }
      })
      .catch(reason => {
        if (isCurrent()) {
          this._error =
            reason instanceof Error ? reason.message : String(reason);
        }
      });
    this._inFlight = done;
    try {
      await done;
    } finally {
      this._inFlight = null;
      this._loading = false;
      this.emit();
      if (this._again) {
        this._again = false;
        void this.refresh();
      }
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._token++;
    clearTimeout(this._timer);
    this.service.changed.disconnect(this._onServiceChanged, this);
    this.service.executed.disconnect(this._onExecuted, this);
    this.service.annotationChanged.disconnect(this._onAnnotationChanged, this);
    this.clear();
    Signal.clearData(this);
  }

  /**
   * Fetch and store the section's data for `kernelId`; store nothing once
   * `isCurrent()` is false. Errors are shown as the model's `error`.
   */
  protected abstract load(
    kernelId: string,
    isCurrent: () => boolean
  ): Promise<void>;

  /**
   * Forget the data of the previous kernel.
   */
  protected abstract clear(): void;

  /**
   * Whether becoming active should load (default: always).
   */
  protected needsLoad(): boolean {
    return true;
  }

  /**
   * The followed kernel's snapshot moved to another epoch or generation.
   */
  protected onSnapshotKey(_key: string): void {
    // Subclasses decide.
  }

  /**
   * A user execution ended on the followed kernel.
   */
  protected onExecuted(_args: IExecutedArgs): void {
    // Subclasses decide.
  }

  /**
   * A variable's note changed.
   */
  protected onAnnotationChanged(_name: string): void {
    // Subclasses decide.
  }

  /**
   * Load after `delay` ms (coalescing repeated calls), if active.
   */
  protected schedule(delay = this._debounce): void {
    if (!this._active || this._isDisposed || !this._kernelId) {
      return;
    }
    clearTimeout(this._timer);
    this._timer = setTimeout(() => void this.refresh(), delay);
  }

  protected emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  protected readonly service: IKernelStateService;

  private _onServiceChanged(): void {
    if (this.service.kernelId !== this._kernelId) {
      this._kernelId = this.service.kernelId;
      this._token++;
      this._again = false;
      this._error = null;
      clearTimeout(this._timer);
      this.clear();
      this.emit();
      this.schedule(0);
    }
    const key = snapshotKey(this.service);
    if (key !== this._snapshotKey) {
      this._snapshotKey = key;
      if (key) {
        this.onSnapshotKey(key);
      }
    }
  }

  private _onExecuted(_: IKernelStateService, args: IExecutedArgs): void {
    if (args.kernelId === this._kernelId) {
      this.onExecuted(args);
    }
  }

  private _onAnnotationChanged(_: IKernelStateService, name: string): void {
    this.onAnnotationChanged(name);
  }

  private _changed = new Signal<this, void>(this);
  private _debounce: number;
  private _kernelId: string | null;
  private _snapshotKey: string;
  private _active = false;
  private _loading = false;
  private _error: string | null = null;
  private _timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _inFlight: Promise<void> | null = null;
  private _again = false;
  private _token = 0;
  private _isDisposed = false;
}

/**
 * `kernel:epoch:generation` of the service's snapshot, or '' when there is none.
 */
export function snapshotKey(
  service: Pick<IKernelStateService, 'snapshot'>
): string {
  const snapshot = service.snapshot;
  return snapshot
    ? `${snapshot.kernel_id}:${snapshot.epoch}:${snapshot.generation}`
    : '';
}
