/**
 * Fetching the snapshot to show: the first pages of the list, or only what changed since
 * the shown generation (`delta=true`) merged with `applyDelta`.
 *
 * The list grows a page at a time (`grow()`: "Load more", or a scroll to its end): the
 * loader keeps a window of `limit`-sized pages and shows them as one snapshot. A page
 * asked later is appended only when the kernel has not moved since the pages held
 * (same epoch and generation, same counts); else the window is asked again from the
 * start. Every page goes through the ETag cache, so an unchanged one costs a 304. The
 * window starts over at one page when the options or the kernel change.
 *
 * Guarantee: the loader never shows a merged list that could be wrong. It asks a delta
 * only while the model shows a current (not stale) snapshot it loaded itself, of the
 * same kernel, asked with the same options, and only when `canMerge` says a merge is
 * possible; when the merge cannot be exact (`applyDelta` gives null) or the delta
 * request gets a 503 (a busy kernel), it asks for the normal pages. `askFullPage()`
 * makes the next load ask the normal pages (after `refresh()` or a change of
 * annotations: annotations are not kernel changes, a delta does not carry them).
 */
import { ServerConnection } from '@jupyterlab/services';

import { applyDelta, canMerge, countOf } from './delta';
import { KernelStateModel } from './models/kernel';
import { markSnapshotData } from './perf';
import { request, retryAfterSeconds, SnapshotCache } from './restapi';
import { IKernelStateOptions, ISnapshot, ISnapshotQuery } from './tokens';

export class SnapshotLoader {
  constructor(options: SnapshotLoader.IOptions) {
    this._model = options.model;
    this._settings = options.serverSettings;
    this._options = options.options;
    this._isCurrent = options.isCurrent;
    this._cache = options.cache ?? new SnapshotCache();
  }

  /**
   * Make the next `load` ask the normal page.
   */
  askFullPage(): void {
    this._fullPage = true;
  }

  /**
   * Forget the cached answers about a kernel (after a restart).
   */
  forgetKernel(kernelId: string): void {
    this._cache.forgetKernel(kernelId);
  }

  /**
   * The server's answer to `since=generation&delta=true`, as it is.
   */
  since(kernelId: string, generation: number): Promise<ISnapshot> {
    return this._page(kernelId, {
      ...this._query(),
      since: generation,
      delta: true
    });
  }

  /**
   * Ask one more page of the list shown at the next load; false when the list shown
   * is not this loader's or holds every variable already.
   */
  grow(): boolean {
    const held = this._held;
    if (!held || held.snapshot !== this._model.snapshot) {
      return false;
    }
    const shown = held.snapshot.variables.length;
    if (shown >= countOf(held.snapshot)) {
      return false;
    }
    this._window = Math.max(this._window, shown) + this._options().limit;
    return true;
  }

  /**
   * How many variables the list asks at most (a whole number of pages).
   */
  get window(): number {
    return Math.max(this._window, this._options().limit);
  }

  /**
   * The snapshot to show, merged from a delta when the model holds a current list asked
   * with the same options, else the normal pages (null when the answer no longer
   * matters). `deltaAllowed` is false while a restart may not have been noticed by the
   * server.
   */
  async load(
    kernelId: string,
    token: number,
    deltaAllowed: boolean
  ): Promise<SnapshotLoader.IHeld | null> {
    const query = this._query();
    const key = JSON.stringify(query);
    const held = this._held;
    const full = this._fullPage;
    this._fullPage = false;
    const current = held?.snapshot === this._model.snapshot ? held : null;
    const same =
      current !== null &&
      current.key === key &&
      current.snapshot.kernel_id === kernelId;
    if (!same) {
      this._window = query.limit; // another list: it starts with one page
    }
    const window = this.window;
    const shown = { ...query, limit: window };
    if (same && current && !full && deltaAllowed && !current.snapshot.stale) {
      const held = current.snapshot;
      if (held.variables.length < Math.min(window, countOf(held))) {
        const grown = await this._grow(kernelId, current, query, window);
        if (grown) {
          return grown;
        }
        if (!this._isCurrent(token)) {
          return null;
        }
      }
      if (canMerge(current.snapshot, shown)) {
        const reply = await this._fetchDelta(kernelId, current.snapshot);
        if (reply === current.reply) {
          return current; // a 304: nothing changed since that merge
        }
        if (reply && reply.stale) {
          return this._busy(current, reply, key); // the last page of a busy kernel
        }
        const merged = reply && applyDelta(current.snapshot, reply, shown);
        if (reply && merged && merged !== reply) {
          return { snapshot: merged, reply, key };
        }
        if (!this._isCurrent(token)) {
          return null;
        }
        if (reply && merged === reply) {
          // No delta could be told: the reply is the first page.
          return this._pages(kernelId, query, reply, window, key);
        }
      }
    }
    const page = await this._page(kernelId, query);
    if (current && page.stale) {
      return this._busy(current, page, key);
    }
    return this._pages(kernelId, query, page, window, key);
  }

  /**
   * The list held with the pages the window asks beyond it, when the kernel did not
   * move since; null when the next page is of a later state (or cannot be had).
   */
  private async _grow(
    kernelId: string,
    current: SnapshotLoader.IHeld,
    query: ISnapshotQuery & { limit: number },
    window: number
  ): Promise<SnapshotLoader.IHeld | null> {
    const held = current.snapshot;
    const more = await this._following(kernelId, query, held, window);
    if (more.length === 0) {
      return null;
    }
    return {
      snapshot: joined(held, more),
      reply: current.reply,
      key: current.key
    };
  }

