/**
 * The variable list's sort, as the server spells it (`name`, `memory:asc`): a sort's
 * key and direction, each key's natural direction, the sort after a click on a
 * header, a header's `aria-sort`, and whether a setting's value is a sort.
 */
import { SnapshotSort, SnapshotSortKey } from '../../tokens';

export type SortDirection = 'asc' | 'desc';

/**
 * The direction of a key without a suffix, as the server sorts it: names and types
 * A→Z; size, memory and the last change largest or latest first.
 */
export const NATURAL_DIRECTION: Record<SnapshotSortKey, SortDirection> = {
  name: 'asc',
  type: 'asc',
  size: 'desc',
  memory: 'desc',
  changed: 'desc'
};

/**
 * A sort's key and direction.
 */
export function parseSort(sort: SnapshotSort | string): {
  key: SnapshotSortKey;
  direction: SortDirection;
} {
  const [key, suffix] = sort.split(':') as [SnapshotSortKey, string?];
  const known = key in NATURAL_DIRECTION ? key : 'name';
  const direction =
    suffix === 'asc' || suffix === 'desc' ? suffix : NATURAL_DIRECTION[known];
  return { key: known, direction };
}

/**
 * The sort as the server spells it: the bare key in its own direction, else
 * `key:direction`.
 */
export function formatSort(
  key: SnapshotSortKey,
  direction: SortDirection
): SnapshotSort {
  return direction === NATURAL_DIRECTION[key] ? key : `${key}:${direction}`;
}

/**
 * The sort after a click on the header of `key`: the same key reversed, or the new key
 * in its own direction.
 */
export function nextSort(
  current: SnapshotSort,
  key: SnapshotSortKey
): SnapshotSort {
  const { key: currentKey, direction } = parseSort(current);
  if (currentKey !== key) {
    return key;
  }
  return formatSort(key, direction === 'asc' ? 'desc' : 'asc');
}

/**
 * `aria-sort` of the header of `key`.
 */
export function ariaSort(
  current: SnapshotSort,
  key: SnapshotSortKey
): 'ascending' | 'descending' | undefined {
  const parsed = parseSort(current);
  if (parsed.key !== key) {
    return undefined;
  }
  return parsed.direction === 'asc' ? 'ascending' : 'descending';
}

/**
 * Whether a setting's value is a sort the server knows.
 */
export function isSnapshotSort(value: unknown): value is SnapshotSort {
  if (typeof value !== 'string') {
    return false;
  }
  const [key, suffix, ...rest] = value.split(':');
  return (
    key in NATURAL_DIRECTION &&
    rest.length === 0 &&
    (suffix === undefined || suffix === 'asc' || suffix === 'desc')
  );
}
