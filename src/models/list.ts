/**
 * The variable list's model: the rows it shows (the snapshot's variables, plus the
 * variables removed by the last execution, kept until the next one), the widths of its
 * columns, and the pure rules of its header and keyboard (sort cycling, navigation,
 * type-ahead). Views render it.
 *
 * Every variable is reachable at any size: the list pages in (`loadMore`: the service
 * appends the next page to its snapshot), and the "changed in the last execution" view
 * (`setChangedOnly`) lists exactly the variables the last execution bound or changed,
 * whatever the page and sort, through `GET variables?changed_in=N` on the service. The
 * counts say what is loaded out of what the list selects, out of the namespace.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { DEFAULT_COLUMN_WIDTHS as DEFAULT_WIDTHS_SETTING } from '../defaults';
import { countOf } from '../delta';
import {
  IKernelStateService,
  ISnapshot,
  SnapshotSort,
  SnapshotSortKey
} from '../tokens';
import { IListRow, RemovedTracker } from './removed';

/**
 * The columns of the list whose width can be changed (the preview takes the rest).
 */
export type ColumnKey = 'name' | 'type' | 'shape' | 'memory';

export type ColumnWidths = Record<ColumnKey, number>;

export const DEFAULT_COLUMN_WIDTHS: Readonly<ColumnWidths> =
  DEFAULT_WIDTHS_SETTING;

export const MIN_COLUMN_WIDTH = 40;
export const MAX_COLUMN_WIDTH = 800;

/**
 * The width clamped to the bounds, whole pixels.
 */
export function clampWidth(width: number): number {
  if (!Number.isFinite(width)) {
    return MIN_COLUMN_WIDTH;
  }
  return Math.round(
    Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width))
  );
}

/**
 * Widths from settings (any JSON): known keys with numbers, clamped; defaults else.
 */
export function readWidths(value: unknown): ColumnWidths {
  const widths = { ...DEFAULT_COLUMN_WIDTHS };
  if (value && typeof value === 'object') {
    for (const key of Object.keys(widths) as ColumnKey[]) {
      const width = (value as Record<string, unknown>)[key];
      if (typeof width === 'number') {
        widths[key] = clampWidth(width);
      }
    }
  }
  return widths;
}

// ---------------------------------------------------------------------------------
// Sort

export type SortDirection = 'asc' | 'desc';

/**
 * The direction of a key without a suffix, as the server sorts it: names and types
 * A→Z; size, memory and the last change largest or latest first.
 */
export const NATURAL_DIRECTION: Record<SnapshotSortKey, SortDirection> = {
  name: 'asc',
  type: 'asc',
  size: 'desc',
  memory: 'desc',
  changed: 'desc'
};

/**
 * A sort's key and direction.
 */
export function parseSort(sort: SnapshotSort | string): {
  key: SnapshotSortKey;
  direction: SortDirection;
} {
  const [key, suffix] = sort.split(':') as [SnapshotSortKey, string?];
  const known = key in NATURAL_DIRECTION ? key : 'name';
  const direction =
    suffix === 'asc' || suffix === 'desc' ? suffix : NATURAL_DIRECTION[known];
  return { key: known, direction };
}

/**
 * The sort as the server spells it: the bare key in its own direction, else
 * `key:direction`.
 */
export function formatSort(
  key: SnapshotSortKey,
  direction: SortDirection
): SnapshotSort {
  return direction === NATURAL_DIRECTION[key] ? key : `${key}:${direction}`;
}

/**
 * The sort after a click on the header of `key`: the same key reversed, or the new key
 * in its own direction.
 */
export function nextSort(
  current: SnapshotSort,
  key: SnapshotSortKey
): SnapshotSort {
  const { key: currentKey, direction } = parseSort(current);
  if (currentKey !== key) {
    return key;
  }
  return formatSort(key, direction === 'asc' ? 'desc' : 'asc');
}

/**
 * `aria-sort` of the header of `key`.
 */
export function ariaSort(
  current: SnapshotSort,
  key: SnapshotSortKey
): 'ascending' | 'descending' | undefined {
  const parsed = parseSort(current);
  if (parsed.key !== key) {
    return undefined;
  }
  return parsed.direction === 'asc' ? 'ascending' : 'descending';
}

/**
 * Whether a setting's value is a sort the server knows.
 */
export function isSnapshotSort(value: unknown): value is SnapshotSort {
  if (typeof value !== 'string') {
    return false;
  }
  const [key, suffix, ...rest] = value.split(':');
  return (
    key in NATURAL_DIRECTION &&
    rest.length === 0 &&
    (suffix === undefined || suffix === 'asc' || suffix === 'desc')
  );
}

