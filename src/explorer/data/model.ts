/**
 * The data model of the data explorer: a `@lumino/datagrid` `DataModel` over one
 * variable of a kernel, read lazily in blocks from `GET .../variables/{name}/rows` as
 * the grid paints. Never the whole table: only the blocks the viewport asks for, at
 * most `maxBlocks` of them kept (least recently used dropped), each fetched once at a
 * time (pending fetches are shared), a few in flight, the most recently asked first.
 *
 * Cells not loaded yet read as `undefined` (the view paints "…"); missing values are
 * `null`. Sorting (several keys) and filtering (a tree of conditions) are done by the
 * kernel: a new sort drops every block, a new filter also reads the row count again.
 *
 * Columns may be pinned (shown beside the row labels, in the row-header region: its
 * column 0 is the labels, 1… the pinned columns) or hidden; the body shows the others
 * in table order (`ColumnLayout`).
 *
 * A table in an engine (`info.engine`) may be "not counted": the grid then shows the
 * rows read so far and grows as windows come back full; `count()` asks the engine.
 */
import { DataModel } from '@lumino/datagrid';
import { ISignal, Signal } from '@lumino/signaling';

import { FilterNode, IRowsColumn } from '../../tokens';
import { blockKey } from './blocks';
import { IRowsLoaderOptions, PINNED, RowsLoader } from './fetcher';
import { ColumnLayout } from './layout';
import { describeError } from '../errors';
import { filterKey, ICellMetadata, ITableInfo, StaleReason } from './query';
import { ISortState, nextSort, sortMarker, sortParam } from './sort';

export class RowsDataModel extends RowsLoader {
  /**
   * Emitted when the info, sort, filter, layout, error, busy or stale state changes.
   */
  get stateChanged(): ISignal<this, void> {
    return this._stateChanged;
  }

  get info(): ITableInfo | null {
    return this._info;
  }

  /**
   * The sort keys, the first ranking first (empty: the table's own order).
   */
  get sort(): readonly ISortState[] {
    return this._sort;
  }

  get filter(): FilterNode | null {
    return this._filter;
  }

  /**
   * Which columns are pinned and hidden (change them through the model).
   */
  get layout(): Readonly<ColumnLayout> {
    return this._layout;
  }

  /**
   * The rows the grid shows: those the filter keeps, else all; while not counted,
   * the rows read so far and one more (painting it reads the next window).
   */
  get shownRows(): number {
    if (this._info === null) {
      return 0;
    }
    return this.viewRows ?? this._read + 1;
  }

  /**
   * The exact rows of the view (those the filter keeps, else all): counted, or read
   * to their end; null while not (an engine table whose count did not finish).
   */
  get viewRows(): number | null {
    const info = this._info;
    if (info === null) {
      return null;
    }
    return (info.filtered ? info.filteredRows : info.totalRows) ?? this._end;
  }

  /**
   * A count of the view is on its way (`count()`).
   */
  get counting(): boolean {
    return this._counting;
  }

  /**
   * Why the last count failed (cancelled in the engine past its guard, the engine
   * raised), or null.
   */
  get countError(): string | null {
    return this._countError;
  }

  /**
   * The last error's message (409 lazy object, 422 the object raised, …), or null.
   */
  get error(): string | null {
    return this._error;
  }

  /**
   * Why the last sort asked for was given up, or null.
   */
  get queryError(): string | null {
    return this._queryError;
  }