  /**
   * `first` (a first page) with the following pages the window asks, as one snapshot.
   */
  private async _pages(
    kernelId: string,
    query: ISnapshotQuery & { limit: number },
    first: ISnapshot,
    window: number,
    key: string
  ): Promise<SnapshotLoader.IHeld> {
    const more = await this._following(kernelId, query, first, window);
    return {
      snapshot: more.length ? joined(first, more) : first,
      reply: first,
      key
    };
  }

  /**
   * The pages after `base` up to `window` variables, each of the same kernel state as
   * `base` (the first that is not, or fails, ends them).
   */
  private async _following(
    kernelId: string,
    query: ISnapshotQuery & { limit: number },
    base: ISnapshot,
    window: number
  ): Promise<ISnapshot[]> {
    const pages: ISnapshot[] = [];
    const end = Math.min(window, countOf(base));
    let offset = base.offset + base.variables.length;
    while (offset < end) {
      let page: ISnapshot;
      try {
        page = await this._page(kernelId, { ...query, offset });
      } catch {
        break; // a busy kernel without that page yet, a network fault: fewer rows
      }
      if (!samePages(base, page) || page.variables.length === 0) {
        break;
      }
      pages.push(page);
      offset += page.variables.length;
    }
    return pages;
  }

  /**
   * A busy kernel answers with the last page the server took, which can be older than
   * the list merged from deltas: then that list is shown, marked stale instead.
   */
  private _busy(
    current: SnapshotLoader.IHeld,
    page: ISnapshot,
    key: string
  ): SnapshotLoader.IHeld {
    const shown = current.snapshot;
    if (
      current.key === key &&
      page.kernel_id === shown.kernel_id &&
      page.epoch === shown.epoch &&
      page.generation < shown.generation
    ) {
      const stale = { ...shown, stale: true, kernel_busy: page.kernel_busy };
      return { snapshot: stale, reply: page, key };
    }
    return { snapshot: page, reply: page, key };
  }

  /**
   * Give the model a loaded snapshot; it is held (the base of the next delta) only if
   * the model shows it.
   */
  show(loaded: SnapshotLoader.IHeld): void {
    const snapshot = loaded.snapshot;
    if (snapshot !== this._model.snapshot) {
      markSnapshotData(snapshot.variables.length);
    }
    this._model.setSnapshot(snapshot);
    if (this._model.snapshot === snapshot) {
      this._held = loaded;
    }
  }

  /**
   * What changed since `held`, or null after a 503: a busy kernel answers a delta
   * request with a 503 where a page request gets the last page marked stale, which the
   * view shows with its busy banner.
   */
  private async _fetchDelta(
    kernelId: string,
    held: ISnapshot
  ): Promise<ISnapshot | null> {
    try {
      return await this.since(kernelId, held.generation);
    } catch (error) {
      if (retryAfterSeconds(error) === null) {
        throw error;
      }
      return null;
    }
  }

  /**
   * One page of the list (through the ETag cache: unchanged, it costs a 304).
   */
  private _page(kernelId: string, query: ISnapshotQuery): Promise<ISnapshot> {
    const kernel_id = kernelId;
    return request(
      'variables',
      { kernel_id, query },
      this._settings,
      this._cache
    );
  }

  private _query(): ISnapshotQuery & { limit: number } {
    const { include, limit, sort, filter } = this._options();
    return { include, limit, sort, filter };
  }

  private _window = 0;
  private _model: KernelStateModel;
  private _settings: ServerConnection.ISettings;
  private _options: () => IKernelStateOptions;
  private _isCurrent: (token: number) => boolean;
  private _cache: SnapshotCache;
  private _held: SnapshotLoader.IHeld | null = null;
  private _fullPage = false;
}

/**
 * Whether `page` is a later page of the same kernel state as `base`.
 */
function samePages(base: ISnapshot, page: ISnapshot): boolean {
  return (
    page.kernel_id === base.kernel_id &&
    page.epoch === base.epoch &&
    page.generation === base.generation &&
    page.stale === base.stale &&
    page.total === base.total &&
    countOf(page) === countOf(base)
  );
}

/**
 * `base` with the variables of the pages that follow it.
 */
function joined(base: ISnapshot, pages: ISnapshot[]): ISnapshot {
  const variables = base.variables.concat(...pages.map(p => p.variables));
  return { ...base, variables, offset: 0 };
}

export namespace SnapshotLoader {
  /**
   * The snapshot the model shows, the reply it came from (a 304 gives that object back)
   * and the options it was asked with.
   */
  export interface IHeld {
    snapshot: ISnapshot;
    reply: ISnapshot;
    key: string;
  }

  export interface IOptions {
    /**
     * The model the loaded snapshots are shown in.
     */
    model: KernelStateModel;
    serverSettings: ServerConnection.ISettings;
    /**
     * The options in force (read at each request).
     */
    options: () => IKernelStateOptions;
    /**
     * Whether the answer of the request with this token still matters.
     */
    isCurrent: (token: number) => boolean;
    /**
     * The ETag cache of the pages (the service's one cache; a new one by default).
     */
    cache?: SnapshotCache;
  }
}
