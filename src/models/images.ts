/**
 * The images' model (the sidebar's strip and the gallery tab): the images the server
 * captured from the followed kernel, newest first, each with an object URL of its bytes,
 * its ordinal (`seq`), execution count and the code of its cell.
 *
 * Bytes are fetched as blobs through `ServerConnection` (so they carry the same auth as
 * every other request, token or cookie) and shown through `<img>` only: an SVG shown
 * through `<img>` never runs scripts. Only what is new since the last `next_since` is
 * listed; when the server dropped images meanwhile (it keeps the first ones and the
 * latest ones, and drops those in between), everything it holds is listed again, so the
 * model never shows an image the server let go. Object URLs are revoked when an image
 * leaves the model or the model is disposed.
 */
import {
  IExecutedArgs,
  IImage,
  IImageList,
  IKernelStateService
} from '../tokens';
import { KernelSectionModel } from './section';

/**
 * Images listed per request; the server holds 60 per kernel by default (the first 10
 * and the latest 50).
 */
export const IMAGE_PAGE_LIMIT = 50;

/**
 * Pages fetched in one load at most (a flood is caught up over later loads).
 */
const MAX_PAGES = 10;

export interface IImageItem {
  image: IImage;
  /**
   * An object URL of the bytes, or null until fetched.
   */
  url: string | null;
  /**
   * Why the bytes could not be fetched (e.g. evicted meanwhile).
   */
  error: string | null;
}

export class ImageStripModel extends KernelSectionModel {
  constructor(options: ImageStripModel.IOptions) {
    super(options.service, options.debounce);
    this._createUrl =
      options.createObjectURL ?? (blob => URL.createObjectURL(blob));
    this._revokeUrl =
      options.revokeObjectURL ?? (url => URL.revokeObjectURL(url));
  }

  /**
   * Newest first.
   */
  get items(): readonly IImageItem[] {
    return this._items;
  }

  /**
   * Images the server evicted from its bounded buffer so far.
   */
  get dropped(): number {
    return this._dropped;
  }

  /**
   * Images the server refused (oversized, undecodable, mislabelled) so far.
   */
  get rejected(): number {
    return this._rejected;
  }

  /**
   * What the server keeps: its first `first` images and the latest `last` (null from
   * a server that does not say).
   */
  get kept(): { first: number; last: number } | null {
    return this._kept;
  }

  protected async load(
    kernelId: string,
    isCurrent: () => boolean
  ): Promise<void> {
    let pages = 0;
    let page: IImageList;
    let relist = false;
    do {
      page = await this.service.images(this._since, IMAGE_PAGE_LIMIT);
      if (!isCurrent()) {
        return;
      }
      // Images dropped since the last listing may be any of those held here (the
      // server keeps its first ones): listed again below, not cut by count here.
      relist ||= this._items.length > 0 && page.dropped > this._dropped;
      this._merge(page, !relist);
      this.emit();
    } while (page.more > 0 && ++pages < MAX_PAGES);
    if (relist && !(await this._relist(isCurrent))) {
      return;
    }
    await this._fetchBytes(isCurrent);
  }

  /**
   * List everything the server holds again and keep exactly that (the URLs of images
   * still held are kept); false when the answer no longer matters.
   */
  private async _relist(isCurrent: () => boolean): Promise<boolean> {
    const images: IImage[] = [];
    let since = 0;
    let page: IImageList;
    let pages = 0;
    do {
      page = await this.service.images(since, IMAGE_PAGE_LIMIT);
      if (!isCurrent()) {
        return false;
      }
      images.push(...page.images);
      since = page.next_since;
    } while (page.more > 0 && ++pages < MAX_PAGES);
    const held = new Map(this._items.map(item => [item.image.id, item]));
    const items = images.reverse().map(image => {
      const item = held.get(image.id);
      held.delete(image.id);
      return { image, url: item?.url ?? null, error: item?.error ?? null };
    });
    for (const gone of held.values()) {
      if (gone.url) {
        this._revokeUrl(gone.url);
      }
    }
    this._items = items;
    this._since = Math.max(this._since, page.next_since);
    this._dropped = page.dropped;
    this._rejected = page.rejected;
    this.emit();
    return true;
  }

  protected clear(): void {
    for (const item of this._items) {
      if (item.url) {
        this._revokeUrl(item.url);
      }
    }
    this._items = [];
    this._since = 0;
    this._dropped = 0;
    this._rejected = 0;
    this._kept = null;
  }

