/**
 * Tells the explorer when the rows it shows are no longer the variable's: the
 * kernel-state service's snapshots of the same kernel say the variable changed
 * (`changed_at` moved on) or is gone, or the kernel restarted. When a snapshot does
 * not list the name (a hidden group, a filter, a page), one row is asked for instead
 * (`IKernelStateService.rows`); so it is after each execution on the kernel (`executed` is emitted even when no view
 * of the service is visible, when no snapshots are fetched).
 */
import { IDisposable } from '@lumino/disposable';

import { IExecutedArgs, IKernelStateService } from '../../tokens';
import { RowsDataModel } from './model';
import { describeError } from '../errors';
import { sortParam } from './sort';

export class VariableWatch implements IDisposable {
  constructor(options: VariableWatch.IOptions) {
    this._service = options.service;
    this._kernelId = options.kernelId;
    this._name = options.name;
    this._model = options.model;
    this._service.model.changed.connect(this._check, this);
    this._model.stateChanged.connect(this._check, this);
    this._service.executed.connect(this._onExecuted, this);
    this._check();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._service.model.changed.disconnect(this._check, this);
    this._model.stateChanged.disconnect(this._check, this);
    this._service.executed.disconnect(this._onExecuted, this);
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
  }

  private _onExecuted(_: IKernelStateService, args: IExecutedArgs): void {
    if (args.kernelId !== this._kernelId || this._timer !== null) {
      return;
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      if (this._isDisposed) {
        return;
      }
      if (this._model.errorStatus === 503) {
        this._model.retryFailed(); // the kernel was busy: it has run a cell since
      }
      if (this._model.info && this._model.staleReason === null) {
        void this._probeOnce();
      }
    }, PROBE_DELAY_MS);
  }

  private _check(): void {
    const kernelModel = this._service.model;
    const info = this._model.info;
    if (
      this._isDisposed ||
      !info ||
      this._model.staleReason !== null ||
      this._model.loading ||
      kernelModel.kernel?.id !== this._kernelId
    ) {
      if (!info || this._model.staleReason !== null) {
        this._epoch = null; // the baseline is taken again after a refresh
      }
      return;
    }
    if (kernelModel.restarted) {
      this._model.markStale('restarted');
      return;
    }
    const snapshot = kernelModel.snapshot;
    if (!snapshot || snapshot.kernel_id !== this._kernelId) {
      return;
    }
    if (this._epoch === null) {
      this._epoch = info.epoch ?? snapshot.epoch;
    }
    if (snapshot.epoch > this._epoch) {
      this._model.markStale('restarted');
      return;
    }
    const entry = snapshot.variables.find(v => v.name === this._name);
    if (entry) {
      if (isNewer(entry.changed_at, info.changedAt)) {
        this._model.markStale('changed');
      }
      return;
    }
    if (snapshot.removed.includes(this._name)) {
      this._model.markStale('removed');
      return;
    }
    // Not listed: ask the kernel once per snapshot generation.
    if (this._probedGeneration === snapshot.generation) {
      return;
    }
    this._probedGeneration = snapshot.generation;
    void this._probeOnce();
  }

  /**
   * Ask one row; compared with the rows shown when the answer arrives (a refresh
   * may have read a newer value meanwhile).
   */
  private async _probeOnce(): Promise<void> {
    try {
      // The same sort as the grid's: the kernel remembers one sort per variable.
      const window = await this._service.rows(
        this._name,
        {
          offset: 0,
          limit: 1,
          columns: '0:1',
          sort: sortParam(this._model.sort),
          ...(this._model.filter ? { filter: this._model.filter } : {})
        },
        this._kernelId
      );
      const info = this._model.info;
      if (
        !this._isDisposed &&
        info &&
        !this._model.loading &&
        isNewer(window.changed_at, info.changedAt)
      ) {
        this._model.markStale('changed');
      }
    } catch (error) {
      if (!this._isDisposed && describeError(error).status === 404) {
        this._model.markStale('removed');
      }
    }
  }

  private _service: IKernelStateService;
  private _kernelId: string;
  private _name: string;
  private _model: RowsDataModel;
  private _epoch: number | null = null;
  private _probedGeneration: number | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _isDisposed = false;
}

/**
 * Wait after an execution before asking (runs in a burst share one request).
 */
const PROBE_DELAY_MS = 300;

/**
 * Whether `next` says a later change than `loaded` (any difference when one is not a
 * number). A snapshot older than the rows never marks them stale.
 */
export function isNewer(
  next: number | null | undefined,
  loaded: number | null | undefined
): boolean {
  if (typeof next === 'number' && typeof loaded === 'number') {
    return next > loaded;
  }
  return (next ?? null) !== (loaded ?? null);
}

export namespace VariableWatch {
  export interface IOptions {
    service: IKernelStateService;
    kernelId: string;
    name: string;
    model: RowsDataModel;
  }
}
