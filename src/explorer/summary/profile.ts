/**
 * The column statistics of the summary panel, read from `GET .../profile` a few
 * columns at a time: the columns the grid shows first, then those the panel lists,
 * one request at a time and only when the grid has no window to fetch (a profile
 * never delays rows). Profiles are of the rows the filter keeps; a new filter or a
 * refresh forgets them. Columns the kernel left out for its time budget are asked
 * again alone, once.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  FilterNode,
  IColumnProfile,
  IEngineInfo,
  IProfileQuery,
  ITableProfile
} from '../../tokens';
import { columnsParam } from '../data/blocks';
import { filterKey, MAX_BUSY_RETRIES, MAX_RETRY_DELAY_MS } from '../data/query';
import { describeError } from '../errors';

/**
 * Columns one request asks for.
 */
export const PROFILE_BATCH = 5;
/**
 * Columns waiting to be profiled (older wishes are dropped: what is shown asks again).
 */
export const MAX_PROFILE_QUEUE = 500;
/**
 * Profiles kept (the oldest dropped).
 */
export const MAX_PROFILES = 2000;

/**
 * What the last answer said about the rows profiled.
 */
export interface IProfileRows {
  /**
   * Null when an engine did not count the rows in time.
   */
  totalRows: number | null;
  filteredRows: number | null;
  /**
   * Some answer came from a sample (an engine: some columns of the view's first
   * `sampleRows` rows, their full aggregate cancelled).
   */
  sampled: boolean;
  sampleRows: number | null;
  /**
   * Some column's statistics are approximate (an engine's quantiles or distinct
   * counts, or a sample's).
   */
  approximate: boolean;
  /**
   * The engine that computed them, or null for a value in memory.
   */
  engine: IEngineInfo | null;
}

export class ProfileLoader implements IDisposable {
  constructor(options: ProfileLoader.IOptions) {
    this._fetch = options.fetch;
    this._idle = options.idle ?? (() => Promise.resolve());
    this._batch = Math.max(1, options.batch ?? PROFILE_BATCH);
    this._wait =
      options.wait ?? (ms => new Promise(resolve => setTimeout(resolve, ms)));
  }

  /**
   * Emitted when profiles arrive or fail, or the whole loader fails or resets.
   */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * Why no column can be profiled (a lazy value: 409, a missing variable: 404), or
   * null.
   */
  get error(): string | null {
    return this._error;
  }

  /**
   * The rows of the last answer (the view's count, whether sampled), or null.
   */
  get rows(): IProfileRows | null {
    return this._rows;
  }

