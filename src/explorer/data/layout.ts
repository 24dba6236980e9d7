/**
 * Which columns of the table the grid shows, and where: pinned columns first (frozen
 * at the left, beside the row labels), then every column neither pinned nor hidden, in
 * table order. The body's column `v` is a table position found by a binary search over
 * the few columns taken out, so a table of a million columns costs no array of them.
 */

/**
 * Columns pinned at once.
 */
export const MAX_PINNED = 10;
/**
 * Columns hidden at once.
 */
export const MAX_HIDDEN = 10_000;

export class ColumnLayout {
  /**
   * The table's column count.
   */
  get total(): number {
    return this._total;
  }

  /**
   * Pinned positions, in the order pinned.
   */
  get pinned(): readonly number[] {
    return this._pinned;
  }

  /**
   * Moves on at each change (column sizes are the view's: they are fitted again).
   */
  get version(): number {
    return this._version;
  }

  get hiddenCount(): number {
    return this._hidden.size;
  }

  /**
   * Nothing pinned nor hidden: view column `v` is position `v`.
   */
  get isIdentity(): boolean {
    return this._out.length === 0;
  }

  /**
   * The body's column count.
   */
  get bodyCount(): number {
    return Math.max(0, this._total - this._out.length);
  }

  isHidden(position: number): boolean {
    return this._hidden.has(position);
  }

  isPinned(position: number): boolean {
    return this._pinned.includes(position);
  }

  /**
   * A new column count: pins and hides past it are dropped.
   */
  setTotal(total: number): void {
    if (total === this._total) {
      return;
    }
    this._total = total;
    this._pinned = this._pinned.filter(position => position < total);
    for (const position of [...this._hidden]) {
      if (position >= total) {
        this._hidden.delete(position);
      }
    }
    this._update();
  }

  /**
   * Hide a column (its pin is dropped). False when at the bound or the last shown.
   */
  hide(position: number): boolean {
    if (
      this._hidden.has(position) ||
      this._hidden.size >= MAX_HIDDEN ||
      position < 0 ||
      position >= this._total ||
      this._hidden.size + 1 >= this._total
    ) {
      return false;
    }
    this._pinned = this._pinned.filter(p => p !== position);
    this._hidden.add(position);
    this._update();
    return true;
  }

  /**
   * Show a hidden column again.
   */
  show(position: number): boolean {
    if (!this._hidden.delete(position)) {
      return false;
    }
    this._update();
    return true;
  }

  showAll(): boolean {
    if (this._hidden.size === 0) {
      return false;
    }
    this._hidden.clear();
    this._update();
    return true;
  }

  /**
   * Pin a column (shown again if hidden). False when pinned or at the bound.
   */
  pin(position: number): boolean {
    if (
      this._pinned.includes(position) ||
      this._pinned.length >= MAX_PINNED ||
      position < 0 ||
      position >= this._total
    ) {
      return false;
    }
    this._hidden.delete(position);
    this._pinned = [...this._pinned, position];
    this._update();
    return true;
  }

  unpin(position: number): boolean {
    if (!this._pinned.includes(position)) {
      return false;
    }
    this._pinned = this._pinned.filter(p => p !== position);
    this._update();
    return true;
  }

  /**
   * The table position of body column `view`.
   */
  positionOf(view: number): number {
    // The first k taken-out positions lie before it when out[k-1] - (k-1) <= view.
    const out = this._out;
    let low = 0;
    let high = out.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (out[mid] - mid <= view) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return view + low;
  }

  /**
   * The body column showing a position, or -1 when it is pinned or hidden.
   */
  viewOf(position: number): number {
    if (this._hidden.has(position) || this._pinned.includes(position)) {
      return -1;
    }
    let low = 0;
    let high = this._out.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this._out[mid] < position) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return position - low;
  }

  /**
   * The positions of body columns `start` to `stop` (excluded), within the table.
   */
  bodyPositions(start: number, stop: number): number[] {
    const positions: number[] = [];
    const end = Math.min(stop, this.bodyCount);
    for (let view = Math.max(0, start); view < end; view++) {
      positions.push(this.positionOf(view));
    }
    return positions;
  }

  /**
   * Every position shown, in the order shown (pinned first), or null when that is the
   * whole table in its own order.
   */
  shownPositions(): number[] | null {
    if (this.isIdentity) {
      return null;
    }
    return [...this._pinned, ...this.bodyPositions(0, this.bodyCount)];
  }

  private _update(): void {
    this._version++;
    this._out = [...new Set([...this._hidden, ...this._pinned])].sort(
      (a, b) => a - b
    );
  }

  private _total = 0;
  private _pinned: number[] = [];
  private _hidden = new Set<number>();
  private _out: number[] = [];
  private _version = 0;
}
