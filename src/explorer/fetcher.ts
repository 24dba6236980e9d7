/**
 * The block loading of the data explorer's model: a queue of the blocks the grid
 * asked for (the most recently asked first, at most `MAX_QUEUED`), a few fetches in
 * flight, retries while the kernel is busy (503), one adaptation to a server that
 * allows smaller windows, giving up a sort or filter the kernel cannot do, and
 * receiving windows into the block cache (never mixing two values of the variable).
 *
 * `RowsDataModel` (model.ts) is the `DataModel` built on it.
 */
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { DataModel } from '@lumino/datagrid';
import { Signal } from '@lumino/signaling';

import { IRowsColumn, IRowsFilter, IRowsQuery, IRowsWindow } from '../tokens';
import { blockKey, BlockCache, IBlock } from './blocks';
import {
  COLUMNS_PER_BLOCK,
  describeError,
  ISortState,
  ITableInfo,
  MAX_BLOCKS,
  MAX_BUSY_RETRIES,
  MAX_CELLS,
  MAX_IN_FLIGHT,
  MAX_QUEUED,
  MAX_RETRY_DELAY_MS,
  ROWS_PER_BLOCK,
  RowsFetcher,
  sortParam,
  StaleReason
} from './query';

/**
 * How a model loads its rows (`RowsDataModel.IOptions`).
 */
export interface IRowsLoaderOptions {
  /**
   * Fetch one window (`IKernelStateService.rows` bound to a kernel and a name).
   */
  fetch: RowsFetcher;
  /**
   * Translates the messages the model makes itself (a sort or filter given up).
   */
  translator?: ITranslator;
  rowsPerBlock?: number;
  columnsPerBlock?: number;
  maxBlocks?: number;
  maxCells?: number;
  maxInFlight?: number;
  /**
   * Wait before retrying a busy kernel (tests pass an immediate one).
   */
  wait?: (ms: number) => Promise<void>;
}

export abstract class RowsLoader extends DataModel {
  constructor(options: IRowsLoaderOptions) {
    super();
    this._fetch = options.fetch;
    this._trans = (options.translator ?? nullTranslator).load(
      'jupyter_kernel_state'
    );
    this._rowsPerBlock = options.rowsPerBlock ?? ROWS_PER_BLOCK;
    this._columnsPerBlock = options.columnsPerBlock ?? COLUMNS_PER_BLOCK;
    this._cache = new BlockCache(
      options.maxBlocks ?? MAX_BLOCKS,
      options.maxCells ?? MAX_CELLS
    );
    this._maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this._wait =
      options.wait ?? (ms => new Promise(resolve => setTimeout(resolve, ms)));
  }

  /**
   * The rows the grid shows: those the filter keeps, else all.
   */
  abstract get shownRows(): number;

  /**
   * Say that the rows shown are no longer the variable's.
   */
  abstract markStale(reason: StaleReason): void;

  protected _want(row: number, column: number): void {
    const info = this._info;
    if (
      this._isDisposed ||
      this._staleReason === 'removed' ||
      row < 0 ||
      column < 0 ||
      (info !== null && (row >= this.shownRows || column >= info.columnsTotal))
    ) {
      return;
    }
    const rowBlock = Math.floor(row / this._rowsPerBlock);
    const columnBlock = Math.floor(column / this._columnsPerBlock);
    const key = blockKey(rowBlock, columnBlock);
    if (
      this._cache.has(key) ||
      this._inFlight.has(key) ||
      this._failed.has(key)
    ) {
      return;
    }
    // Queued keys move to the front: the most recently painted are fetched first.
    this._queue = this._queue.filter(queued => queued.key !== key);
    this._queue.push({ key, rowBlock, columnBlock });
    if (this._queue.length > MAX_QUEUED) {
      this._queue.shift();
    }
    if (!this._pumpScheduled) {
      this._pumpScheduled = true;
      void Promise.resolve().then(() => {
        this._pumpScheduled = false;
        this._pump();
      });
    }
  }

  protected _pump(): void {
    while (
      !this._isDisposed &&
      this._inFlight.size < this._maxInFlight &&
      this._queue.length > 0
    ) {
      const next = this._queue.pop()!;
      this._inFlight.add(next.key);
      void this._fetchBlock(next.key, next.rowBlock, next.columnBlock);
    }
    if (this._idle()) {
      this._resolveSettled();
    }
  }

