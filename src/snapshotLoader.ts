/**
 * Fetching the snapshot to show: a normal page, or only what changed since the shown
 * generation (`delta=true`) merged with `applyDelta`.
 *
 * Guarantee: the loader never shows a merged list that could be wrong. It asks a delta
 * only while the model shows a current (not stale) snapshot it loaded itself, of the
 * same kernel, asked with the same options, and only when `canMerge` says a merge is
 * possible; when the merge cannot be exact (`applyDelta` gives null) or the delta
 * request gets a 503 (a busy kernel), it asks for the normal page. `askFullPage()`
 * makes the next load ask the normal page (after `refresh()` or a change of
 * annotations: annotations are not kernel changes, a delta does not carry them).
 */
import { ServerConnection } from '@jupyterlab/services';

import { applyDelta, canMerge } from './delta';
import { KernelStateModel } from './models/kernel';
import { markSnapshotData } from './perf';
import { getSnapshot, retryAfterSeconds, SnapshotCache } from './restapi';
import { IKernelStateOptions, ISnapshot, ISnapshotQuery } from './tokens';

export class SnapshotLoader {
  constructor(options: SnapshotLoader.IOptions) {
    this._model = options.model;
    this._settings = options.serverSettings;
    this._options = options.options;
    this._isCurrent = options.isCurrent;
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
    return getSnapshot(
      kernelId,
      { ...this._query(), since: generation, delta: true },
      this._settings,
      this._cache
    );
  }

  /**
   * The snapshot to show, merged from a delta when the model holds a current list asked
   * with the same options, else a normal page (null when the answer no longer matters).
   * `deltaAllowed` is false while a restart may not have been noticed by the server.
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
    if (
      current &&
      !full &&
      current.key === key &&
      deltaAllowed &&
      !current.snapshot.stale &&
      current.snapshot.kernel_id === kernelId &&
      canMerge(current.snapshot, query)
    ) {
      const reply = await this._fetchDelta(kernelId, current.snapshot);
      if (reply === current.reply) {
        return current; // a 304: nothing changed since that merge
      }
      if (reply && reply.stale) {
        return this._busy(current, reply, key); // the last page of a busy kernel
      }
      const merged = reply && applyDelta(current.snapshot, reply, query);
      if (reply && merged) {
        return { snapshot: merged, reply, key };
      }
      if (!this._isCurrent(token)) {
        return null;
      }
    }
    const page = await getSnapshot(
      kernelId,
      query,
      this._settings,
      this._cache
    );
    if (current && page.stale) {
      return this._busy(current, page, key);
    }
    return { snapshot: page, reply: page, key };
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

  private _query(): ISnapshotQuery & { limit: number } {
    const { include, limit, sort, filter } = this._options();
    return { include, limit, sort, filter };
  }

  private _model: KernelStateModel;
  private _settings: ServerConnection.ISettings;
  private _options: () => IKernelStateOptions;
  private _isCurrent: (token: number) => boolean;
  private _cache = new SnapshotCache();
  private _held: SnapshotLoader.IHeld | null = null;
  private _fullPage = false;
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
  }
}
