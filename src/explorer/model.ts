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

import { IRowsColumn, IRowsFilter } from '../tokens';
import { blockKey, IBlock } from './blocks';
import { IRowsLoaderOptions, RowsLoader } from './fetcher';
import {
  filterKey,
  ICellMetadata,
  ISortState,
  ITableInfo,
  nextSort,
  sortParam,
  StaleReason
} from './query';

export class RowsDataModel extends RowsLoader {
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
}

export namespace RowsDataModel {
  export type IOptions = IRowsLoaderOptions;
}
