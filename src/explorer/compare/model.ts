/**
 * The model of a comparison tab: the table `name` (the after) compared with `other`
 * (the before) in the kernel (`GET .../variables/{name}/compare`), a page of the rows
 * that differ at a time. The comparison is kept in the kernel until the next cell, so a
 * page costs a window. It holds the last answer, the page asked and the rows shown (by
 * status); `changed` says when any of it moves. No REST here: the fetch is injected.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';

import { CompareStatus, ICompareQuery, ITableComparison } from '../../tokens';
import { describeError } from '../errors';

/**
 * Ask one page of a comparison (`IKernelStateService.compare` bound to a kernel and a
 * name).
 */
export type ComparisonFetcher = (
  query: ICompareQuery
) => Promise<ITableComparison>;

/**
 * The rows a comparison tab lists by default.
 */
export const DIFFERING: readonly CompareStatus[] = [
  'added',
  'removed',
  'changed'
];

/**
 * Rows a page lists.
 */
export const PAGE_ROWS = 100;

const numberFormat = new Intl.NumberFormat('en-US');

export class ComparisonModel {
  constructor(options: ComparisonModel.IOptions) {
    this.name = options.name;
    this.other = options.other;
    this.key = options.key ?? [];
    this._fetch = options.fetch;
    this._pageRows = options.pageRows ?? PAGE_ROWS;
  }

  readonly name: string;
  readonly other: string;
  readonly key: readonly string[];

  /**
   * Emitted when the answer, the page, the statuses, the error or loading change.
   */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get comparison(): ITableComparison | null {
    return this._comparison;
  }

  get error(): string | null {
    return this._error;
  }

  get loading(): boolean {
    return this._loading;
  }

  get offset(): number {
    return this._offset;
  }

  get statuses(): readonly CompareStatus[] {
    return this._statuses;
  }

  get pageRows(): number {
    return this._pageRows;
  }

  /**
   * The rows the statuses (and the filter) list, or null before the first answer.
   */
  get listed(): number | null {
    const got = this._comparison;
    if (got === null) {
      return null;
    }
    return got.filtered_rows ?? got.listed_rows;
  }

  get hasPrevious(): boolean {
    return this._offset > 0;
  }

  get hasNext(): boolean {
    const listed = this.listed;
    return listed !== null && this._offset + this._pageRows < listed;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /**
   * The query of the page at `offset`: the other table, the key (a JSON list when a
   * name holds a comma), the statuses, the page.
   */
  query(offset: number = this._offset): ICompareQuery {
    const query: ICompareQuery = {
      with: this.other,
      offset,
      limit: this._pageRows
    };
    if (this.key.length) {
      query.key = this.key.some(name => name.includes(','))
        ? JSON.stringify(this.key)
        : this.key.join(',');
    }
    if (this._statuses.join() !== DIFFERING.join()) {
      query.status = [...this._statuses];
    }
    return query;
  }

  /**
   * Ask the page at `offset` (the current one by default); an answer that comes back
   * after a newer question is dropped.
   */
  async load(offset: number = this._offset): Promise<void> {
    const ticket = ++this._ticket;
    this._offset = Math.max(0, offset);
    this._loading = true;
    this._changed.emit();
    try {
      const got = await this._fetch(this.query());
      if (ticket !== this._ticket || this._disposed) {
        return;
      }
      this._comparison = got;
      this._error = null;
    } catch (reason) {
      if (ticket !== this._ticket || this._disposed) {
        return;
      }
      this._error = describeError(reason).message;
    }
    this._loading = false;
    this._changed.emit();
  }

  next(): Promise<void> {
    return this.hasNext
      ? this.load(this._offset + this._pageRows)
      : this.load();
  }

  previous(): Promise<void> {
    return this.load(Math.max(0, this._offset - this._pageRows));
  }

  /**
   * List the rows of these statuses, from the first.
   */
  setStatuses(statuses: readonly CompareStatus[]): Promise<void> {
    this._statuses = statuses.length ? [...statuses] : [...DIFFERING];
    return this.load(0);
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    Signal.clearData(this);
  }

  private _fetch: ComparisonFetcher;
  private _pageRows: number;
  private _comparison: ITableComparison | null = null;
  private _error: string | null = null;
  private _loading = false;
  private _offset = 0;
  private _statuses: CompareStatus[] = [...DIFFERING];
  private _ticket = 0;
  private _disposed = false;
  private _changed = new Signal<this, void>(this);
}

export namespace ComparisonModel {
  export interface IOptions {
    name: string;
    other: string;
    /**
     * The key's columns (none: the index when meaningful, else the position).
     */
    key?: readonly string[];
    fetch: ComparisonFetcher;
    pageRows?: number;
  }
}

/**
 * The status line: `clean vs raw by key order_id: 1 added, 3 removed, 331 changed,
 * 666 unchanged · rows 1–100 of 335`.
 */
export function comparisonText(
  trans: TranslationBundle,
  got: ITableComparison,
  offset: number
): string {
  const how =
    got.by === 'key'
      ? trans.__('by key %1', (got.key ?? []).join(', '))
      : got.by === 'index'
        ? trans.__('by index')
        : trans.__('by position');
  const counts = trans.__(
    '%1 added, %2 removed, %3 changed, %4 unchanged',
    numberFormat.format(got.added),
    numberFormat.format(got.removed),
    numberFormat.format(got.changed),
    numberFormat.format(got.unchanged)
  );
  const listed = got.filtered_rows ?? got.listed_rows;
  const shown = got.rows.length
    ? trans.__(
        'rows %1–%2 of %3',
        numberFormat.format(offset + 1),
        numberFormat.format(offset + got.rows.length),
        numberFormat.format(listed)
      )
    : trans.__('no rows listed');
  return trans.__(
    '%1 vs %2 %3: %4 · %5',
    got.name,
    withText(trans, got),
    how,
    counts,
    shown
  );
}

/**
 * The before as people read it: `raw`, or `sales as of [12]` for a kept version.
 */
export function withText(
  trans: TranslationBundle,
  got: ITableComparison
): string {
  return got.with_execution === null
    ? got.with
    : trans.__('%1 as of [%2]', got.with, got.with_execution);
}