  /**
   * The server's message for the last filter it refused (the filter is dropped), or
   * null.
   */
  get filterError(): string | null {
    return this._filterError;
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
   * The column at a table position, once a window holding it arrived.
   */
  column(position: number): IRowsColumn | undefined {
    return this._columns.get(position);
  }

  /**
   * The known columns, by position (names may repeat).
   */
  knownColumns(): IRowsColumn[] {
    return [...this._columns.values()].sort((a, b) => a.position - b.position);
  }

  /**
   * The first column named `name`, when known.
   */
  columnNamed(name: string): IRowsColumn | undefined {
    let found: IRowsColumn | undefined;
    for (const column of this._columns.values()) {
      if (
        column.name === name &&
        (found === undefined || column.position < found.position)
      ) {
        found = column;
      }
    }
    return found;
  }

  /**
   * The table position of a grid column: a body column, or one of the row-header
   * region (0 is the labels: -1; 1… the pinned columns).
   */
  positionAt(region: 'body' | 'row-header', column: number): number {
    if (region === 'row-header') {
      return column === 0 ? -1 : (this._layout.pinned[column - 1] ?? -1);
    }
    return this._layout.positionOf(column);
  }

  rowCount(region: DataModel.RowRegion): number {
    if (region === 'column-header') {
      return 2; // name, dtype
    }
    return this.shownRows;
  }

  columnCount(region: DataModel.ColumnRegion): number {
    if (region === 'row-header') {
      return 1 + this._layout.pinned.length;
    }
    return this._info ? this._layout.bodyCount : 0;
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
        if (column === 0) {
          return row === 0 ? (this._info?.indexName ?? '') : '';
        }
        return this._headerText(
          row,
          this.positionAt('row-header', column),
          PINNED
        );
      case 'column-header':
        return this._headerText(row, this._layout.positionOf(column), column);
      case 'row-header': {
        const rowBlock = Math.floor(row / this._rowsPerBlock);
        if (column > 0) {
          const hit = this._blockHolding(
            blockKey(rowBlock, PINNED),
            this.positionAt('row-header', column),
            row,
            PINNED
          );
          return hit ? hit.block.rows[row - hit.block.offset]?.[hit.at] : hit;
        }
        // Any block of the row's stripe holds its label: prefer the columns painted.
        const block =
          this._cache.get(blockKey(rowBlock, this._lastColumnBlock)) ??
          this._cache.get(blockKey(rowBlock, PINNED)) ??
          this._cache.get(blockKey(rowBlock, 0));
        if (!block) {
          this._want(row, this._lastColumnBlock * this._columnsPerBlock);
          return undefined;
        }
        return block.index[row - block.offset];
      }
      default: {
        const rowBlock = Math.floor(row / this._rowsPerBlock);
        const columnBlock = Math.floor(column / this._columnsPerBlock);
        this._lastRowBlock = rowBlock;
        this._lastColumnBlock = columnBlock;
        const hit = this._blockHolding(
          blockKey(rowBlock, columnBlock),
          this._layout.positionOf(column),
          row,
          column
        );
        return hit ? hit.block.rows[row - hit.block.offset]?.[hit.at] : hit;
      }
    }
  }

