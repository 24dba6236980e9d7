/**
 * The block cache of the data explorer: windows of rows × columns kept by key, the
 * least recently used dropped first, so the memory of a grid over a table of any size
 * stays bounded.
 */
import { IRowsColumn } from '../../tokens';

/**
 * One fetched window: `rows[r][c]` is the cell of row `offset + r`, column
 * `columns[c].position`.
 */
export interface IBlock {
  offset: number;
  index: (string | null)[];
  columns: IRowsColumn[];
  rows: (string | null)[][];
  /**
   * The column positions asked for (a block asked under another column layout or
   * shape does not hold every column of its key: it is asked again).
   */
  asked?: readonly number[];
  /**
   * Position → index in `columns` (built on first use).
   */
  at?: Map<number, number>;
}

/**
 * The index in `block.columns` of a column position, or -1.
 */
export function columnIndex(block: IBlock, position: number): number {
  if (!block.at) {
    block.at = new Map(block.columns.map((column, i) => [column.position, i]));
  }
  return block.at.get(position) ?? -1;
}

/**
 * The `columns` query value of some positions: a range `start:stop` when they follow
 * each other, else a list `0,3,7`.
 */
export function columnsParam(positions: readonly number[]): string {
  const first = positions[0] ?? 0;
  const contiguous = positions.every((position, i) => position === first + i);
  return contiguous
    ? `${first}:${first + positions.length}`
    : positions.join(',');
}

/**
 * The key of the block holding the cell at (`rowBlock`, `columnBlock`).
 */
export function blockKey(
  rowBlock: number,
  columnBlock: number | string
): string {
  return `${rowBlock}:${columnBlock}`;
}

export class BlockCache {
  /**
   * At most `maxBlocks` blocks and `maxCells` cells (the last block stored is kept
   * whatever its size).
   */
  constructor(
    readonly maxBlocks: number,
    readonly maxCells = Infinity
  ) {}

  get size(): number {
    return this._blocks.size;
  }

  /**
   * The cells held, all blocks together.
   */
  get cells(): number {
    return this._cells;
  }

  /**
   * The block, marked as the most recently used.
   */
  get(key: string): IBlock | undefined {
    const block = this._blocks.get(key);
    if (block !== undefined && key !== this._last) {
      this._blocks.delete(key);
      this._blocks.set(key, block);
      this._last = key;
    }
    return block;
  }

  has(key: string): boolean {
    return this._blocks.has(key);
  }

  set(key: string, block: IBlock): void {
    this._delete(key);
    this._blocks.set(key, block);
    this._cells += cellsOf(block);
    this._last = key;
    while (
      this._blocks.size > 1 &&
      (this._blocks.size > this.maxBlocks || this._cells > this.maxCells)
    ) {
      this._delete(this._blocks.keys().next().value as string);
    }
  }

  delete(key: string): void {
    this._delete(key);
    if (this._last === key) {
      this._last = null;
    }
  }

  clear(): void {
    this._blocks.clear();
    this._cells = 0;
    this._last = null;
  }

  private _delete(key: string): void {
    const block = this._blocks.get(key);
    if (block !== undefined) {
      this._blocks.delete(key);
      this._cells -= cellsOf(block);
    }
  }

  private _blocks = new Map<string, IBlock>();
  private _cells = 0;
  private _last: string | null = null;
}

function cellsOf(block: IBlock): number {
  return block.rows.length * Math.max(1, block.columns.length);
}
