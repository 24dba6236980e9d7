/**
 * The explorer's budgets, the shapes its model shares with the view, and the query
 * helpers: the `sort` parameter, the header-click cycle, errors of the rows route.
 */
import { ServerConnection } from '@jupyterlab/services';
import { DataModel } from '@lumino/datagrid';

import { IRowsFilter, IRowsQuery, IRowsWindow } from '../tokens';

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

export type SortDirection = 'asc' | 'desc';

export interface ISortState {
  column: string;
  direction: SortDirection;
}

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
  shape: number[];
  totalRows: number;
  /**
   * The rows the filter keeps, or null without a filter.
   */
  filteredRows: number | null;
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
 * The `sort` query value of a sort state.
 */
export function sortParam(sort: ISortState | null): string | undefined {
  return sort ? `${sort.column}:${sort.direction}` : undefined;
}

/**
 * The next sort when a column header is clicked: ascending, descending, none.
 */
export function nextSort(
  current: ISortState | null,
  column: string
): ISortState | null {
  if (!current || current.column !== column) {
    return { column, direction: 'asc' };
  }
  return current.direction === 'asc' ? { column, direction: 'desc' } : null;
}

/**
 * A stable text of a filter (to compare two).
 */
export function filterKey(filter: IRowsFilter | null): string {
  return filter
    ? JSON.stringify([filter.column, filter.op, filter.value ?? null])
    : '';
}

/**
 * The HTTP status, server message and `Retry-After` seconds of a failed fetch.
 */
export function describeError(error: unknown): {
  status: number | null;
  message: string;
  retryAfter: number | null;
} {
  if (error instanceof ServerConnection.ResponseError) {
    const status = error.response.status;
    const header = error.response.headers.get('Retry-After');
    const seconds = header === null ? NaN : Number(header);
    return {
      status,
      message: error.message,
      retryAfter:
        status === 503 ? (Number.isFinite(seconds) ? seconds : 1) : null
    };
  }
  return {
    status: null,
    message: error instanceof Error ? error.message : String(error),
    retryAfter: null
  };
}