  metadata(
    region: DataModel.CellRegion,
    row: number,
    column: number
  ): ICellMetadata {
    let position = -1;
    if (region === 'body') {
      position = this._layout.positionOf(column);
    } else if (region === 'row-header' && column > 0) {
      position = this.positionAt('row-header', column);
    }
    const dtype = position < 0 ? undefined : this._columns.get(position)?.dtype;
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
   * Count the view's rows in the table's engine (a view not counted): the grid then
   * knows its size. A failure is `countError`; a count of a view changed meanwhile
   * (another filter, the value read again) is dropped.
   */
  async count(): Promise<void> {
    const counter = this._count;
    if (counter === null || this._info === null || this._counting) {
      return;
    }
    const filter = this._filter;
    const shape = this._shapeEpoch;
    const current = () =>
      !this._isDisposed &&
      this._rebase === null &&
      shape === this._shapeEpoch &&
      filterKey(filter) === filterKey(this._filter);
    this._counting = true;
    this._countError = null;
    this._emitState();
    try {
      const result = await counter(filter ? { filter } : {});
      if (current()) {
        this._setCount(result.rows, result.filtered);
        this.noteCost('count', result.cost_ms);
      }
    } catch (error) {
      if (current()) {
        this._countError = describeError(error).message;
      }
    } finally {
      this._counting = false;
      this._emitState();
    }
  }

  /**
   * Sort in the kernel by these keys (empty: the table's own order). Drops every
   * block.
   */
  setSort(keys: readonly ISortState[] | null): void {
    const next = keys ? [...keys] : [];
    if (sortParam(next) === sortParam(this._sort)) {
      return;
    }
    this._sort = next;
    this._lastChanged = 'sort';
    this._budgetMs = null;
    this._reset();
  }

  /**
   * Keep only the rows that match, computed in the kernel (null: every row). The row
   * count changes: every block is dropped and the next window gives the new count.
   */
  setFilter(filter: FilterNode | null): Promise<void> {
    if (filterKey(filter) === filterKey(this._filter)) {
      if (this._filterError !== null) {
        this._filterError = null;
        this._emitState();
      }
      return Promise.resolve();
    }
    this._filter = filter;
    this._lastChanged = 'filter';
    this._budgetMs = null;
    this._rebase = this._rebase ?? 'rows';
    this._reset();
    return this.load();
  }

  /**
   * A click on the header of the column at a table position: sort by it alone
   * (ascending, descending, none), or with `add` add it as a key (or reverse or drop
   * its key).
   */
  clickSort(position: number, add = false): void {
    const column = this._columns.get(position);
    if (column) {
      this.setSort(nextSort(this._sort, column.name, add));
    }
  }

  /**
   * Hide the column at a table position (not the last one shown).
   */
  hideColumn(position: number): boolean {
    return this._relayout(this._layout.hide(position));
  }

  showColumn(position: number): boolean {
    return this._relayout(this._layout.show(position));
  }

  showAllColumns(): boolean {
    return this._relayout(this._layout.showAll());
  }

  /**
   * Freeze a column beside the row labels (at most `MAX_PINNED`).
   */
  pinColumn(position: number): boolean {
    return this._relayout(this._layout.pin(position));
  }

  unpinColumn(position: number): boolean {
    return this._relayout(this._layout.unpin(position));
  }

  /**
   * Read the variable again (same sort and filter): forget the blocks and the stale
   * state; the next window that arrives gives the shape, whatever the old one was.
   */
  refresh(): Promise<void> {
    this._columns.clear();
    this._staleReason = null;
    this._rebase = 'all';
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
      const [rowPart, columnPart] = key.split(':');
      const row = Number(rowPart) * this._rowsPerBlock;
      const rowSpan = Math.min(this._rowsPerBlock, this.shownRows - row);
      if (rowSpan <= 0) {
        continue;
      }
      if (columnPart === PINNED) {
        this.emitChanged({
          type: 'cells-changed',
          region: 'row-header',
          row,
          column: 1,
          rowSpan,
          columnSpan: this._layout.pinned.length
        });
        continue;
      }
      const column = Number(columnPart) * this._columnsPerBlock;
      const columnSpan = Math.min(
        this._columnsPerBlock,
        this._layout.bodyCount - column
      );
      if (columnSpan > 0) {
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

  /**
   * The rows of the view counted: the grid takes its size (rows beyond it dropped).
   */
  private _setCount(rows: number, filtered: boolean): void {
    const info = this._info!;
    const before = this.shownRows;
    this._info = filtered
      ? { ...info, filteredRows: rows }
      : { ...info, totalRows: rows };
    if (this.shownRows !== before) {
      this.emitChanged({ type: 'model-reset' });
    }
  }

  private _relayout(changed: boolean): boolean {
    if (changed) {
      // The same rows, other columns in each block.
      this._reset();
    }
    return changed;
  }

  private _headerText(
    row: number,
    position: number,
    viewColumn: number | typeof PINNED
  ): string | undefined {
    const info = this._columns.get(position);
    if (!info) {
      const wanted = this._lastRowBlock * this._rowsPerBlock;
      this._want(wanted < this.shownRows ? wanted : 0, viewColumn);
      return undefined;
    }
    if (row === 1) {
      return info.dtype ?? '';
    }
    const marker = sortMarker(this._sort, info.name);
    return marker ? `${info.name} ${marker}` : info.name;
  }
}

export namespace RowsDataModel {
  export type IOptions = IRowsLoaderOptions;
}