  protected async _fetchBlock(
    key: string,
    rowBlock: number,
    columnBlock: number
  ): Promise<void> {
    const epoch = this._epoch;
    const offset = rowBlock * this._rowsPerBlock;
    const start = columnBlock * this._columnsPerBlock;
    const total = this._info ? this.shownRows : undefined;
    const columnsTotal = this._info?.columnsTotal;
    const stop =
      columnsTotal === undefined
        ? start + this._columnsPerBlock
        : Math.min(start + this._columnsPerBlock, columnsTotal);
    const query: IRowsQuery = {
      offset,
      limit:
        total === undefined
          ? this._rowsPerBlock
          : Math.max(1, Math.min(this._rowsPerBlock, total - offset)),
      columns: `${start}:${stop}`,
      sort: sortParam(this._sort),
      ...(this._filter ? { filter: this._filter } : {})
    };
    let attempt = 0;
    for (;;) {
      this._fetchCount++;
      try {
        const window = await this._fetch(query);
        if (epoch === this._epoch && !this._isDisposed) {
          this._receive(key, window);
        }
        break;
      } catch (error) {
        if (epoch !== this._epoch || this._isDisposed) {
          break;
        }
        const { status, message, retryAfter } = describeError(error);
        if (status === 400 && (await this._adapt(epoch))) {
          break;
        }
        if (
          (status === 400 || status === 422) &&
          this._info &&
          (this._sort || this._filter)
        ) {
          // The kernel could not sort or filter (too slow, values that do not
          // compare, a value not of the column's type): drop what was asked last,
          // and say why.
          this._giveUp(message);
          break;
        }
        if (retryAfter !== null && attempt < MAX_BUSY_RETRIES) {
          attempt++;
          this._retrying++;
          this._emitState();
          await this._wait(
            Math.min(Math.max(retryAfter * 1000, 200), MAX_RETRY_DELAY_MS)
          );
          this._retrying--;
          if (epoch !== this._epoch || this._isDisposed) {
            break;
          }
          continue;
        }
        this._failed.add(key);
        if (status === 404 && this._info !== null) {
          this._staleReason = 'removed'; // else the status says it does not exist
        }
        this._error = message;
        this._errorStatus = status;
        this._emitState();
        break;
      }
    }
    if (epoch === this._epoch) {
      this._inFlight.delete(key);
    }
    this._pump();
  }

  protected _giveUp(message: string): void {
    const sort = this._sort;
    const filter = this._filter;
    if (filter && (this._lastChanged === 'filter' || !sort)) {
      this._filter = null;
      this._rebase = true;
      this._queryError = this._trans.__(
        'Cannot filter on %1: %2',
        filter.column,
        message
      );
    } else if (sort) {
      this._sort = null;
      this._queryError = this._trans.__(
        'Cannot sort by %1: %2',
        sort.column,
        message
      );
    }
    const error = this._queryError;
    this._reset();
    this._queryError = error;
    this._want(0, 0);
    this._emitState();
  }

  /**
   * The first window was refused (400): the server may allow fewer rows or columns
   * a window (`rows_max_rows`, `rows_max_columns`). Ask once with the server's
   * defaults and use blocks no larger than its answer.
   */
  protected async _adapt(epoch: number): Promise<boolean> {
    if (this._info !== null || this._adapted) {
      return false;
    }
    this._adapted = true;
    let window: IRowsWindow;
    try {
      window = await this._fetch({
        offset: 0,
        sort: sortParam(this._sort),
        ...(this._filter ? { filter: this._filter } : {})
      });
    } catch {
      return false;
    }
    if (epoch === this._epoch && !this._isDisposed) {
      this._rowsPerBlock = Math.max(
        1,
        Math.min(this._rowsPerBlock, window.limit)
      );
      const width = window.columns.length;
      if (width > 0 && width < window.columns_total) {
        this._columnsPerBlock = Math.min(this._columnsPerBlock, width);
      }
      this._receive(blockKey(0, 0), window);
    }
    return true;
  }