  /**
   * Requests made (what the batching saves, in tests).
   */
  get requestCount(): number {
    return this._requests;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  profile(position: number): IColumnProfile | undefined {
    return this._profiles.get(position);
  }

  /**
   * Why a column could not be profiled, or undefined.
   */
  failure(position: number): string | undefined {
    return this._failed.get(position);
  }

  /**
   * Whether a column waits for its profile (queued or asked).
   */
  isPending(position: number): boolean {
    return this._queued.has(position) || this._asked.has(position);
  }

  /**
   * The family the profile found for a column named `name`, if profiled.
   */
  profileNamed(name: string): IColumnProfile | undefined {
    for (const profile of this._profiles.values()) {
      if (profile.name === name) {
        return profile;
      }
    }
    return undefined;
  }

  /**
   * Profile these columns (table positions), after those asked before, or before
   * them with `first` (the columns the grid shows).
   */
  want(positions: readonly number[], first = false): void {
    if (this._isDisposed || this._error !== null) {
      return;
    }
    const fresh = positions.filter(
      position =>
        position >= 0 &&
        !this._profiles.has(position) &&
        !this._failed.has(position) &&
        !this._asked.has(position)
    );
    if (fresh.length === 0) {
      return;
    }
    const others = this._queue.filter(position => !fresh.includes(position));
    this._queue = first ? [...fresh, ...others] : [...others, ...fresh];
    if (this._queue.length > MAX_PROFILE_QUEUE) {
      this._queue = this._queue.slice(0, MAX_PROFILE_QUEUE);
    }
    this._queued = new Set(this._queue);
    this._pump();
  }

  /**
   * Profile the rows a filter keeps (a new filter forgets every profile).
   */
  setFilter(filter: FilterNode | null): void {
    if (filterKey(filter) === filterKey(this._filter)) {
      return;
    }
    this._filter = filter;
    this.reset();
  }

  /**
   * Forget every profile and wish (the variable was read again).
   */
  reset(): void {
    this._epoch++;
    this._profiles.clear();
    this._failed.clear();
    this._queue = [];
    this._queued.clear();
    this._asked.clear();
    this._cut.clear();
    this._error = null;
    this._rows = null;
    this._busy = false;
    this._emit();
  }

  /**
   * Resolves when nothing is queued or asked.
   */
  settled(): Promise<void> {
    if (!this._busy && this._queue.length === 0) {
      return Promise.resolve();
    }
    return new Promise(resolve => this._whenSettled.push(resolve));
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._queue = [];
    this._settle();
    Signal.clearData(this);
  }

  private _pump(): void {
    if (this._busy || this._isDisposed) {
      return;
    }
    if (this._queue.length === 0 || this._error !== null) {
      this._settle();
      return;
    }
    this._busy = true;
    void this._next().finally(() => {
      this._busy = false;
      this._pump();
    });
  }

  private async _next(): Promise<void> {
    const epoch = this._epoch;
    // Rows first: wait until the grid has nothing to fetch.
    await this._idle();
    if (epoch !== this._epoch || this._isDisposed) {
      return;
    }
    // A column cut for the time budget is asked alone.
    const size = this._cut.has(this._queue[0]) ? 1 : this._batch;
    const batch = this._queue.splice(0, size);
    batch.forEach(position => {
      this._queued.delete(position);
      this._asked.add(position);
    });
    if (batch.length === 0) {
      return;
    }
    const query: IProfileQuery = {
      columns: columnsParam([...batch].sort((a, b) => a - b)),
      ...(this._filter ? { filter: this._filter } : {})
    };
    for (let attempt = 0; ; attempt++) {
      this._requests++;
      try {
        const answer = await this._fetch(query);
        if (epoch === this._epoch && !this._isDisposed) {
          this._receive(batch, answer);
        }
        return;
      } catch (error) {
        if (epoch !== this._epoch || this._isDisposed) {
          return;
        }
        const { status, message, retryAfter } = describeError(error);
        if (retryAfter !== null && attempt < MAX_BUSY_RETRIES) {
          await this._wait(
            Math.min(Math.max(retryAfter * 1000, 200), MAX_RETRY_DELAY_MS)
          );
          if (epoch !== this._epoch || this._isDisposed) {
            return;
          }
          continue;
        }
        batch.forEach(position => this._asked.delete(position));
        if (status === 409 || status === 404) {
          // No column of this value can be profiled.
          this._error = message;
          this._queue = [];
          this._queued.clear();
        } else if (retryAfter !== null) {
          // Still busy: asked again when shown again.
        } else {
          batch.forEach(position => this._failed.set(position, message));
        }
        this._emit();
        return;
      }
    }
  }

  private _receive(batch: number[], answer: ITableProfile): void {
    const before = this._rows;
    this._rows = {
      totalRows: answer.total_rows,
      filteredRows: answer.filtered_rows,
      // Each answer is of a few columns: what one said holds for the panel.
      sampled: answer.sampled || (before?.sampled ?? false),
      sampleRows: answer.sample_rows ?? before?.sampleRows ?? null,
      approximate:
        answer.columns.some(column => column.approximate) ||
        (before?.approximate ?? false),
      engine: answer.engine ?? null
    };
    for (const profile of answer.columns) {
      this._profiles.set(profile.position, profile);
      if (profile.error) {
        this._failed.set(profile.position, profile.error);
      }
    }
    while (this._profiles.size > MAX_PROFILES) {
      this._profiles.delete(this._profiles.keys().next().value as number);
    }
    const missing = batch.filter(position => !this._profiles.has(position));
    batch.forEach(position => this._asked.delete(position));
    for (const position of missing) {
      if (position >= answer.columns_total) {
        this._failed.set(position, 'no such column');
      } else if (this._cut.has(position) || batch.length === 1) {
        this._failed.set(position, CUT);
      } else {
        // Left out for the time budget: asked again alone, once.
        this._cut.add(position);
      }
    }
    const again = missing.filter(
      position => this._cut.has(position) && !this._failed.has(position)
    );
    if (again.length > 0) {
      this._queue = [
        ...again,
        ...this._queue.filter(position => !again.includes(position))
      ];
      this._queued = new Set(this._queue);
    }
    this._emit();
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _settle(): void {
    const waiting = this._whenSettled;
    this._whenSettled = [];
    waiting.forEach(resolve => resolve());
  }

  private _fetch: (query: IProfileQuery) => Promise<ITableProfile>;
  private _idle: () => Promise<void>;
  private _wait: (ms: number) => Promise<void>;
  private _batch: number;
  private _filter: FilterNode | null = null;
  private _profiles = new Map<number, IColumnProfile>();
  private _failed = new Map<number, string>();
  private _queue: number[] = [];
  private _queued = new Set<number>();
  private _asked = new Set<number>();
  private _cut = new Set<number>();
  private _rows: IProfileRows | null = null;
  private _error: string | null = null;
  private _epoch = 0;
  private _requests = 0;
  private _busy = false;
  private _whenSettled: (() => void)[] = [];
  private _changed = new Signal<this, void>(this);
  private _isDisposed = false;
}

/**
 * The failure of a column the kernel left out for its time budget, even alone.
 */
export const CUT = 'not profiled within the time budget';

export namespace ProfileLoader {
  export interface IOptions {
    /**
     * `IKernelStateService.profile` bound to a kernel and a name.
     */
    fetch: (query: IProfileQuery) => Promise<ITableProfile>;
    /**
     * Resolves when the grid has no window to fetch.
     */
    idle?: () => Promise<void>;
    batch?: number;
    wait?: (ms: number) => Promise<void>;
  }
}
