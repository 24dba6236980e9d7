/**
 * The block loading of the data explorer's model: a queue of the blocks the grid
 * asked for (the most recently asked first, at most `MAX_QUEUED`), a few fetches in
 * flight, retries while the kernel is busy (503), one adaptation to a server that
 * allows smaller windows, giving up a sort or filter the kernel cannot do, and
 * receiving windows into the block cache (never mixing two values of the variable).
 *
 * A block is a stripe of rows × a run of body columns (`row:column-block`), or the
 * pinned columns of a stripe (`row:p`). While the shape is being read again (a new
 * filter: the row count; a refresh: everything) nothing is bounded by the old shape.
 *
 * An engine table may come "not counted" (`total_rows: null`): the rows are then
 * those read so far and one more, whose painting asks the next window; a full window
 * grows them, a window shorter than its limit marks the end.
 *
 * `RowsDataModel` (model.ts) is the `DataModel` built on it.
 */
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { DataModel } from '@lumino/datagrid';
import { ISignal, Signal } from '@lumino/signaling';

import { FilterNode, IRowsColumn, IRowsQuery, IRowsWindow } from '../../tokens';
import {
  blockKey,
  BlockCache,
  columnIndex,
  columnsParam,
  IBlock
} from './blocks';
import { ColumnLayout } from './layout';
import { describeError } from '../errors';
import {
  COLUMNS_PER_BLOCK,
  IEngineCost,
  ITableInfo,
  MAX_BLOCKS,
  MAX_BUSY_RETRIES,
  MAX_CELLS,
  MAX_IN_FLIGHT,
  MAX_QUEUED,
  MAX_RETRY_DELAY_MS,
  MORE_TIME_MS,
  OUT_OF_TIME,
  ROWS_PER_BLOCK,
  RowsCounter,
  RowsFetcher,
  sameCount,
  StaleReason
} from './query';
import { ISortState, sortParam } from './sort';

/**
 * The column block of the pinned columns.
 */
export const PINNED = 'p';

/**
 * Columns whose names are read for a search (`loadNames`), from the first.
 */
export const MAX_NAMED_COLUMNS = 20_000;

/**
 * What is read again: the row count (a new filter) or the whole shape (a refresh).
 */
type Rebase = 'rows' | 'all' | null;

/**
 * How a model loads its rows (`RowsDataModel.IOptions`).
 */
export interface IRowsLoaderOptions {
  /**
   * Fetch one window (`IKernelStateService.rows` bound to a kernel and a name).
   */
  fetch: RowsFetcher;
  /**
   * Count the view's rows in the table's engine (`IKernelStateService.count` bound
   * to a kernel and a name); without it a table not counted cannot be.
   */
  count?: RowsCounter;
  /**
   * Translates the messages the model makes itself (a sort given up).
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
    this._count = options.count ?? null;
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
   * Emitted when names or dtypes of more columns are known.
   */
  get columnsChanged(): ISignal<this, void> {
    return this._columnsChanged;
  }

  /**
   * The rows the grid shows: those the filter keeps, else all.
   */
  abstract get shownRows(): number;

  /**
   * The exact rows of the view, or null while not counted.
   */
  abstract get viewRows(): number | null;

  /**
   * What the engine's last query (a window, a count, a profile) took, or null (a
   * value in memory).
   */
  get lastCost(): IEngineCost | null {
    return this._lastCost;
  }

  /**
   * Note what an engine query took (`cost_ms`), for the status line.
   */
  noteCost(what: IEngineCost['what'], ms: number | null | undefined): void {
    if (typeof ms !== 'number') {
      return;
    }
    const last = this._lastCost;
    if (last?.what !== what || last.ms !== ms) {
      this._lastCost = { what, ms };
      this._emitState();
    }
  }

  /**
   * Say that the rows shown are no longer the variable's.
   */
  abstract markStale(reason: StaleReason): void;

