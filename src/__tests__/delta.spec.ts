/**
 * `applyDelta` as case tables: a held list, a delta reply, the options, and the names
 * of the merged list in order (null: ask for a normal page).
 */
import { applyDelta, canMerge, IDeltaQuery, naturalKey } from '../delta';
import { ISnapshot, IVariable, SnapshotSort } from '../tokens';
import { makeSnapshot, makeVariable } from './helpers';

/**
 * A held entry: its name, or `[name, extra fields]`.
 */
type Entry = string | [string, Partial<IVariable>];

function entries(list: Entry[], change: IVariable['change']): IVariable[] {
  return list.map(entry => {
    const [name, extra] = typeof entry === 'string' ? [entry, {}] : entry;
    return makeVariable(name, { change, ...extra });
  });
}

/**
 * The list held at generation 1: `total` defaults to its length (a complete list).
 */
function held(list: Entry[], total = list.length, limit = 3): ISnapshot {
  return makeSnapshot({
    variables: entries(list, 'modified'),
    total,
    limit,
    generation: 1
  });
}

/**
 * A delta reply at generation 2: new and modified entries, removed names, the total.
 */
function delta(
  fresh: Entry[],
  modified: Entry[],
  removed: string[],
  total: number
): ISnapshot {
  return makeSnapshot({
    variables: [...entries(fresh, 'new'), ...entries(modified, 'modified')],
    removed,
    total,
    limit: 3,
    generation: 2,
    execution_count: 2,
    delta: true
  });
}

const names = (snapshot: ISnapshot | null) =>
  snapshot === null ? null : snapshot.variables.map(v => v.name);

const q = (sort: SnapshotSort, limit = 3): IDeltaQuery => ({ sort, limit });