  protected _receive(key: string, window: IRowsWindow): void {
    const info = this._info;
    if (
      info !== null &&
      !this._rebase &&
      (window.total_rows !== info.totalRows ||
        (window.filtered_rows ?? null) !== info.filteredRows ||
        window.columns_total !== info.columnsTotal ||
        window.changed_at !== info.changedAt)
    ) {
      // The variable changed since the first block: never mix two values in one
      // grid. The old rows stay until `refresh`.
      this._failed.add(key);
      this.markStale('changed');
      return;
    }
    const hadError = this._error !== null;
    this._error = null;
    this._errorStatus = null;
    const block: IBlock = {
      offset: window.offset,
      index: window.index,
      columns: window.columns,
      rows: window.rows
    };
    let newColumns = false;
    for (const column of window.columns) {
      if (!this._columns.has(column.position)) {
        this._columns.set(column.position, column);
        newColumns = true;
      }
    }
    this._cache.set(key, block);
    if (info === null || this._rebase) {
      this._rebase = false;
      this._info = {
        name: window.name,
        kind: window.kind,
        type: window.type,
        shape: window.shape,
        totalRows: window.total_rows,
        filteredRows: window.filtered_rows ?? null,
        columnsTotal: window.columns_total,
        indexName: window.index_name,
        changedAt: window.changed_at,
        epoch: window.epoch ?? null,
        generation: window.generation,
        stale: window.stale
      };
      this.emitChanged({ type: 'model-reset' });
      this._emitState();
      return;
    }
    if (window.stale !== info.stale) {
      this._info = { ...info, stale: window.stale };
      this._emitState();
    } else if (hadError) {
      this._emitState();
    }
    const first = window.columns.length ? window.columns[0].position : 0;
    if (window.rows.length > 0 && window.columns.length > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: 'body',
        row: window.offset,
        column: first,
        rowSpan: window.rows.length,
        columnSpan: window.columns.length
      });
    }
    if (window.index.length > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: 'row-header',
        row: window.offset,
        column: 0,
        rowSpan: window.index.length,
        columnSpan: 1
      });
    }
    if (newColumns && window.columns.length > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: 'column-header',
        row: 0,
        column: first,
        rowSpan: 2,
        columnSpan: window.columns.length
      });
    }
  }

  /**
   * Forget every block and every pending fetch (their answers are ignored).
   */
  protected _reset(): void {
    this._epoch++;
    this._cache.clear();
    this._queue = [];
    this._inFlight.clear();
    this._failed.clear();
    this._error = null;
    this._errorStatus = null;
    this._retrying = 0;
    this.emitChanged({ type: 'model-reset' });
    this._emitState();
    if (this._info !== null) {
      this._want(0, 0);
    }
  }

  protected _idle(): boolean {
    return (
      this._queue.length === 0 &&
      this._inFlight.size === 0 &&
      !this._pumpScheduled
    );
  }

  protected _resolveSettled(): void {
    const waiting = this._whenSettled;
    this._whenSettled = [];
    waiting.forEach(resolve => resolve());
  }

  protected _emitState(): void {
    if (!this._isDisposed) {
      this._stateChanged.emit();
    }
  }

  protected _fetch: RowsFetcher;
  protected _trans: TranslationBundle;
  protected _wait: (ms: number) => Promise<void>;
  protected _rowsPerBlock: number;
  protected _columnsPerBlock: number;
  protected _maxInFlight: number;
  protected _cache: BlockCache;
  protected _columns = new Map<number, IRowsColumn>();
  protected _queue: { key: string; rowBlock: number; columnBlock: number }[] =
    [];
  protected _inFlight = new Set<string>();
  protected _failed = new Set<string>();
  protected _pumpScheduled = false;
  protected _whenSettled: (() => void)[] = [];
  protected _epoch = 0;
  protected _rebase = false;
  protected _adapted = false;
  protected _lastColumnBlock = 0;
  protected _fetchCount = 0;
  protected _retrying = 0;
  protected _info: ITableInfo | null = null;
  protected _sort: ISortState | null = null;
  protected _error: string | null = null;
  protected _errorStatus: number | null = null;
  protected _queryError: string | null = null;
  protected _filter: IRowsFilter | null = null;
  protected _lastChanged: 'sort' | 'filter' = 'sort';
  protected _staleReason: StaleReason | null = null;
  protected _stateChanged = new Signal<this, void>(this);
  protected _isDisposed = false;
}
