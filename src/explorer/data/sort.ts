/**
 * The explorer's sort keys: their shape, the `sort` query value, the header-click
 * cycle, a header's marker and the keys as text. Sorting is done by the kernel.
 */

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
 * `price ▼, region ▲`.
 */
export function sortText(keys: readonly ISortState[]): string {
  return keys
    .map(key => `${key.column} ${key.direction === 'asc' ? '▲' : '▼'}`)
    .join(', ');
}