// ---------------------------------------------------------------------------------
// Keyboard

/**
 * The row index a navigation key moves to from `index` (-1: nothing selected) among
 * `count` rows, `page` rows a page; null for other keys or an empty list.
 */
export function navigate(
  key: string,
  index: number,
  count: number,
  page = 10
): number | null {
  if (count === 0) {
    return null;
  }
  const last = count - 1;
  switch (key) {
    case 'ArrowDown':
      return index < 0 ? 0 : Math.min(last, index + 1);
    case 'ArrowUp':
      return index < 0 ? 0 : Math.max(0, index - 1);
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'PageDown':
      return index < 0 ? 0 : Math.min(last, index + page);
    case 'PageUp':
      return index < 0 ? 0 : Math.max(0, index - page);
    default:
      return null;
  }
}

/**
 * Type-ahead: letters typed within `timeout` ms of each other form a prefix; each
 * prefix jumps to the next name that starts with it (case-insensitive). Typing the
 * same letter again cycles through the names starting with it.
 */
export class TypeAhead {
  constructor(private readonly _timeout = 800) {}

  /**
   * Whether a key press is a character to type ahead with (no modifier but Shift).
   */
  static accepts(event: {
    key: string;
    ctrlKey?: boolean;
    metaKey?: boolean;
    altKey?: boolean;
  }): boolean {
    return (
      event.key.length === 1 &&
      event.key !== ' ' &&
      !event.ctrlKey &&
      !event.metaKey &&
      !event.altKey
    );
  }

  /**
   * The index of the row to select after typing `char` at time `now`, from the
   * selected row `index` (-1: none); null when no name matches.
   */
  type(
    char: string,
    names: readonly string[],
    index: number,
    now: number
  ): number | null {
    const fresh = now - this._last > this._timeout;
    this._last = now;
    const lower = char.toLowerCase();
    const repeated =
      !fresh &&
      this._prefix.length > 0 &&
      [...this._prefix].every(c => c === lower);
    this._prefix = fresh ? lower : this._prefix + lower;
    const count = names.length;
    if (count === 0) {
      return null;
    }
    // A new search starts after the selected row; a longer prefix may stay on it.
    const cycling = this._prefix.length === 1 || repeated;
    const prefix = repeated ? lower : this._prefix;
    const start = index < 0 ? 0 : cycling ? index + 1 : index;
    for (let step = 0; step < count; step++) {
      const i = (start + step) % count;
      if (names[i].toLowerCase().startsWith(prefix)) {
        return i;
      }
    }
    return null;
  }

  reset(): void {
    this._prefix = '';
    this._last = -Infinity;
  }

  get prefix(): string {
    return this._prefix;
  }

  private _prefix = '';
  private _last = -Infinity;
}

// ---------------------------------------------------------------------------------
// The model

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
          error: view.error
        }
      : null;
  }

  /**
   * The counts of the list shown: rows loaded, what the list selects (a filter's or
   * the changed view's matches, exact) and the namespace's variables; null without a
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
    if (on === this.changedOnly || this._isDisposed) {
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
    const { include, filter } = this._service.options;
    return JSON.stringify([[...include].sort(), filter ?? '']);
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
    if (view && view.key !== changedKey(this._service)) {
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
    const key = changedKey(this._service);
    const token = ++this._changedToken;
    const executionCount = snapshot?.execution_count ?? null;
    if (!snapshot || executionCount === null) {
      this._changedView = { ...emptyChanged(executionCount), key };
      this._emit();
      return;
    }
    // Appending to the rows shown, or asking anew (the rows shown stay until then).
    const appending = offset > 0 && view.key === key && view.page !== null;
    this._changedView = { ...view, key, executionCount, loading: true };
    this._emit();
    const { include, sort, filter, limit } = this._service.options;
    try {
      const page = await this._service.variables({
        include,
        sort,
        filter,
        limit,
        offset: appending ? view.rows.length : 0,
        changed_in: executionCount
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
        error: null
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

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _service: IKernelStateService;
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
  }

  /**
   * What the list shows out of what: rows loaded, variables the list selects (a filter's
   * or the changed view's matches) and the namespace's variables.
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
    page: null
  };
}

/**
 * What the changed view depends on: the kernel, its state and the list's options.
 */
function changedKey(service: IKernelStateService): string {
  const snapshot = service.snapshot;
  const { include, sort, filter, limit } = service.options;
  return JSON.stringify([
    snapshot?.kernel_id ?? null,
    snapshot?.epoch ?? null,
    snapshot?.generation ?? null,
    snapshot?.execution_count ?? null,
    [...include].sort(),
    sort,
    filter ?? '',
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
