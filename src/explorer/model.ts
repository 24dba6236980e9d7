/**
 * The data model of the data explorer: a `@lumino/datagrid` `DataModel` over one
 * variable of a kernel, read lazily in blocks from `GET .../variables/{name}/rows` as
 * the grid paints. Never the whole table: only the blocks the viewport asks for, at
 * most `maxBlocks` of them kept (least recently used dropped), each fetched once at a
 * time (pending fetches are shared), a few in flight, the most recently asked first.
 *
 * Cells not loaded yet read as `undefined` (the view paints "…"); missing values are
 * `null`. Sorting is done by the kernel: a new sort drops every block.
 */
import { DataModel } from '@lumino/datagrid';
import { ISignal, Signal } from '@lumino/signaling';

import { IRowsColumn, IRowsFilter, IRowsQuery, IRowsWindow } from '../tokens';
import { blockKey, BlockCache, IBlock } from './blocks';
import {
  COLUMNS_PER_BLOCK,
  describeError,
  filterKey,
  ICellMetadata,
  ISortState,
  ITableInfo,
  MAX_BLOCKS,
  MAX_BUSY_RETRIES,
  MAX_CELLS,
  MAX_IN_FLIGHT,
  MAX_QUEUED,
  MAX_RETRY_DELAY_MS,
  nextSort,
  ROWS_PER_BLOCK,
  RowsFetcher,
  sortParam,
  StaleReason
} from './query';

export * from './query';

