/**
 * When the service asks for a snapshot: after a short debounce, once when a user
 * execution runs longer than `busyDelay`, again after a 503 or a lagging answer
 * (bounded, with backoff), and never while no view is visible. Overlapping requests
 * coalesce: one in flight, at most one more after it. A token tells the request whether
 * its answer still matters (the kernel may have changed or restarted meanwhile).
 */
import { IDisposable } from '@lumino/disposable';

export class RefreshScheduler implements IDisposable {
  constructor(options: RefreshScheduler.IOptions) {
    this._fetch = options.fetch;
    this._ready = options.ready ?? (() => true);
    this.debounce = options.debounce ?? 100;
    this.busyDelay = options.busyDelay ?? 750;
    this.maxRetries = options.maxRetries ?? 6;
  }

  /**
   * Milliseconds between the end of an execution and the refresh.
   */
  readonly debounce: number;

  /**
   * Milliseconds an execution runs before the stale state is asked for.
   */
  readonly busyDelay: number;

  /**
   * Attempts after a 503 (or a lagging busy answer) before giving up.
   */
  readonly maxRetries: number;

  get visible(): boolean {
    return this._visible;
  }

  /**
   * Shown: refresh now; hidden: cancel what is scheduled.
   */
  setVisible(visible: boolean): void {
    if (visible === this._visible) {
      return;
    }
    this._visible = visible;
    if (visible) {
      void this.refresh();
    } else {
      this.cancel();
    }
  }

  /**
   * The token of the current requests; `invalidate` moves it on.
   */
  get token(): number {
    return this._token;
  }

  /**
   * Whether an answer to a request made with `token` still matters.
   */
  isCurrent(token: number): boolean {
    return token === this._token && !this._isDisposed;
  }

  /**
   * Answers of requests in flight no longer matter; nothing stays scheduled.
   */
  invalidate(): void {
    this._token++;
    this.cancel();
  }

  /**
   * Request after `delay` ms (default: the debounce), when visible.
   */
  schedule(delay: number = this.debounce): void {
    if (!this._visible || this._isDisposed) {
      return;
    }
    clearTimeout(this._timer);
    this._timer = setTimeout(() => void this.run(), delay);
  }

  /**
   * Request once after `busyDelay` if `stillRunning()` then says so.
   */
  scheduleBusy(stillRunning: () => boolean): void {
    if (!this._visible || this._isDisposed) {
      return;
    }
    clearTimeout(this._busyTimer);
    this._busyTimer = setTimeout(() => {
      if (stillRunning()) {
        void this.run();
      }
    }, this.busyDelay);
  }

  /**
   * Schedule another attempt, `seconds` (as the server asked) doubled per attempt and
   * capped at 10 s; false when the attempts are used up.
   */
  retry(seconds: number): boolean {
    if (this._attempts >= this.maxRetries) {
      return false;
    }
    const delay = Math.max(seconds * 1000, 250) * 2 ** this._attempts;
    this._attempts++;
    this.schedule(Math.min(delay, 10_000));
    return true;
  }

  resetAttempts(): void {
    this._attempts = 0;
  }

  cancel(): void {
    clearTimeout(this._timer);
    clearTimeout(this._busyTimer);
  }

  /**
   * Cancel what is scheduled and request now.
   */
  async refresh(): Promise<void> {
    this.cancel();
    await this.run();
  }

  /**
   * Request now, when visible and ready; while a request is in flight, one more follows.
   */
  async run(): Promise<void> {
    if (!this._visible || this._isDisposed || !this._ready()) {
      return;
    }
    if (this._inFlight) {
      this._again = true;
      return this._inFlight;
    }
    const done = this._fetch(this._token);
    this._inFlight = done;
    try {
      await done;
    } finally {
      this._inFlight = null;
      if (this._again) {
        this._again = false;
        void this.run();
      }
    }
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    this._isDisposed = true;
    this.cancel();
  }

  private _fetch: (token: number) => Promise<void>;
  private _ready: () => boolean;
  private _visible = false;
  private _timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _busyTimer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _inFlight: Promise<void> | null = null;
  private _again = false;
  private _attempts = 0;
  private _token = 0;
  private _isDisposed = false;
}

export namespace RefreshScheduler {
  export interface IOptions {
    /**
     * Make one request; `token` tells it (through `isCurrent`) whether its answer
     * still matters.
     */
    fetch: (token: number) => Promise<void>;
    /**
     * Whether a request can be made at all (e.g. a kernel is followed).
     */
    ready?: () => boolean;
    debounce?: number;
    busyDelay?: number;
    maxRetries?: number;
  }
}