  /**
   * The shape is being read again (a new filter, a refresh): the rows shown are
   * those of before until the first window arrives.
   */
  get loading(): boolean {
    return this._rebase !== null || (this._info === null && !this._idle());
  }

  /**
   * Read the names and dtypes of the first `MAX_NAMED_COLUMNS` columns not known yet
   * (one row per window, with the grid's sort and filter: the kernel keeps one order
   * per variable), one window at a time. For a search over every column.
   */
  loadNames(): Promise<void> {
    if (!this._naming) {
      this._naming = this._loadNames().finally(() => {
        this._naming = null;
      });
    }
    return this._naming;
  }

  protected _want(row: number, column: number | typeof PINNED): void {
    const info = this._info;
    if (
      this._isDisposed ||
      this._staleReason === 'removed' ||
      row < 0 ||
      (typeof column === 'number' && column < 0) ||
      (column === PINNED && this._layout.pinned.length === 0)
    ) {
      return;
    }
    const rowBlock = Math.floor(row / this._rowsPerBlock);
    const columnBlock =
      column === PINNED ? PINNED : Math.floor(column / this._columnsPerBlock);
    // Bounded by the shape only when it is known: after a filter that kept no row or
    // a refresh, the first block is asked whatever the old shape said (and only it:
    // the grid asks again for the rest once the new shape is known). Row 0 is always
    // asked: a window without rows still names its columns.
    if (this._rebase !== null) {
      if (rowBlock !== 0 || (this._rebase === 'all' && columnBlock !== 0)) {
        return;
      }
    } else if (info !== null && row > 0 && row >= this.shownRows) {
      return;
    }
    if (
      info !== null &&
      this._rebase !== 'all' &&
      typeof column === 'number' &&
      column >= this._layout.bodyCount
    ) {
      return;
    }
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

  /**
   * The query of a block, and the column positions it asks (null when none).
   */
  protected _blockQuery(
    rowBlock: number,
    columnBlock: number | typeof PINNED
  ): { query: IRowsQuery; asked: number[] } | null {
    const info = this._info;
    const offset = rowBlock * this._rowsPerBlock;
    const known = this.viewRows;
    // Not counted: a whole block, so that a shorter answer tells the end.
    const limit =
      info === null || this._rebase !== null || known === null
        ? this._rowsPerBlock
        : Math.max(1, Math.min(this._rowsPerBlock, known - offset));
    let asked: number[];
    if (columnBlock === PINNED) {
      asked = [...this._layout.pinned];
    } else {
      const start = columnBlock * this._columnsPerBlock;
      const stop = start + this._columnsPerBlock;
      if (info === null || this._rebase === 'all') {
        // The shape is unknown: a run of the table's own columns (a block that
        // does not hold every column of its key is asked again, see `data`).
        asked = Array.from({ length: stop - start }, (_, i) => start + i);
      } else {
        asked = this._layout.bodyPositions(start, stop);
      }
    }
    if (asked.length === 0) {
      return null;
    }
    return {
      query: {
        offset,
        limit,
        columns: columnsParam(asked),
        sort: sortParam(this._sort),
        ...(this._filter ? { filter: this._filter } : {}),
        ...this._budget()
      },
      asked
    };
  }

  protected async _fetchBlock(
    key: string,
    rowBlock: number,
    columnBlock: number | typeof PINNED
  ): Promise<void> {
    const epoch = this._epoch;
    const request = this._blockQuery(rowBlock, columnBlock);
    let attempt = 0;
    while (request !== null) {
      this._fetchCount++;
      try {
        const window = await this._fetch(request.query);
        if (epoch === this._epoch && !this._isDisposed) {
          this._receive(key, window, request.asked);
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
          (this._sort.length > 0 || this._filter !== null) &&
          !this._viewRead
        ) {
          // The kernel could not sort or filter (too slow, values that do not
          // compare, a value not of the column's type): drop what was asked last,
          // and say why. Once a window of the view was read, a refused page (an
          // engine's deep sorted page) fails alone, the view kept.
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
    const keys = this._sort;
    const filter = this._filter;
    // Past its time guard (cancelled in an engine, out of time in memory): the view can
    // be asked again with more time of its own (`retryWithMoreTime`).
    const givenUp =
      this._budgetMs === null && OUT_OF_TIME.test(message)
        ? { sort: keys, filter }
        : null;
    if (filter && (this._lastChanged === 'filter' || keys.length === 0)) {
      this._filter = null;
      this._rebase = 'rows';
      // Shown in the filter bar, beside the conditions to correct.
      this._filterError = message;
    } else if (keys.length > 0) {
      this._sort = [];
      this._queryError = this._trans.__(
        'Cannot sort by %1: %2',
        keys.map(key => key.column).join(', '),
        message
      );
    }
    const error = this._queryError;
    const filterError = this._filterError;
    this._reset();
    this._queryError = error;
    this._filterError = filterError;
    this._givenUp = givenUp;
    this._want(0, 0);
    this._emitState();
  }

  /**
   * Whether the last view given up ran out of time, and can be asked again with more
   * time of its own (`retryWithMoreTime`).
   */
  get canTakeLonger(): boolean {
    return this._givenUp !== null;
  }

  /**
   * Ask the view given up for time again, each of its requests given `ms` in the
   * kernel (the REST `budget_ms`: every guard raised, within the server's
   * `max_request_budget_ms`), until the view changes.
   */
  retryWithMoreTime(ms = MORE_TIME_MS): void {
    const givenUp = this._givenUp;
    if (givenUp === null) {
      return;
    }
    this._budgetMs = ms;
    this._sort = givenUp.sort;
    this._filter = givenUp.filter;
    this._reset();
  }

  /**
   * The time the current view's requests give themselves (none: the server's guards).
   */
  protected _budget(): { budget_ms?: number } {
    return this._budgetMs === null ? {} : { budget_ms: this._budgetMs };
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
        ...(this._filter ? { filter: this._filter } : {}),
        ...this._budget()
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
      this._receive(
        blockKey(0, 0),
        window,
        window.columns.map(column => column.position)
      );
    }
    return true;
  }

  /**
   * Whether a window is of another value of the variable than the rows shown.
   */
  protected _isOtherVersion(window: IRowsWindow): boolean {
    const info = this._info;
    return (
      info !== null &&
      (!sameCount(window.total_rows, info.totalRows) ||
        window.columns_total !== info.columnsTotal ||
        window.changed_at !== info.changedAt)
    );
  }

  protected _receive(
    key: string,
    window: IRowsWindow,
    asked: readonly number[]
  ): void {
    const info = this._info;
    if (
      info !== null &&
      this._rebase === null &&
      (this._isOtherVersion(window) ||
        !sameCount(window.filtered_rows ?? null, info.filteredRows))
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
      rows: window.rows,
      asked
    };
    const newColumns = this._learnColumns(window.columns);
    this._cache.set(key, block);
    this._viewRead = true;
    this.noteCost('window', window.engine?.cost_ms);
    if (info === null || this._rebase !== null) {
      this._rebase = null;
      this._shapeEpoch++;
      this._read = 0;
      this._end = null;
      this._info = {
        name: window.name,
        kind: window.kind,
        type: window.type,
        shape: window.shape,
        totalRows: window.total_rows,
        filteredRows: window.filtered_rows ?? null,
        filtered: (window.filter ?? null) !== null,
        engine: window.engine ?? null,
        columnsTotal: window.columns_total,
        indexName: window.index_name,
        changedAt: window.changed_at,
        epoch: window.epoch ?? null,
        generation: window.generation,
        stale: window.stale
      };
      this._layout.setTotal(window.columns_total);
      this._learnRows(window);
      // The rows shown are now those of the value just read.
      if (this._staleReason !== 'removed') {
        this._staleReason = null;
      }
      this.emitChanged({ type: 'model-reset' });
      this._emitState();
      if (newColumns) {
        this._columnsChanged.emit();
      }
      return;
    }
    if (window.stale !== info.stale) {
      this._info = { ...info, stale: window.stale };
      this._emitState();
    } else if (hadError) {
      this._emitState();
    }
    if (this._learnRows(window)) {
      // More rows (not counted): the grid keeps its scroll position, unlike with
      // `rows-inserted` at the bottom, which would read on and on.
      this.emitChanged({ type: 'model-reset' });
      this._emitState();
    } else {
      this._emitBlockChanged(key, window);
    }
    if (newColumns) {
      this._columnsChanged.emit();
    }
  }

  /**
   * What a window tells of the rows of a view not counted: a count that finished
   * meanwhile, the rows read so far, or (shorter than its limit) where they end.
   * Whether the rows shown changed.
   */
  protected _learnRows(window: IRowsWindow): boolean {
    const info = this._info;
    if (info === null || this.viewRows !== null) {
      return false;
    }
    const before = this.shownRows;
    const counted = info.filtered ? window.filtered_rows : window.total_rows;
    if (typeof counted === 'number') {
      this._info = info.filtered
        ? { ...info, filteredRows: counted }
        : { ...info, totalRows: counted };
    } else {
      const reached = window.offset + window.index.length;
      if (window.index.length < window.limit) {
        this._end = reached;
      } else {
        this._read = Math.max(this._read, reached);
      }
    }
    return this.shownRows !== before;
  }

  /**
   * Repaint what a block holds: its cells, row labels, and the headers of columns
   * first known.
   */
  protected _emitBlockChanged(key: string, window: IRowsWindow): void {
    const rows = window.rows.length;
    if (rows === 0) {
      return;
    }
    const pinned = key.endsWith(`:${PINNED}`);
    const columns = pinned
      ? this._layout.pinned.length
      : Math.min(
          this._columnsPerBlock,
          this._layout.bodyCount -
            Number(key.split(':')[1]) * this._columnsPerBlock
        );
    const first = pinned
      ? 1
      : Number(key.split(':')[1]) * this._columnsPerBlock;
    if (columns > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: pinned ? 'row-header' : 'body',
        row: window.offset,
        column: first,
        rowSpan: rows,
        columnSpan: columns
      });
    }
    if (!pinned && window.index.length > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: 'row-header',
        row: window.offset,
        column: 0,
        rowSpan: window.index.length,
        columnSpan: 1
      });
    }
    if (columns > 0) {
      this.emitChanged({
        type: 'cells-changed',
        region: pinned ? 'corner-header' : 'column-header',
        row: 0,
        column: first,
        rowSpan: 2,
        columnSpan: columns
      });
    }
  }

  /**
   * Remember columns' names and dtypes; whether some were new.
   */
  protected _learnColumns(columns: readonly IRowsColumn[]): boolean {
    let learned = false;
    for (const column of columns) {
      if (!this._columns.has(column.position)) {
        this._columns.set(column.position, column);
        learned = true;
      }
    }
    return learned;
  }

  /**
   * The block of `key`, if it holds the column at `position`; a block asked under
   * another layout or shape that does not is dropped and asked again.
   */
  protected _blockHolding(
    key: string,
    position: number,
    row: number,
    column: number | typeof PINNED
  ): { block: IBlock; at: number } | undefined {
    const block = this._cache.get(key);
    if (block === undefined) {
      this._want(row, column);
      return undefined;
    }
    const at = columnIndex(block, position);
    if (at < 0) {
      if (
        block.asked !== undefined &&
        !block.asked.includes(position) &&
        position < (this._info?.columnsTotal ?? 0)
      ) {
        this._cache.delete(key);
        this._want(row, column);
      }
      return undefined;
    }
    return { block, at };
  }

  private async _loadNames(): Promise<void> {
    const step = this._columnsPerBlock;
    for (let start = 0; ; start += step) {
      const info = this._info;
      if (this._isDisposed || info === null || this._staleReason !== null) {
        return;
      }
      const end = Math.min(info.columnsTotal, MAX_NAMED_COLUMNS);
      if (start >= end) {
        return;
      }
      const stop = Math.min(start + step, end);
      let known = true;
      for (let position = start; position < stop && known; position++) {
        known = this._columns.has(position);
      }
      if (known) {
        continue;
      }
      this._fetchCount++;
      let window: IRowsWindow;
      try {
        window = await this._fetch({
          offset: 0,
          limit: 1,
          columns: `${start}:${stop}`,
          sort: sortParam(this._sort),
          ...(this._filter ? { filter: this._filter } : {}),
          ...this._budget()
        });
      } catch {
        return;
      }
      if (this._isDisposed || this._info === null) {
        return;
      }
      if (this._isOtherVersion(window)) {
        this.markStale('changed');
        return;
      }
      if (this._learnColumns(window.columns)) {
        this.emitChanged({
          type: 'cells-changed',
          region: 'column-header',
          row: 0,
          column: 0,
          rowSpan: 2,
          columnSpan: this._layout.bodyCount
        });
        this._columnsChanged.emit();
      }
    }
  }

  /**
   * Forget every block and every pending fetch (their answers are ignored).
   */
  protected _reset(): void {
    this._epoch++;
    this._givenUp = null;
    this._cache.clear();
    this._queue = [];
    this._inFlight.clear();
    this._failed.clear();
    this._error = null;
    this._errorStatus = null;
    this._queryError = null;
    this._filterError = null;
    this._countError = null;
    this._retrying = 0;
    this._viewRead = false;
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
  protected _count: RowsCounter | null;
  protected _trans: TranslationBundle;
  protected _wait: (ms: number) => Promise<void>;
  protected _rowsPerBlock: number;
  protected _columnsPerBlock: number;
  protected _maxInFlight: number;
  protected _cache: BlockCache;
  protected _layout = new ColumnLayout();
  protected _columns = new Map<number, IRowsColumn>();
  protected _queue: {
    key: string;
    rowBlock: number;
    columnBlock: number | typeof PINNED;
  }[] = [];
  protected _inFlight = new Set<string>();
  protected _failed = new Set<string>();
  protected _pumpScheduled = false;
  protected _whenSettled: (() => void)[] = [];
  protected _epoch = 0;
  protected _rebase: Rebase = null;
  protected _adapted = false;
  protected _lastColumnBlock = 0;
  protected _lastRowBlock = 0;
  protected _fetchCount = 0;
  protected _retrying = 0;
  protected _info: ITableInfo | null = null;
  protected _sort: ISortState[] = [];
  protected _error: string | null = null;
  protected _errorStatus: number | null = null;
  protected _queryError: string | null = null;
  protected _filterError: string | null = null;
  protected _filter: FilterNode | null = null;
  /**
   * The time (ms) each request of the current view gives itself, once the user asked
   * for more (null: the server's guards).
   */
  protected _budgetMs: number | null = null;
  protected _givenUp: { sort: ISortState[]; filter: FilterNode | null } | null =
    null;
  protected _lastChanged: 'sort' | 'filter' = 'sort';
  protected _staleReason: StaleReason | null = null;
  protected _stateChanged = new Signal<this, void>(this);
  protected _columnsChanged = new Signal<this, void>(this);
  protected _naming: Promise<void> | null = null;
  /**
   * A window of the current view (sort, filter, layout) arrived.
   */
  protected _viewRead = false;
  /**
   * Not counted: the rows read from the top so far, and where they end once a
   * window came back short (null while not known).
   */
  protected _read = 0;
  protected _end: number | null = null;
  /**
   * Moves on each time the shape is read again (a count asked before is then void).
   */
  protected _shapeEpoch = 0;
  protected _counting = false;
  protected _countError: string | null = null;
  protected _lastCost: IEngineCost | null = null;
  protected _isDisposed = false;
}
