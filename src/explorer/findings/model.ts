/**
 * The data-quality findings of the explorer's variable, read from `GET .../findings`
 * for the rows the summary panel profiles: those the filter keeps, of the value as it
 * is now. One request at a time, at most `MAX_FINDINGS` findings, asked only when a
 * view wants them (the summary's badges, the Findings list) and only once the grid
 * has no window to fetch and the statistics shown are in (a finding never delays
 * rows). A new filter, a new value of the variable (read again, or marked changed by
 * the watch: a fix was run), another syntax or a refresh forgets them; the views then
 * ask again. A busy kernel (503) is asked again after its `Retry-After`; any other
 * failure is kept as `error` until the next reset.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  FilterNode,
  IFinding,
  IFindingsQuery,
  ITableFindings
} from '../../tokens';
import { RowsDataModel } from '../data/model';
import { filterKey, MAX_BUSY_RETRIES, MAX_RETRY_DELAY_MS } from '../data/query';
import { describeError } from '../errors';
import { FixSyntax, isFixSyntax } from './text';

/**
 * Findings one request lists (the server counts the rest in `findings_cut`).
 */
export const MAX_FINDINGS = 100;

const NO_FINDINGS: readonly IFinding[] = [];

/**
 * What makes a model's findings out of date besides its filter: the value read (its
 * change and the kernel's epoch) and whether the watch saw it change since.
 */
export function findingsVersion(model: RowsDataModel): string | null {
  const info = model.info;
  if (!info) {
    return null;
  }
  return `${info.changedAt}:${info.epoch}:${model.staleReason ?? ''}`;
}

export class FindingsLoader implements IDisposable {
  constructor(options: FindingsLoader.IOptions) {
    this._fetch = options.fetch;
    this._idle = options.idle ?? (() => Promise.resolve());
    this._wait =
      options.wait ?? (ms => new Promise(resolve => setTimeout(resolve, ms)));
    this._max = Math.max(1, options.maxFindings ?? MAX_FINDINGS);
  }

  /**
   * Emitted when findings arrive, fail, are asked or forgotten.
   */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * The last answer, or null while none (not asked, asking, failed).
   */
  get findings(): ITableFindings | null {
    return this._findings;
  }

  /**
   * Why the findings could not be read, or null.
   */
  get error(): string | null {
    return this._error;
  }

  /**
   * A request is on its way (or waits for the grid, or for a busy kernel).
   */
  get loading(): boolean {
    return this._pending !== null;
  }

  /**
   * The syntax asked for the fixes, or null for the value's own.
   */
  get syntax(): FixSyntax | null {
    return this._syntax;
  }

  /**
   * The value's own fix syntax, as an answer asked without one said; null until then
   * (and for a value no fix is written for).
   */
  get ownSyntax(): FixSyntax | null {
    return this._own;
  }

  /**
   * Requests made (what a reset saves, in tests).
   */
  get requestCount(): number {
    return this._requests;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * The findings about the column at a table position.
   */
  about(position: number): readonly IFinding[] {
    return this._byPosition.get(position) ?? NO_FINDINGS;
  }

  /**
   * Read the findings unless asked already since the last reset.
   */
  want(): void {
    if (this._asked || this._isDisposed) {
      return;
    }
    this._asked = true;
    const pending = this._load(this._epoch).finally(() => {
      if (this._pending === pending) {
        this._pending = null;
        this._emit();
      }
    });
    this._pending = pending;
    this._emit();
  }

  /**
   * Forget the findings and read them again now ("Check again").
   */
  reload(): void {
    this.reset();
    this.want();
  }

  /**
   * Check the rows a filter keeps (a new filter forgets the findings).
   */
  setFilter(filter: FilterNode | null): void {
    if (filterKey(filter) === filterKey(this._filter)) {
      return;
    }
    this._filter = filter;
    this.reset();
  }

  /**
   * The value's version (`findingsVersion`): a new one forgets the findings; the
   * first one known does not (they are of it).
   */
  setVersion(version: string | null): void {
    if (version === this._version) {
      return;
    }
    const known = this._version !== null;
    this._version = version;
    if (known) {
      this.reset();
    }
  }

  /**
   * Write the fixes in another syntax (null: the value's own).
   */
  setSyntax(syntax: FixSyntax | null): void {
    if (syntax === this._syntax) {
      return;
    }
    this._syntax = syntax;
    this.reset();
  }

  /**
   * Forget the findings and any error (the views ask again).
   */
  reset(): void {
    this._epoch++;
    this._asked = false;
    this._findings = null;
    this._byPosition.clear();
    this._error = null;
    this._pending = null;
    this._emit();
  }

  /**
   * Resolves when no request is on its way.
   */
  async settled(): Promise<void> {
    while (this._pending !== null) {
      await this._pending;
    }
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._epoch++;
    Signal.clearData(this);
  }

  private async _load(epoch: number): Promise<void> {
    const current = () => epoch === this._epoch && !this._isDisposed;
    // Rows and the statistics shown first.
    await this._idle();
    if (!current()) {
      return;
    }
    const query: IFindingsQuery = {
      max_findings: this._max,
      ...(this._filter ? { filter: this._filter } : {}),
      ...(this._syntax ? { syntax: this._syntax } : {})
    };
    for (let attempt = 0; ; attempt++) {
      this._requests++;
      try {
        const answer = await this._fetch(query);
        if (current()) {
          this._receive(answer);
        }
        return;
      } catch (error) {
        if (!current()) {
          return;
        }
        const { message, retryAfter } = describeError(error);
        if (retryAfter !== null && attempt < MAX_BUSY_RETRIES) {
          await this._wait(
            Math.min(Math.max(retryAfter * 1000, 200), MAX_RETRY_DELAY_MS)
          );
          if (!current()) {
            return;
          }
          continue;
        }
        this._error = message;
        return;
      }
    }
  }

  private _receive(answer: ITableFindings): void {
    this._findings = answer;
    this._byPosition.clear();
    for (const finding of answer.findings) {
      for (const position of finding.positions) {
        const about = this._byPosition.get(position) ?? [];
        about.push(finding);
        this._byPosition.set(position, about);
      }
    }
    if (this._syntax === null && isFixSyntax(answer.syntax)) {
      this._own = answer.syntax;
    }
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _fetch: (query: IFindingsQuery) => Promise<ITableFindings>;
  private _idle: () => Promise<void>;
  private _wait: (ms: number) => Promise<void>;
  private _max: number;
  private _filter: FilterNode | null = null;
  private _version: string | null = null;
  private _syntax: FixSyntax | null = null;
  private _own: FixSyntax | null = null;
  private _findings: ITableFindings | null = null;
  private _byPosition = new Map<number, IFinding[]>();
  private _error: string | null = null;
  private _asked = false;
  private _pending: Promise<void> | null = null;
  private _epoch = 0;
  private _requests = 0;
  private _changed = new Signal<this, void>(this);
  private _isDisposed = false;
}

export namespace FindingsLoader {
  export interface IOptions {
    /**
     * `IKernelStateService.findings` bound to a kernel and a name.
     */
    fetch: (query: IFindingsQuery) => Promise<ITableFindings>;
    /**
     * Resolves when the grid has no window to fetch and the statistics shown are in.
     */
    idle?: () => Promise<void>;
    wait?: (ms: number) => Promise<void>;
    maxFindings?: number;
  }
}
