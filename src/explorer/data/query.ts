/**
 * The explorer's data budgets and the shapes its model shares with the views: what
 * the first window said about the value, a cell's metadata, the fetchers bound to a
 * kernel and a name, why rows are stale, what an engine's query took, a filter's key,
 * the rows a grid shows and a cell of it.
 */
import { DataModel } from '@lumino/datagrid';

import {
  FilterNode,
  ICountQuery,
  ICountResult,
  IEngineInfo,
  IRowsQuery,
  IRowsWindow
} from '../../tokens';

/**
 * Rows a block asks for (the route allows up to 1,000).
 */
export const ROWS_PER_BLOCK = 200;
/**
 * Columns a block asks for (the route allows up to 100).
 */
export const COLUMNS_PER_BLOCK = 100;
/**
 * Blocks kept in memory, and cells (each at most 200 characters): a few screens of a
 * wide table, many of a narrow one.
 */
export const MAX_BLOCKS = 50;
export const MAX_CELLS = 250_000;
/**
 * Fetches in flight at once; the rest wait, the most recently asked first.
 */
export const MAX_IN_FLIGHT = 3;
/**
 * Blocks waiting to be fetched; older wishes are forgotten (the grid asks again for
 * whatever it paints).
 */
export const MAX_QUEUED = 16;
/**
 * Attempts of one block while the kernel is busy (503), and the longest wait.
 */
export const MAX_BUSY_RETRIES = 5;
export const MAX_RETRY_DELAY_MS = 5000;
/**
 * The time a view given up for time is asked again with (`budget_ms`): the server's
 * default `max_request_budget_ms`.
 */
export const MORE_TIME_MS = 60_000;
/**
 * A refusal that says the work ran past its time guard.
 */
export const OUT_OF_TIME = /cancelled|interrupted|timed out|ran out of time/i;

/**
 * Why the data shown is no longer the variable's: it changed (another execution
 * assigned or modified it), it was removed, or the kernel restarted.
 */
export type StaleReason = 'changed' | 'removed' | 'restarted';

/**
 * What the first window said about the whole value.
 */
export interface ITableInfo {
  name: string;
  kind: string;
  type: string;
  shape: (number | null)[];
  /**
   * The rows of the value, or null while not counted (an engine table whose count
   * did not finish within the window's guard).
   */
  totalRows: number | null;
  /**
   * The rows the filter keeps, or null without a filter (or while not counted).
   */
  filteredRows: number | null;
  /**
   * The rows were read with a filter (`filteredRows` is then their count).
   */
  filtered: boolean;
  /**
   * The engine the table lives in, or null for a value in the kernel's memory.
   */
  engine: IEngineInfo | null;
  columnsTotal: number;
  indexName: string | null;
  changedAt: number | null;
  /**
   * The kernel epoch the rows were read in, when the server says.
   */
  epoch: number | null;
  generation: number;
  /**
   * The rows come from before the running cell (kernel busy, answer cached).
   */
  stale: boolean;
}

/**
 * Metadata of a body cell: the column's dtype.
 */
export interface ICellMetadata extends DataModel.Metadata {
  dtype?: string | null;
}

export type RowsFetcher = (query: IRowsQuery) => Promise<IRowsWindow>;

/**
 * Count the rows of a view in its engine (`IKernelStateService.count` bound to a
 * kernel and a name).
 */
export type RowsCounter = (query: ICountQuery) => Promise<ICountResult>;

/**
 * What the engine's last query for the explorer took: a window, a count or a
 * profile.
 */
export interface IEngineCost {
  what: 'window' | 'count' | 'profile';
  ms: number;
}

/**
 * Whether two row counts may be of the same value: equal, or one not counted.
 */
export function sameCount(a: number | null, b: number | null): boolean {
  return a === null || b === null || a === b;
}

/**
 * A stable text of a filter (to compare two).
 */
export function filterKey(filter: FilterNode | null): string {
  return filter ? JSON.stringify(filter) : '';
}

/**
 * The rows and body columns a grid shows: first and last of each.
 */
export interface IVisibleRows {
  first: number;
  last: number;
  firstColumn?: number;
  lastColumn?: number;
}

/**
 * A cell of the grid: its region and row and column in that region.
 */
export interface IGridHit {
  region: DataModel.CellRegion;
  row: number;
  column: number;
}
