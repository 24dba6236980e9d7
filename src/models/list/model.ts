/**
 * The variable list's model: the rows it shows (the snapshot's variables, plus the
 * variables removed by the last execution, kept until the next one) and the widths of
 * its columns. Views render it; its sort, keyboard and width rules are beside it
 * (`sort.ts`, `keys.ts`, `widths.ts`).
 *
 * Every variable is reachable at any size: the list pages in (`loadMore`: the service
 * appends the next page to its snapshot), and the "changed in the last execution" view
 * (`setChangedOnly`) lists exactly the variables the last execution bound or changed,
 * whatever the page and sort, through `GET variables?changed_in=N` on the service; the
 * "used by the active cell" view (`setUsedByCell`) the same way lists what the active
 * notebook cell's last execution bound or read (its lineage, `used_by_cell=<id>`). The
 * counts say what is loaded out of what the list selects, out of the namespace.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { countOf } from '../../delta';
import { IKernelStateService, ISnapshot } from '../../tokens';
import { IListRow, RemovedTracker } from './removed';
import { clampWidth, ColumnKey, ColumnWidths, readWidths } from './widths';

/**
 * The list's model: rows of the followed kernel and column widths.
 */
export class VariableListModel implements IDisposable {
  constructor(options: VariableListModel.IOptions) {
    this._service = options.service;
    this._widths = readWidths(options.widths);
    this._service.changed.connect(this._onServiceChanged, this);
    this._onServiceChanged();
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * Emitted when the user changed a column's width (to store it in the settings).
   */
  get widthsChanged(): ISignal<this, ColumnWidths> {
    return this._widthsChanged;
  }

  /**
   * The rows shown: the snapshot's variables with the removed ones kept until the next
   * execution, or (`changedOnly`) the variables the last execution changed.
   */
  get rows(): IListRow[] {
    return this._changedView !== null ? this._changedView.rows : this._rows;
  }

  /**
   * Whether only the variables changed in the last execution are listed.
   */
  get changedOnly(): boolean {
    return this._changedView !== null;
  }

  /**
   * The "changed in the last execution" view while it is on: the execution, how many
   * variables it changed (exact, null until known), and its state.
   */
  get changedView(): VariableListModel.IChangedView | null {
    const view = this._changedView;
    return view
      ? {
          executionCount: view.executionCount,
          matched: view.matched,
          loading: view.loading,
          error: view.error,
          byCell: view.byCell,
          cellId: view.cellId
        }
      : null;
  }

  /**
   * Whether only the variables the active cell's last execution bound or read are
   * listed.
   */
  get usedByCell(): boolean {
    return this._changedView?.byCell === true;
  }

  /**
   * The id of the active notebook cell (null: none), which the "used by the active
   * cell" view follows.
   */
  get activeCell(): string | null {
    return this._activeCell;
  }

  setActiveCell(cellId: string | null): void {
    if (cellId === this._activeCell || this._isDisposed) {
      return;
    }
    this._activeCell = cellId;
    this._emit();
    if (this._changedView?.byCell) {
      void this._loadChanged(0);
    }
  }

  /**
   * List only the variables the active cell's last execution bound or read (on), or
   * the whole list again (off).
   */
  setUsedByCell(on: boolean): void {
    if (on === this.usedByCell || this._isDisposed) {
      return;
    }
    this._changedView = on ? { ...emptyChanged(null), byCell: true } : null;
    this._changedToken++;
    this._emit();
    if (on) {
      void this._loadChanged(0);
    }
  }

  /**
   * The counts of the list shown: rows loaded, what the list selects (a name
   * pattern's or the changed view's matches, exact) and the namespace's variables; null without a
   * snapshot.
   */
  get counts(): VariableListModel.ICounts | null {
    const snapshot = this._service.snapshot;
    if (!snapshot) {
      return null;
    }
    const view = this._changedView;
    if (view) {
      return {
        loaded: view.rows.length,
        selected: view.matched ?? view.rows.length,
        total: snapshot.total
      };
    }
    return {
      loaded: snapshot.variables.length,
      selected: countOf(snapshot),
      total: snapshot.total
    };
  }

  /**
   * Whether the list selects more variables than are loaded.
   */
  get hasMore(): boolean {
    const counts = this.counts;
    return counts !== null && counts.loaded < counts.selected;
  }

  /**
   * A next page is on its way.
   */
  get loadingMore(): boolean {
    return this._loadingMore;
  }

  /**
   * Load the next page of the list shown (at most one request at a time).
   */
  async loadMore(): Promise<void> {
    if (this._loadingMore || !this.hasMore || this._isDisposed) {
      return;
    }
    this._loadingMore = true;
    this._emit();
    try {
      if (this._changedView) {
        await this._loadChanged(this._changedView.rows.length);
      } else {
        await this._service.loadMore();
      }
    } finally {
      this._loadingMore = false;
      this._emit();
    }
  }

  /**
   * List only the variables the last execution bound or changed (on), or the whole
   * list again (off).
   */
  setChangedOnly(on: boolean): void {
    if (on === (this.changedOnly && !this.usedByCell) || this._isDisposed) {
      return;
    }
    this._changedView = on ? emptyChanged(null) : null;
    this._changedToken++;
    this._emit();
    if (on) {
      void this._loadChanged(0);
    }
  }

  get widths(): ColumnWidths {
    return this._widths;
  }

  /**
   * Set one column's width (a user's drag); emits `widthsChanged`.
   */
  setWidth(key: ColumnKey, width: number): void {
    const clamped = clampWidth(width);
    if (this._widths[key] === clamped) {
      return;
    }
    this._widths = { ...this._widths, [key]: clamped };
    this._emit();
    this._widthsChanged.emit(this._widths);
  }

  /**
   * Set every width (from the settings); does not emit `widthsChanged`.
   */
  setWidths(value: unknown): void {
    const widths = readWidths(value);
    if (JSON.stringify(widths) === JSON.stringify(this._widths)) {
      return;
    }
    this._widths = widths;
    this._emit();
  }

  /**
   * The user deleted `name`: drop it at once (not marked removed).
   */
  forget(name: string): void {
    this._tracker.forget(name);
    this._rows = this._tracker.update(
      this._service.snapshot,
      this._optionsKey()
    );
    this._emit();
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._service.changed.disconnect(this._onServiceChanged, this);
    Signal.clearData(this);
  }

  private _optionsKey(): string {
    // `filter` of the options is the list's name pattern (a glob).
    const { include, filter: pattern } = this._service.options;
    return JSON.stringify([[...include].sort(), pattern ?? '']);
  }

  private _onServiceChanged(): void {
    const rows = this._tracker.update(
      this._service.snapshot,
      this._optionsKey()
    );
    if (rows !== this._rows) {
      this._rows = rows;
      this._emit();
    }
    const view = this._changedView;
    if (view && view.key !== changedKey(this._service, this._viewCell(view))) {
      void this._loadChanged(0);
    }
  }

  /**
   * The changed view's rows from `offset` (0: anew) for the service's snapshot: the
   * variables changed in its execution, with the list's options.
   */
  private async _loadChanged(offset: number): Promise<void> {
    const view = this._changedView;
    const snapshot = this._service.snapshot;
    if (!view) {
      return;
    }
    const cellId = this._viewCell(view);
    const key = changedKey(this._service, cellId);
    const token = ++this._changedToken;
    const executionCount = snapshot?.execution_count ?? null;
    const { byCell } = view;
    if (!snapshot || executionCount === null || (byCell && cellId === null)) {
      this._changedView = {
        ...emptyChanged(executionCount),
        key,
        byCell,
        cellId
      };
      this._emit();
      return;
    }
    // Appending to the rows shown, or asking anew (the rows shown stay until then).
    const appending = offset > 0 && view.key === key && view.page !== null;
    this._changedView = { ...view, key, executionCount, cellId, loading: true };
    this._emit();
    const { include, sort, filter, limit } = this._service.options;
    try {
      const page = await this._service.variables({
        include,
        sort,
        filter,
        limit,
        offset: appending ? view.rows.length : 0,
        ...(byCell && cellId !== null
          ? { used_by_cell: cellId }
          : { changed_in: executionCount })
      });
      if (token !== this._changedToken || !this._changedView) {
        return;
      }
      const added = page.variables.map(variable => ({
        variable,
        removed: false
      }));
      let rows = added;
      let first = page;
      if (appending) {
        if (!samePage(view.page, page)) {
          // The kernel moved on since the rows shown: the view is asked anew.
          this._changedView = { ...view, loading: false, key: '' };
          this._emit();
          void this._loadChanged(0);
          return;
        }
        rows = [...view.rows, ...added];
        first = view.page!;
      }
      this._changedView = {
        key,
        executionCount,
        rows,
        matched: countOf(page),
        page: first,
        loading: false,
        error: null,
        byCell,
        cellId
      };
    } catch (reason) {
      if (token !== this._changedToken || !this._changedView) {
        return;
      }
      this._changedView = {
        ...this._changedView,
        loading: false,
        error: reason instanceof Error ? reason.message : String(reason)
      };
    }
    this._emit();
  }

  /**
   * The cell a view lists the lineage of: the active cell in the "used by" view.
   */
  private _viewCell(view: IChangedState): string | null {
    return view.byCell ? this._activeCell : null;
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _service: IKernelStateService;
  private _activeCell: string | null = null;
  private _tracker = new RemovedTracker();
  private _rows: IListRow[] = [];
  private _changedView: IChangedState | null = null;
  private _changedToken = 0;
  private _loadingMore = false;
  private _widths: ColumnWidths;
  private _changed = new Signal<this, void>(this);
  private _widthsChanged = new Signal<this, ColumnWidths>(this);
  private _isDisposed = false;
}

export namespace VariableListModel {
  /**
   * The "changed in the last execution" view.
   */
  export interface IChangedView {
    /**
     * The execution whose changes are listed (null: none ran yet).
     */
    executionCount: number | null;
    /**
     * How many variables it bound or changed (exact; null until the first answer).
     */
    matched: number | null;
    loading: boolean;
    error: string | null;
    /**
     * The view lists what the active cell's last execution bound or read (its
     * lineage) rather than what the last execution changed; `cellId` is that cell
     * (null: no active notebook cell).
     */
    byCell: boolean;
    cellId: string | null;
  }

  /**
   * What the list shows out of what: rows loaded, variables the list selects (a name
   * pattern's or the changed view's matches) and the namespace's variables.
   */
  export interface ICounts {
    loaded: number;
    selected: number;
    total: number;
  }

  export interface IOptions {
    service: IKernelStateService;
    /**
     * Column widths from the settings (any JSON; checked).
     */
    widths?: unknown;
  }
}

/**
 * The changed view's state: its rows, the first page they came with and the key of
 * the service state they were asked for.
 */
interface IChangedState extends VariableListModel.IChangedView {
  key: string;
  rows: IListRow[];
  page: ISnapshot | null;
}

function emptyChanged(executionCount: number | null): IChangedState {
  return {
    key: '',
    executionCount,
    matched: null,
    loading: false,
    error: null,
    rows: [],
    page: null,
    byCell: false,
    cellId: null
  };
}

/**
 * What the changed view depends on: the kernel, its state and the list's options.
 */
function changedKey(
  service: IKernelStateService,
  cellId: string | null
): string {
  const snapshot = service.snapshot;
  const { include, sort, filter: pattern, limit } = service.options;
  return JSON.stringify([
    cellId,
    snapshot?.kernel_id ?? null,
    snapshot?.epoch ?? null,
    snapshot?.generation ?? null,
    snapshot?.execution_count ?? null,
    [...include].sort(),
    sort,
    pattern ?? '',
    limit
  ]);
}

/**
 * Whether `page` follows `first` in the same kernel state.
 */
function samePage(first: ISnapshot | null, page: ISnapshot): boolean {
  return (
    first !== null &&
    page.kernel_id === first.kernel_id &&
    page.epoch === first.epoch &&
    page.generation === first.generation &&
    countOf(page) === countOf(first)
  );
}
