/**
 * Merging a delta reply (`since=G&delta=true`) into the list held since generation G.
 *
 * A delta holds every entry new or modified since G (not paged) and the names removed
 * since G; the rest of the list is what the client holds. The merge must give exactly
 * the page the server would send now, or nothing: `applyDelta` returns null whenever it
 * cannot be sure, and the caller asks for a normal page.
 *
 * Why some cases give up:
 * - `sort=name|changed` orders are re-computed here with the server's natural key, which
 *   folds case with Python's `str.casefold`; JavaScript has no casefold, so only lists
 *   whose names are all ASCII (where casefold is `toLowerCase`) are re-sorted.
 * - `sort=type|size` orders come from values in the kernel: an entry keeps its place only
 *   when its type (size) did not change, and a new entry has no known place.
 * - A page cut by `limit` cannot fill the hole a removed entry leaves, and an entry that
 *   left the list without being removed (rebound to a hidden kind, or no longer matching
 *   the filter by type) is seen only through the list's count (`countOf`), which must
 *   add up.
 */
import { ISnapshot, IVariable, SnapshotSort } from './tokens';

/**
 * The options the held list and the delta were asked with.
 */
export interface IDeltaQuery {
  limit: number;
  sort?: SnapshotSort;
}

/**
 * The snapshot `held` becomes with `reply` (an answer to `since=held.generation`), with
 * `delta: false`; `reply` itself when it is a normal page; null when the client must ask
 * for a normal page. When nothing changed since `held`, `held` itself.
 */
export function applyDelta(
  held: ISnapshot,
  reply: ISnapshot,
  query: IDeltaQuery
): ISnapshot | null {
  if (reply.delta !== true) {
    return reply;
  }
  const limit = query.limit;
  if (
    reply.kernel_id !== held.kernel_id ||
    reply.epoch !== held.epoch ||
    reply.generation < held.generation ||
    held.offset !== 0 ||
    held.variables.length !== Math.min(countOf(held), limit) ||
    reply.variables.length > limit
  ) {
    return null;
  }
  if (
    reply.generation === held.generation &&
    reply.variables.length === 0 &&
    reply.removed.length === 0 &&
    countOf(reply) === countOf(held) &&
    reply.total === held.total
  ) {
    return held; // keeps the change marks of the last run
  }
  const merged = merge(held, reply);
  if (merged === null) {
    return null;
  }
  const ordered = reorder(held, merged, query.sort ?? 'name');
  if (ordered === null) {
    return null;
  }
  const variables = ordered.slice(0, limit);
  if (variables.length !== Math.min(countOf(reply), limit)) {
    return null;
  }
  return { ...reply, variables, offset: 0, delta: false };
}

/**
 * How many variables the list of `snapshot` holds in all: what its `filter` (and
 * `changed_in`) matched — `matched`, or `total` from a server that counted only those.
 */
export function countOf(
  snapshot: Pick<ISnapshot, 'total' | 'matched'>
): number {
  return snapshot.matched ?? snapshot.total;
}

/**
 * Whether a delta could be merged into `held` at all — with `sort=name|changed` only
 * when every held name is ASCII — so that a list that cannot be merged costs one
 * request, not two.
 */
export function canMerge(held: ISnapshot, query: IDeltaQuery): boolean {
  const sort = ownOrder(query.sort ?? 'name');
  if (sort !== 'name' && sort !== 'changed') {
    return true;
  }
  return held.variables.every(v => isAscii(v.name));
}

/**
 * The sort key of `sort=name` for an ASCII name, as the server computes it: the name
 * case-folded with every run of digits zero-padded to 20 digits, NUL, the name itself.
 */
export function naturalKey(name: string): string {
  const folded = name
    .toLowerCase()
    .replace(/\d+/g, run => run.padStart(20, '0'));
  return `${folded}\0${name}`;
}

/**
 * The held entries with the removed dropped and the delta's upserted (in held order,
 * entries not held after), and which were added; null when a page cut by `limit` gets
 * a hole or `total` does not add up.
 */