  /**
   * After a new snapshot generation the server has seen the end of the execution,
   * with every image it displayed.
   */
  protected onSnapshotKey(): void {
    this.schedule();
  }

  /**
   * Kernels without a probe have no snapshots: follow their executions instead.
   */
  protected onExecuted(_args: IExecutedArgs): void {
    const status = this.service.model.status;
    if (status === 'unsupported' || status === 'error') {
      this.schedule(250);
    }
  }

  /**
   * Add a page (oldest first): an image seen again (same bytes, or a new version of
   * the same display id) moves to the front; past the number the server holds, the
   * oldest go (`trim`; not when a relisting follows, which tells which ones exactly).
   */
  private _merge(page: IImageList, trim = true): void {
    let items = this._items;
    for (const image of page.images) {
      const replaced = items.filter(
        item =>
          item.image.id === image.id ||
          (image.display_id !== null &&
            item.image.display_id === image.display_id)
      );
      const same = replaced.find(
        item => item.image.id === image.id && item.url
      );
      for (const item of replaced) {
        if (item.url && item !== same) {
          this._revokeUrl(item.url);
        }
      }
      items = [
        { image, url: same?.url ?? null, error: null },
        ...items.filter(item => !replaced.includes(item))
      ];
    }
    const held = trim ? Math.max(page.total, 0) : items.length;
    for (const item of items.slice(held)) {
      if (item.url) {
        this._revokeUrl(item.url);
      }
    }
    this._items = items.slice(0, held);
    this._since = page.next_since;
    this._dropped = page.dropped;
    this._rejected = page.rejected;
    this._kept =
      page.keep_first !== undefined && page.keep_last !== undefined
        ? { first: page.keep_first, last: page.keep_last }
        : null;
  }

  private async _fetchBytes(isCurrent: () => boolean): Promise<void> {
    const pending = this._items.filter(item => !item.url && !item.error);
    await Promise.all(
      pending.map(async item => {
        let url: string | null = null;
        let error: string | null = null;
        try {
          url = this._createUrl(await this.service.imageBlob(item.image.id));
        } catch (reason) {
          error = reason instanceof Error ? reason.message : String(reason);
        }
        const index = this._items.findIndex(i => i.image === item.image);
        if (!isCurrent() || index < 0) {
          if (url) {
            this._revokeUrl(url);
          }
          return;
        }
        this._items = [...this._items];
        this._items[index] = { ...this._items[index], url, error };
        this.emit();
      })
    );
  }

  private _items: IImageItem[] = [];
  private _since = 0;
  private _dropped = 0;
  private _rejected = 0;
  private _kept: { first: number; last: number } | null = null;
  private _createUrl: (blob: Blob) => string;
  private _revokeUrl: (url: string) => void;
}

export namespace ImageStripModel {
  export interface IOptions {
    service: IKernelStateService;
    /**
     * Milliseconds between a trigger (new snapshot generation) and the load.
     */
    debounce?: number;
    /**
     * For tests: `URL.createObjectURL` / `URL.revokeObjectURL` replacements.
     */
    createObjectURL?: (blob: Blob) => string;
    revokeObjectURL?: (url: string) => void;
  }
}

/**
 * The extension of a file holding an image of `mime`.
 */
export function imageExtension(mime: string): string {
  const known: Record<string, string> = {
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'image/gif': 'gif',
    'image/webp': 'webp',
    'image/svg+xml': 'svg'
  };
  return known[mime] ?? 'bin';
}

/**
 * The images newest first with, between two whose ordinals are not consecutive, the
 * ordinals the server no longer holds (dropped between the first and the latest ones,
 * or replaced by a later copy).
 */
export function withGaps(
  items: readonly IImageItem[]
): ({ item: IImageItem } | { gap: { from: number; to: number } })[] {
  const out: ({ item: IImageItem } | { gap: { from: number; to: number } })[] =
    [];
  items.forEach((item, i) => {
    out.push({ item });
    const older = items[i + 1];
    if (older && item.image.seq - older.image.seq > 1) {
      out.push({ gap: { from: older.image.seq + 1, to: item.image.seq - 1 } });
    }
  });
  return out;
}

/**
 * A download file name: `kernel-state-3-<id>.png` (execution count, image id).
 */
export function imageFileName(image: IImage): string {
  const count = image.execution_count ?? 'x';
  return `kernel-state-${count}-${image.id}.${imageExtension(image.mime)}`;
}
