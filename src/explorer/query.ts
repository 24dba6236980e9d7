/**
 * The explorer's budgets, the shapes its model shares with the view, and the query
 * helpers: the `sort` parameter, the header-click cycle, errors of the rows route.
 */
import { ServerConnection } from '@jupyterlab/services';
import { DataModel } from '@lumino/datagrid';

import {
  ColumnFamily,
  FilterNode,
  ICountQuery,
  ICountResult,
  IEngineInfo,
  IRowsQuery,
  IRowsWindow
} from '../tokens';

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

/**
 * One sort key: a column by name and its direction.
 */
export interface ISortState {
  column: string;
  direction: SortDirection;
}

/**
 * Sort keys at once (the first ranks first).
 */
export const MAX_SORT_KEYS = 10;

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
 * The `sort` query value of some keys: `price:desc,region:asc`, or the JSON list
 * `[{"column": "a,b", "desc": true}]` when a name holds a comma or a colon.
 */
export function sortParam(
  keys: readonly ISortState[] | null | undefined
): string | undefined {
  if (!keys || keys.length === 0) {
    return undefined;
  }
  if (keys.some(key => /[,:]/.test(key.column))) {
    return JSON.stringify(
      keys.map(key =>
        key.direction === 'desc'
          ? { column: key.column, desc: true }
          : { column: key.column }
      )
    );
  }
  return keys.map(key => `${key.column}:${key.direction}`).join(',');
}

/**
 * The keys after a click on a column header. A plain click sorts by that column
 * alone: ascending, descending, then the table's own order. With `add` (shift-click)
 * the column is added as the last key, or its key reversed, then removed, the other
 * keys kept.
 */
export function nextSort(
  current: readonly ISortState[],
  column: string,
  add = false
): ISortState[] {
  const at = current.findIndex(key => key.column === column);
  const direction = at < 0 ? null : current[at].direction;
  if (!add) {
    if (direction === null || current.length > 1) {
      return [{ column, direction: direction === 'asc' ? 'desc' : 'asc' }];
    }
    return direction === 'asc' ? [{ column, direction: 'desc' }] : [];
  }
  if (at < 0) {
    return current.length >= MAX_SORT_KEYS
      ? [...current]
      : [...current, { column, direction: 'asc' }];
  }
  if (direction === 'asc') {
    return current.map((key, i) =>
      i === at ? { column, direction: 'desc' } : key
    );
  }
  return current.filter((_, i) => i !== at);
}

/**
 * A column's sort marker: `▲`, `▼`, with its rank when there are several keys
 * (`▲1`, `▼2`), or '' when it is not a key.
 */
export function sortMarker(
  keys: readonly ISortState[],
  column: string
): string {
  const at = keys.findIndex(key => key.column === column);
  if (at < 0) {
    return '';
  }
  const arrow = keys[at].direction === 'asc' ? '▲' : '▼';
  return keys.length > 1 ? `${arrow}${at + 1}` : arrow;
}

/**
 * A stable text of a filter (to compare two).
 */
export function filterKey(filter: FilterNode | null): string {
  return filter ? JSON.stringify(filter) : '';
}

/**
 * The family of a dtype, as the profile groups columns (numbers, text, categories,
 * booleans, dates and times, other), for the operators a filter offers. pandas
 * `object` columns are most often text.
 */
export function familyOf(dtype: string | null | undefined): ColumnFamily {
  if (!dtype) {
    return 'other';
  }
  if (/^(bool|logical)/i.test(dtype)) {
    return 'boolean';
  }
  if (
    /^(datetime|date|timestamp|time|timedelta|duration|posix|difftime)/i.test(
      dtype
    )
  ) {
    return 'datetime';
  }
  if (/^(category|categorical|enum|factor)/i.test(dtype)) {
    return 'category';
  }
  if (isNumericDtype(dtype)) {
    return 'number';
  }
  if (/^(object|str|string|utf8|large_string|character|<U|\|S)/i.test(dtype)) {
    return 'string';
  }
  return 'other';
}

/**
 * Whether a dtype holds numbers (right-aligned, formatted): numpy, pandas, polars and
 * R names.
 */
export function isNumericDtype(dtype: string | null | undefined): boolean {
  return (
    !!dtype &&
    (/^(u?int|float|complex|decimal|i\d|u\d|f\d)/i.test(dtype) ||
      /^(numeric|double|integer)$/i.test(dtype))
  );
}

/**
 * Whether a dtype holds integers (shown exactly, with separators).
 */
export function isIntegerDtype(dtype: string | null | undefined): boolean {
  return (
    !!dtype && (/^(u?int|i\d|u\d)/i.test(dtype) || /^integer$/i.test(dtype))
  );
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