function merge(
  held: ISnapshot,
  reply: ISnapshot
): { list: IVariable[]; added: IVariable[] } | null {
  const complete = countOf(held) === held.variables.length;
  const updates = new Map(reply.variables.map(v => [v.name, v]));
  const removed = new Set(reply.removed);
  if (updates.size !== reply.variables.length) {
    return null;
  }
  const heldNames = new Set<string>();
  const list: IVariable[] = [];
  for (const variable of held.variables) {
    heldNames.add(variable.name);
    const update = updates.get(variable.name);
    if (update) {
      list.push(update);
    } else if (removed.has(variable.name)) {
      if (!complete) {
        return null; // the next entry beyond the page would move in: unknown here
      }
    } else {
      list.push(unchanged(variable));
    }
  }
  const added = reply.variables.filter(v => !heldNames.has(v.name));
  list.push(...added);
  if (complete) {
    // Every listed entry was held, so any other way of leaving shows in the count.
    return list.length === countOf(reply) ? { list, added } : null;
  }
  // A page: the entries beyond it are not known, only counted. A name both removed and
  // rebound, a removed name that was hidden, a hidden name shown again: ask for a page.
  const fresh = added.filter(v => v.change === 'new').length;
  const rebound = reply.variables.some(v => removed.has(v.name));
  const expected = countOf(held) + fresh - removed.size;
  return !rebound && countOf(reply) === expected ? { list, added } : null;
}

/**
 * An entry that did not change since the held generation.
 */
function unchanged(variable: IVariable): IVariable {
  if (variable.change === 'unchanged' && variable.changes.length === 0) {
    return variable;
  }
  return { ...variable, change: 'unchanged', changes: [] };
}

/**
 * The merged entries in the server's order, or null when it cannot be told here.
 */
function reorder(
  held: ISnapshot,
  merged: { list: IVariable[]; added: IVariable[] },
  order: SnapshotSort
): IVariable[] | null {
  const sort = ownOrder(order);
  if (sort === 'name' || sort === 'changed') {
    const compare = comparator(sort, [...held.variables, ...merged.list]);
    if (compare === null || !isSorted(held.variables, compare)) {
      return null; // the held list is not in the order computed here: do not guess
    }
    return merged.list.slice().sort(compare);
  }
  // Other orders (and name/changed reversed): kept only when no entry's key moved.
  const key = order.split(':')[0];
  const field: keyof IVariable =
    key === 'type' || key === 'name' || key === 'memory'
      ? key
      : key === 'changed'
        ? 'changed_at'
        : 'size';
  if (merged.added.length > 0) {
    return null;
  }
  const before = new Map(held.variables.map(v => [v.name, v[field]]));
  const moved = merged.list.some(v => before.get(v.name) !== v[field]);
  return moved ? null : merged.list;
}

/**
 * `name` or `changed` when the sort is that key in its own direction (bare, or with
 * the same direction spelled out), else the sort as given.
 */
function ownOrder(sort: SnapshotSort): SnapshotSort {
  if (sort === 'name:asc') {
    return 'name';
  }
  if (sort === 'changed:desc') {
    return 'changed';
  }
  return sort;
}

type Compare = (a: IVariable, b: IVariable) => number;

/**
 * The comparator of `sort=name` or `sort=changed`, or null when a name is not ASCII.
 */
function comparator(
  sort: 'name' | 'changed',
  variables: IVariable[]
): Compare | null {
  const keys = new Map<string, string>();
  for (const { name } of variables) {
    if (!isAscii(name)) {
      return null;
    }
    if (!keys.has(name)) {
      keys.set(name, naturalKey(name));
    }
  }
  const byName: Compare = (a, b) => {
    const ka = keys.get(a.name)!;
    const kb = keys.get(b.name)!;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
  if (sort === 'name') {
    return byName;
  }
  return (a, b) => {
    if (a.changed_at !== b.changed_at) {
      if (a.changed_at === null) {
        return 1;
      }
      if (b.changed_at === null) {
        return -1;
      }
      return b.changed_at - a.changed_at;
    }
    return byName(a, b);
  };
}

function isSorted(variables: IVariable[], compare: Compare): boolean {
  for (let i = 1; i < variables.length; i++) {
    if (compare(variables[i - 1], variables[i]) > 0) {
      return false;
    }
  }
  return true;
}

function isAscii(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(name);
}