export class RowsDataModel extends DataModel {
  constructor(options: RowsDataModel.IOptions) {
    super();
    this._fetch = options.fetch;
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
   * Emitted when the info, sort, error, busy or stale state changes.
   */
  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  get info(): ITableInfo | null {
    return this._info;
  }

  get sort(): ISortState | null {
    return this._sort;
  }

  get filter(): IRowsFilter | null {
    return this._filter;
  }

  /**
   * The rows the grid shows: those the filter keeps, else all.
   */
  get shownRows(): number {
    const info = this._info;
    return info ? (info.filteredRows ?? info.totalRows) : 0;
  }

  /**
   * The last error's message (409 lazy object, 422 the object raised, …), or null.
   */
  get error(): string | null {
    return this._error;
  }

  /**
   * Why the last sort or filter asked for was given up, or null.
   */
  get queryError(): string | null {
    return this._queryError;
  }

  /**
   * The HTTP status of the last error, or null.
   */
  get errorStatus(): number | null {
    return this._errorStatus;
  }

  /**
   * Some fetch waits for a busy kernel (503) before trying again.
   */
  get retrying(): boolean {
    return this._retrying > 0;
  }

  /**
   * Why the rows shown are no longer the variable's, or null.
   */
  get staleReason(): StaleReason | null {
    return this._staleReason;
  }

  /**
   * Fetches started since the model was made (what the cache saves, in tests).
   */
  get fetchCount(): number {
    return this._fetchCount;
  }

  get cachedBlocks(): number {
    return this._cache.size;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * The column at a position, once a block holding it arrived.
   */
  column(position: number): IRowsColumn | undefined {
    return this._columns.get(position);
  }

  rowCount(region: DataModel.RowRegion): number {
    if (region === 'column-header') {
      return 2; // name, dtype
    }
    return this.shownRows;
  }

  columnCount(region: DataModel.ColumnRegion): number {
    if (region === 'row-header') {
      return 1;
    }
    return this._info?.columnsTotal ?? 0;
  }

  /**
   * A cell's text, `null` for a missing value, `undefined` while not loaded (a fetch
   * of its block is then asked for).
   */
  data(
    region: DataModel.CellRegion,
    row: number,
    column: number
  ): string | null | undefined {
    switch (region) {
      case 'corner-header':
        return row === 0 && column === 0 ? (this._info?.indexName ?? '') : '';
      case 'column-header':
        return this._headerText(row, column);
      case 'row-header': {
        // Any block of the row's stripe holds its label: prefer the columns painted.
        const rowBlock = Math.floor(row / this._rowsPerBlock);
        const block =
          this._cache.get(blockKey(rowBlock, this._lastColumnBlock)) ??
          this._block(row, 0);
        return block ? block.index[row - block.offset] : undefined;
      }
      default: {
        const block = this._block(row, column);
        if (!block) {
          return undefined;
        }
        const first = block.columns.length ? block.columns[0].position : 0;
        return block.rows[row - block.offset]?.[column - first];
      }
    }
  }

  metadata(
    region: DataModel.CellRegion,
    row: number,
    column: number
  ): ICellMetadata {
    if (region !== 'body') {
      return DataModel.emptyMetadata;
    }
    const dtype = this._columns.get(column)?.dtype;
    return dtype === undefined || dtype === null
      ? DataModel.emptyMetadata
      : { dtype };
  }

  /**
   * Fetch the first block: the shape, the first columns and rows.
   */
  load(): Promise<void> {
    this._want(0, 0);
    return this.settled();
  }

  /**
   * Resolves when no fetch is queued, in flight or waiting to retry.
   */
  settled(): Promise<void> {
    if (this._idle()) {
      return Promise.resolve();
    }
    return new Promise(resolve => this._whenSettled.push(resolve));
  }

  /**
   * Sort in the kernel (null: the table's own order). Drops every block.
   */
  setSort(sort: ISortState | null): void {
    if (sortParam(sort) === sortParam(this._sort)) {
      return;
    }
    this._sort = sort;
    this._queryError = null;
    this._lastChanged = 'sort';
    this._reset();
  }

  /**
   * Keep only the rows that match, computed in the kernel (null: every row). The row
   * count changes: every block is dropped and the next window gives the new count.
   */
  setFilter(filter: IRowsFilter | null): Promise<void> {
    if (filterKey(filter) === filterKey(this._filter)) {
      return Promise.resolve();
    }
    this._filter = filter;
    this._queryError = null;
    this._lastChanged = 'filter';
    this._rebase = true;
    this._reset();
    return this.load();
  }

  /**
   * Cycle the sort of the column at a position: ascending, descending, none.
   */
  cycleSort(position: number): void {
    const column = this._columns.get(position);
    if (column) {
      this.setSort(nextSort(this._sort, column.name));
    }
  }

  /**
   * Read the variable again (same sort): forget the blocks and the stale state; the
   * next window that arrives gives the shape (the scroll position is kept when it did
   * not change).
   */
  refresh(): Promise<void> {
    this._columns.clear();
    this._staleReason = null;
    this._rebase = true;
    this._reset();
    return this.load();
  }

  /**
   * Ask again for the blocks that failed (after a busy kernel became idle): the grid
   * repaints their cells and so asks for them.
   */
  retryFailed(): void {
    const failed = [...this._failed];
    if (failed.length === 0) {
      return;
    }
    this._failed.clear();
    this._error = null;
    this._errorStatus = null;
    this._emitState();
    if (this._info === null) {
      this._want(0, 0);
      return;
    }
    for (const key of failed) {
      const [rowBlock, columnBlock] = key.split(':').map(Number);
      const row = rowBlock * this._rowsPerBlock;
      const column = columnBlock * this._columnsPerBlock;
      const rowSpan = Math.min(this._rowsPerBlock, this.shownRows - row);
      const columnSpan = Math.min(
        this._columnsPerBlock,
        this._info.columnsTotal - column
      );
      if (rowSpan > 0 && columnSpan > 0) {
        this.emitChanged({
          type: 'cells-changed',
          region: 'body',
          row,
          column,
          rowSpan,
          columnSpan
        });
      }
    }
  }

  /**
   * Say that the rows shown are no longer the variable's (the data stays visible
   * until `refresh`). A removal wins over a change.
   */
  markStale(reason: StaleReason): void {
    if (this._staleReason === reason || this._staleReason === 'removed') {
      return;
    }
    this._staleReason = reason;
    this._emitState();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._cache.clear();
    this._queue = [];
    this._resolveSettled();
    Signal.clearData(this);
  }

  private _headerText(row: number, column: number): string | undefined {
    const info = this._columns.get(column);
    if (!info) {
      this._want(0, column);
      return undefined;
    }
    if (row === 1) {
      return info.dtype ?? '';
    }
    const sort = this._sort;
    if (sort && sort.column === info.name) {
      return `${info.name} ${sort.direction === 'asc' ? '▲' : '▼'}`;
    }
    return info.name;
  }

  /**
   * The block holding a cell, or undefined after asking for it.
   */
  private _block(row: number, column: number): IBlock | undefined {
    const key = blockKey(
      Math.floor(row / this._rowsPerBlock),
      Math.floor(column / this._columnsPerBlock)
    );
    const block = this._cache.get(key);
    this._lastColumnBlock = Math.floor(column / this._columnsPerBlock);
    if (block === undefined) {
      this._want(row, column);
    }
    return block;
  }

  private _want(row: number, column: number): void {
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

  private _pump(): void {
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

  private async _fetchBlock(
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

  private _giveUp(message: string): void {
    const sort = this._sort;
    const filter = this._filter;
    if (filter && (this._lastChanged === 'filter' || !sort)) {
      this._filter = null;
      this._rebase = true;
      this._queryError = `Cannot filter on ${filter.column}: ${message}`;
    } else if (sort) {
      this._sort = null;
      this._queryError = `Cannot sort by ${sort.column}: ${message}`;
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
  private async _adapt(epoch: number): Promise<boolean> {
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

  private _receive(key: string, window: IRowsWindow): void {
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
  private _reset(): void {
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

  private _idle(): boolean {
    return (
      this._queue.length === 0 &&
      this._inFlight.size === 0 &&
      !this._pumpScheduled
    );
  }

  private _resolveSettled(): void {
    const waiting = this._whenSettled;
    this._whenSettled = [];
    waiting.forEach(resolve => resolve());
  }

  private _emitState(): void {
    if (!this._isDisposed) {
      this._stateChanged.emit();
    }
  }

  private _fetch: RowsFetcher;
  private _wait: (ms: number) => Promise<void>;
  private _rowsPerBlock: number;
  private _columnsPerBlock: number;
  private _maxInFlight: number;
  private _cache: BlockCache;
  private _columns = new Map<number, IRowsColumn>();
  private _queue: { key: string; rowBlock: number; columnBlock: number }[] = [];
  private _inFlight = new Set<string>();
  private _failed = new Set<string>();
  private _pumpScheduled = false;
  private _whenSettled: (() => void)[] = [];
  private _epoch = 0;
  private _rebase = false;
  private _adapted = false;
  private _lastColumnBlock = 0;
  private _fetchCount = 0;
  private _retrying = 0;
  private _info: ITableInfo | null = null;
  private _sort: ISortState | null = null;
  private _error: string | null = null;
  private _errorStatus: number | null = null;
  private _queryError: string | null = null;
  private _filter: IRowsFilter | null = null;
  private _lastChanged: 'sort' | 'filter' = 'sort';
  private _staleReason: StaleReason | null = null;
  private _stateChanged = new Signal<this, void>(this);
  private _isDisposed = false;
}

export namespace RowsDataModel {
  export interface IOptions {
    /**
     * Fetch one window (`fetchRows` bound to a kernel and a name).
     */
    fetch: RowsFetcher;
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
}