describe('applyDelta', () => {
  it.each<[string, ISnapshot, ISnapshot, IDeltaQuery, string[] | null]>([
    // Sizes at the edges (limit 3).
    ['empty list, nothing new', held([]), delta([], [], [], 0), q('name'), []],
    [
      'empty list, one new',
      held([]),
      delta(['a'], [], [], 1),
      q('name'),
      ['a']
    ],
    ['one entry removed', held(['a']), delta([], [], ['a'], 0), q('name'), []],
    [
      'one entry modified',
      held(['a']),
      delta([], ['a'], [], 1),
      q('name'),
      ['a']
    ],
    [
      'limit - 1 held, one new: exactly limit',
      held(['a', 'c']),
      delta(['b'], [], [], 3),
      q('name'),
      ['a', 'b', 'c']
    ],
    [
      'exactly limit held, one new: the last one falls off the page',
      held(['a', 'c', 'd']),
      delta(['b'], [], [], 4),
      q('name'),
      ['a', 'b', 'c']
    ],
    [
      'exactly limit held, one removed one new',
      held(['a', 'c', 'd']),
      delta(['e'], [], ['c'], 3),
      q('name'),
      ['a', 'd', 'e']
    ],
    [
      'limit + 1 (a page): a new name before the last held one',
      held(['b', 'c', 'd'], 4),
      delta(['a'], [], [], 5),
      q('name'),
      ['a', 'b', 'c']
    ],
    [
      'a page: a new name after the last held one is beyond it',
      held(['b', 'c', 'd'], 4),
      delta(['z'], [], [], 5),
      q('name'),
      ['b', 'c', 'd']
    ],
    [
      'a page: a held entry modified',
      held(['b', 'c', 'd'], 4),
      delta([], ['c'], [], 4),
      q('name'),
      ['b', 'c', 'd']
    ],
    [
      'a page: a removed held entry leaves a hole',
      held(['b', 'c', 'd'], 4),
      delta([], [], ['c'], 3),
      q('name'),
      null
    ],
    [
      'a page: a removed entry beyond it',
      held(['b', 'c', 'd'], 5),
      delta([], [], ['z'], 4),
      q('name'),
      ['b', 'c', 'd']
    ],
    [
      'a page: shrinks to exactly one page',
      held(['b', 'c', 'd'], 4),
      delta([], [], ['z'], 3),
      q('name'),
      ['b', 'c', 'd']
    ],
    [
      'a page: total does not add up (an entry left without removal)',
      held(['b', 'c', 'd'], 5),
      delta([], [], [], 4),
      q('name'),
      null
    ],
    [
      'a page: a name removed and bound again',
      held(['b', 'c', 'd'], 5),
      delta(['c'], [], ['c'], 5),
      q('name'),
      null
    ],
    [
      'complete: total does not add up (an entry left without removal)',
      held(['a', 'b']),
      delta([], [], [], 1),
      q('name'),
      null
    ],
    [
      'complete: a name removed and bound again',
      held(['a', 'b']),
      delta(['b'], [], ['b'], 2),
      q('name'),
      ['a', 'b']
    ],
    // Order.
    [
      'name: digits in natural order, case folded',
      held(['B', 'x2', 'x10'], 3, 5),
      delta(['a', 'x9'], [], [], 5),
      q('name', 5),
      ['a', 'B', 'x2', 'x9', 'x10']
    ],
    [
      'name: a non-ASCII name',
      held(['a', 'b']),
      delta(['café'], [], [], 3),
      q('name'),
      null
    ],
    [
      'name: the held list is not in natural order',
      held(['b', 'a']),
      delta(['c'], [], [], 3),
      q('name'),
      null
    ],
    [
      'changed: the modified entry moves first, null last',
      held(
        [
          ['c', { changed_at: 3 }],
          ['a', { changed_at: 2 }],
          ['b', { changed_at: 2 }],
          ['n', { changed_at: null }]
        ],
        4,
        4
      ),
      delta([], [['b', { changed_at: 5 }]], [], 4),
      q('changed', 4),
      ['b', 'c', 'a', 'n']
    ],
    [
      'changed: a new entry on a page',
      held(
        [
          ['c', { changed_at: 3 }],
          ['a', { changed_at: 2 }],
          ['b', { changed_at: 1 }]
        ],
        4
      ),
      delta([['z', { changed_at: 5 }]], [], [], 5),
      q('changed'),
      ['z', 'c', 'a']
    ],
    [
      'changed: a non-ASCII name',
      held([['é', { changed_at: 1 }]]),
      delta([], [['é', { changed_at: 2 }]], [], 1),
      q('changed'),
      null
    ],
    [
      'type: same type, replaced in place',
      held(['z', 'a'], 2),
      delta([], ['a'], [], 2),
      q('type'),
      ['z', 'a']
    ],
    [
      'type: a non-ASCII name keeps its place',
      held(['é', 'a'], 2),
      delta([], ['é'], [], 2),
      q('type'),
      ['é', 'a']
    ],
    [
      'type: the type changed',
      held(['z', 'a'], 2),
      delta([], [['a', { type: 'str' }]], [], 2),
      q('type'),
      null
    ],
    [
      'type: a new entry has no known place',
      held(['z', 'a'], 2),
      delta(['b'], [], [], 3),
      q('type'),
      null
    ],
    [
      'type: a removed entry of a complete list',
      held(['z', 'a'], 2),
      delta([], [], ['z'], 1),
      q('type'),
      ['a']
    ],
    [
      'size: same size, replaced in place',
      held([
        ['z', { size: 9 }],
        ['a', { size: 1 }]
      ]),
      delta([], [['z', { size: 9, preview: '9' }]], [], 2),
      q('size'),
      ['z', 'a']
    ],
    [
      'size: the size changed',
      held([
        ['z', { size: 9 }],
        ['a', { size: 1 }]
      ]),
      delta([], [['a', { size: 10 }]], [], 2),
      q('size'),
      null
    ]
  ])('%s', (_, before, reply, query, expected) => {
    const merged = applyDelta(before, reply, query);
    expect(names(merged)).toEqual(expected);
    if (merged !== null) {
      expect(merged.variables.length).toBeLessThanOrEqual(query.limit);
      expect(merged.variables.length).toBe(Math.min(reply.total, query.limit));
      expect(merged.delta).toBe(false);
    }
  });

  it.each<[string, Partial<ISnapshot>]>([
    ['another epoch', { epoch: 2 }],
    ['another kernel', { kernel_id: 'k2' }],
    ['an older generation', { generation: 0 }],
    [
      'more entries than limit',
      { variables: entries(['a', 'b', 'c', 'd'], 'new'), total: 4 }
    ]
  ])('gives up on %s', (_, change) => {
    const reply = { ...delta(['a'], [], [], 1), ...change };
    expect(applyDelta(held([]), reply, q('name'))).toBeNull();
  });

  it('returns a normal page as it is', () => {
    const page = makeSnapshot({ generation: 5, delta: false });
    expect(applyDelta(held(['a']), page, q('name'))).toBe(page);
    const older = makeSnapshot({ generation: 5 }); // no delta field: an older server
    expect(applyDelta(held(['a']), older, q('name'))).toBe(older);
  });

  it('keeps the held list itself when nothing changed', () => {
    const before = held(['a', 'b']);
    const reply = { ...delta([], [], [], 2), generation: 1 };
    expect(applyDelta(before, reply, q('name'))).toBe(before);
  });

  it("marks held entries unchanged and takes the reply's fields", () => {
    const before = held([
      ['a', { changed_at: 1, changes: ['len 1 → 2'] }],
      'b'
    ]);
    const reply = {
      ...delta([], [['b', { preview: '2', changed_at: 2 }]], [], 2),
      stale: false,
      taken_at: '2026-11-24T05:00:00+00:00',
      removed: ['gone']
    };
    const merged = applyDelta(before, reply, q('name'))!;
    expect(merged.variables[0]).toMatchObject({
      name: 'a',
      change: 'unchanged',
      changes: [],
      changed_at: 1
    });
    expect(merged.variables[1]).toBe(reply.variables[0]);
    expect(merged).toMatchObject({
      generation: 2,
      execution_count: 2,
      total: 2,
      taken_at: '2026-11-24T05:00:00+00:00',
      removed: ['gone'],
      offset: 0,
      delta: false
    });
    expect(before.variables[0].change).toBe('modified'); // the held list is not touched
  });

  it.each<[SnapshotSort, string[], boolean]>([
    ['name', ['a', 'b'], true],
    ['name', ['a', 'é'], false],
    ['changed', ['é'], false],
    ['type', ['é'], true],
    ['size', ['é'], true],
    ['name', [], true]
  ])(
    'a delta can be merged into a %s list of %j: %s',
    (sort, list, expected) => {
      expect(canMerge(held(list), q(sort))).toBe(expected);
    }
  );

  it.each([
    ['x10', 'x00000000000000000010\0x10'],
    ['Ab2c', 'ab00000000000000000002c\0Ab2c'],
    ['_', '_\0_']
  ])('natural key of %s', (name, key) => {
    expect(naturalKey(name)).toBe(key);
  });
});
