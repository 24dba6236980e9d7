/**
 * The kernel-state model: which kernel is followed, its last snapshot, and the status
 * a view shows. It holds state and emits `changed`; it makes no requests.
 */
import { ISignal, Signal } from '@lumino/signaling';

import {
  IKernelInfo,
  IKernelStateModel,
  ISnapshot,
  KernelStateStatus
} from '../tokens';

export class KernelStateModel implements IKernelStateModel {
  get changed(): ISignal<IKernelStateModel, void> {
    return this._changed;
  }

  get status(): KernelStateStatus {
    return this._status;
  }

  get kernel(): IKernelInfo | null {
    return this._kernel;
  }

  get snapshot(): ISnapshot | null {
    return this._snapshot;
  }

  get error(): string | null {
    return this._error;
  }

  get isBusy(): boolean {
    return (
      !!this._snapshot && this._snapshot.stale && this._snapshot.kernel_busy
    );
  }

  get restarted(): boolean {
    return this._restarted;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Follow another kernel (or none). The old snapshot is dropped at once: a snapshot of
   * one kernel is never shown under another.
   */
  setKernel(kernel: IKernelInfo | null): void {
    const same =
      kernel !== null &&
      this._kernel !== null &&
      kernel.id === this._kernel.id &&
      kernel.name === this._kernel.name &&
      kernel.source === this._kernel.source &&
      kernel.path === this._kernel.path;
    if (same || (kernel === null && this._kernel === null)) {
      return;
    }
    const sameId = kernel?.id === this._kernel?.id;
    this._kernel = kernel;
    if (!sameId) {
      this._restarted = false;
      this._snapshot = null;
      this._error = null;
      this._status = kernel ? 'loading' : 'no-kernel';
    }
    this._emit();
  }

  /**
   * The kernel restarted: its variables are gone until the next snapshot.
   */
  reset(): void {
    if (!this._kernel) {
      return;
    }
    this._snapshot = null;
    this._error = null;
    this._status = 'loading';
    this._restarted = true;
    this._emit();
  }

  /**
   * Show a snapshot of the followed kernel; snapshots of other kernels and older
   * snapshots of the same kernel epoch are ignored.
   */
  setSnapshot(snapshot: ISnapshot): boolean {
    if (!this._kernel || snapshot.kernel_id !== this._kernel.id) {
      return false;
    }
    const current = this._snapshot;
    if (current === snapshot && this._status === 'ready') {
      return false;
    }
    if (
      current &&
      current.epoch === snapshot.epoch &&
      current.generation > snapshot.generation
    ) {
      return false;
    }
    if (this._restarted && snapshot.execution_count) {
      this._restarted = false; // a cell has run since the restart
    }
    this._snapshot = snapshot;
    this._status = 'ready';
    this._error = null;
    this._emit();
    return true;
  }

  /**
   * The last request failed. The snapshot is kept for `error` so a transient failure
   * does not blank the list, but dropped when the kernel's language is unsupported.
   */
  setError(status: 'error' | 'unsupported', message: string): void {
    if (!this._kernel) {
      return;
    }
    this._status = status;
    this._error = message;
    if (status === 'unsupported') {
      this._snapshot = null;
    }
    this._emit();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    Signal.clearData(this);
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _changed = new Signal<IKernelStateModel, void>(this);
  private _status: KernelStateStatus = 'no-kernel';
  private _kernel: IKernelInfo | null = null;
  private _snapshot: ISnapshot | null = null;
  private _error: string | null = null;
  private _restarted = false;
  private _isDisposed = false;
}
