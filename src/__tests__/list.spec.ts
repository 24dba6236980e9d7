/**
 * The variable list's model and its pure rules: sort cycling, keyboard navigation,
 * type-ahead, removed rows kept until the next execution, copy-as-code, masking.
 */
import {
  copyAsCode,
  dedupeError,
  isExplorable,
  errorLine,
  isPythonLiteral,
  MASKED_TEXT,
  previewText
} from '../format';
import { navigate, TypeAhead } from '../models/list/keys';
import { VariableListModel } from '../models/list/model';
import { RemovedTracker } from '../models/list/removed';
import {
  ariaSort,
  isSnapshotSort,
  nextSort,
  parseSort
} from '../models/list/sort';
import {
  clampWidth,
  DEFAULT_COLUMN_WIDTHS,
  readWidths
} from '../models/list/widths';
import { fakeService, makeSnapshot, makeVariable } from './helpers';

describe('sort cycling', () => {
  it.each([
    ['name', 'name', 'name:desc'],
    ['name:desc', 'name', 'name:asc'.replace(':asc', '')],
    ['name', 'type', 'type'],
    ['type', 'type', 'type:desc'],
    ['name', 'memory', 'memory'],
    ['memory', 'memory', 'memory:asc'],
    ['memory:asc', 'memory', 'memory'],
    ['size', 'size', 'size:asc'],
    ['changed', 'changed', 'changed:asc'],
    ['memory:desc', 'memory', 'memory:asc'],
    ['name:asc', 'name', 'name:desc']
  ] as const)('%s, click on %s → %s', (current, key, next) => {
    expect(nextSort(current, key)).toBe(next);
  });

  it('clicking twice comes back', () => {
    for (const key of ['name', 'type', 'size', 'memory', 'changed'] as const) {
      expect(nextSort(nextSort(key, key), key)).toBe(key);
    }
  });

  it('tells aria-sort from the direction, bare keys in their own direction', () => {
    expect(ariaSort('name', 'name')).toBe('ascending');
    expect(ariaSort('name:desc', 'name')).toBe('descending');
    expect(ariaSort('memory', 'memory')).toBe('descending');
    expect(ariaSort('memory:asc', 'memory')).toBe('ascending');
    expect(ariaSort('memory', 'name')).toBeUndefined();
    expect(parseSort('size')).toEqual({ key: 'size', direction: 'desc' });
  });

  it('checks sorts from settings', () => {
    expect(isSnapshotSort('memory:desc')).toBe(true);
    expect(isSnapshotSort('name')).toBe(true);
    expect(isSnapshotSort('name:up')).toBe(false);
    expect(isSnapshotSort('price:desc')).toBe(false);
    expect(isSnapshotSort('name:asc:x')).toBe(false);
    expect(isSnapshotSort(3)).toBe(false);
  });
});

describe('navigate', () => {
  it.each([
    ['ArrowDown', -1, 0],
    ['ArrowDown', 0, 1],
    ['ArrowDown', 4, 4],
    ['ArrowUp', 0, 0],
    ['ArrowUp', 3, 2],
    ['Home', 3, 0],
    ['End', 0, 4],
    ['PageDown', 0, 4],
    ['PageUp', 4, 0]
  ])('%s from %d → %d among 5', (key, index, expected) => {
    expect(navigate(key, index, 5, 10)).toBe(expected);
  });

  it('ignores other keys and empty lists', () => {
    expect(navigate('a', 0, 5)).toBeNull();
    expect(navigate('Home', -1, 0)).toBeNull();
  });
});

describe('TypeAhead', () => {
  const names = ['alpha', 'beta', 'sales', 'sample', 'series', 'Summary'];

  it('jumps to the next name with the typed letter, and cycles', () => {
    const ahead = new TypeAhead(500);
    expect(ahead.type('s', names, -1, 0)).toBe(2);
    // the same letter again, quickly: the next s-name
    expect(ahead.type('s', names, 2, 100)).toBe(3);
    expect(ahead.type('s', names, 3, 200)).toBe(4);
    expect(ahead.type('S', names, 4, 300)).toBe(5); // case-insensitive
    expect(ahead.type('s', names, 5, 400)).toBe(2); // wraps
  });

  it('extends the prefix while typing fast, and starts again after a pause', () => {
    const ahead = new TypeAhead(500);
    expect(ahead.type('s', names, 0, 0)).toBe(2);
    expect(ahead.type('e', names, 2, 100)).toBe(4);
    expect(ahead.prefix).toBe('se');
    expect(ahead.type('b', names, 4, 2000)).toBe(1);
    expect(ahead.prefix).toBe('b');
    expect(ahead.type('z', names, 1, 2100)).toBeNull();
  });

  it('accepts printable keys without modifiers', () => {
    expect(TypeAhead.accepts({ key: 'a' })).toBe(true);
    expect(TypeAhead.accepts({ key: '_' })).toBe(true);
    expect(TypeAhead.accepts({ key: 'a', ctrlKey: true })).toBe(false);
    expect(TypeAhead.accepts({ key: 'Enter' })).toBe(false);
    expect(TypeAhead.accepts({ key: ' ' })).toBe(false);
  });
});

describe('RemovedTracker', () => {
  const a = makeVariable('a');
  const b = makeVariable('b');
  const c = makeVariable('c');

  it('keeps names that disappear across a generation until the next one', () => {
    const tracker = new RemovedTracker();
    tracker.update(makeSnapshot({ generation: 1, variables: [a, b, c] }));
    const rows = tracker.update(
      makeSnapshot({ generation: 2, variables: [a, c] })
    );
    expect(rows.map(r => [r.variable.name, r.removed])).toEqual([
      ['a', false],
      ['b', true],
      ['c', false]
    ]);
    // a refresh at the same generation keeps it
    expect(
      tracker
        .update(makeSnapshot({ generation: 2, variables: [a, c] }))
        .map(r => r.variable.name)
    ).toEqual(['a', 'b', 'c']);
    // the next execution drops it
    const next = tracker.update(
      makeSnapshot({ generation: 3, variables: [a, c] })
    );
    expect(next.map(r => r.variable.name)).toEqual(['a', 'c']);
  });

  it('takes the snapshot’s removed names the list showed, also for a list cut by limit', () => {
    const tracker = new RemovedTracker();
    tracker.update(
      makeSnapshot({ generation: 1, variables: [a, b], total: 10 })
    );
    const rows = tracker.update(
      makeSnapshot({
        generation: 2,
        variables: [a],
        total: 9,
        removed: ['b', 'zz']
      })
    );
    // `zz` was never listed (beyond the page, or a hidden kind): not shown
    expect(rows.map(r => [r.variable.name, r.removed])).toEqual([
      ['a', false],
      ['b', true]
    ]);
  });

  it('does not call a name removed when only the options changed, or the kernel', () => {
    const tracker = new RemovedTracker();
    tracker.update(makeSnapshot({ generation: 1, variables: [a, b] }), 'x');
    expect(
      tracker
        .update(makeSnapshot({ generation: 2, variables: [a] }), 'y')
        .some(r => r.removed)
    ).toBe(false);
    tracker.update(makeSnapshot({ generation: 3, variables: [a, b] }), 'y');
    expect(
      tracker
        .update(makeSnapshot({ generation: 4, epoch: 2, variables: [a] }), 'y')
        .some(r => r.removed)
    ).toBe(false);
  });

  it('drops a removed name that comes back, and names the user deleted', () => {
    const tracker = new RemovedTracker();
    tracker.update(makeSnapshot({ generation: 1, variables: [a, b, c] }));
    tracker.update(makeSnapshot({ generation: 2, variables: [a] }));
    expect(tracker.removedNames).toEqual(['b', 'c']);
    tracker.forget('c');
    expect(tracker.removedNames).toEqual(['b']);
    const rows = tracker.update(
      makeSnapshot({ generation: 2, variables: [a, b] })
    );
    expect(rows.filter(r => r.removed)).toEqual([]);
    // deleted through the list, then the generation moves: still not "removed"
    tracker.forget('a');
    const after = tracker.update(
      makeSnapshot({ generation: 3, variables: [b] })
    );
    expect(after.filter(r => r.removed)).toEqual([]);
  });
});

describe('RemovedTracker and a delete', () => {
  const a = makeVariable('a');
  const n = makeVariable('n');

  it('takes a deleted name off the list at once; an answer of the same generation does not bring it back', () => {
    const tracker = new RemovedTracker();
    const before = makeSnapshot({ generation: 5, variables: [a, n] });
    tracker.update(before);
    tracker.forget('n');
    const names = (rows: { variable: { name: string } }[]) =>
      rows.map(r => r.variable.name);
    // the rows at once, from the snapshot that still lists it
    expect(names(tracker.update(before))).toEqual(['a']);
    // a stale answer (asked before the delete, or while the kernel was busy)
    const stale = makeSnapshot({
      generation: 5,
      variables: [a, n],
      stale: true
    });
    expect(names(tracker.update(stale))).toEqual(['a']);
    // the next generation's list: the name is gone, not "removed"
    const after = tracker.update(
      makeSnapshot({ generation: 6, variables: [a] })
    );
    expect(after.map(r => [r.variable.name, r.removed])).toEqual([
      ['a', false]
    ]);
    // bound again later: listed again
    expect(
      names(tracker.update(makeSnapshot({ generation: 7, variables: [a, n] })))
    ).toEqual(['a', 'n']);
  });
});

describe('VariableListModel', () => {
  it('follows the service’s snapshots and keeps widths', () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const model = new VariableListModel({ service, widths: { name: 200 } });
    const widths = jest.fn();
    model.widthsChanged.connect((_, w) => widths(w));
    service.model.setSnapshot(
      makeSnapshot({
        generation: 1,
        variables: [makeVariable('a'), makeVariable('b')]
      })
    );
    service.model.setSnapshot(
      makeSnapshot({ generation: 2, variables: [makeVariable('a')] })
    );
    expect(model.rows.map(r => r.removed)).toEqual([false, true]);
    expect(model.widths.name).toBe(200);
    model.setWidth('type', 5);
    expect(model.widths.type).toBe(40);
    expect(widths).toHaveBeenCalledWith({
      ...DEFAULT_COLUMN_WIDTHS,
      name: 200,
      type: 40
    });
    model.setWidths({ name: 'wide', memory: 9999 });
    expect(model.widths).toEqual({ ...DEFAULT_COLUMN_WIDTHS, memory: 800 });
    expect(widths).toHaveBeenCalledTimes(1);
    model.forget('b');
    expect(model.rows.map(r => r.variable.name)).toEqual(['a']);
    model.dispose();
  });

  it('reads widths from any JSON', () => {
    expect(readWidths(null)).toEqual(DEFAULT_COLUMN_WIDTHS);
    expect(readWidths({ shape: 12.6 }).shape).toBe(40);
    expect(clampWidth(NaN)).toBe(40);
  });
});

describe('copy as code', () => {
  const v = (type: string, preview: string, extra = {}) =>
    makeVariable('x', { type, preview, ...extra });

  it.each([
    ['int', '42', 'x = 42'],
    ['int', '-7', 'x = -7'],
    ['float', '3.5', 'x = 3.5'],
    ['float', '1e-05', 'x = 1e-05'],
    ['bool', 'True', 'x = True'],
    ['NoneType', 'None', 'x = None'],
    ['str', '\'hello "x" \\n\'', 'x = \'hello "x" \\n\''],
    ['list', "[1, 2, 'a']", "x = [1, 2, 'a']"],
    ['dict', "{'a': 1, 'b': [1, 2]}", "x = {'a': 1, 'b': [1, 2]}"],
    ['tuple', '(1,)', 'x = (1,)'],
    ['set', '{1, 2}', 'x = {1, 2}'],
    ['bytes', "b'ab\\x00'", "x = b'ab\\x00'"]
  ])('%s %s', (type, preview, code) => {
    expect(copyAsCode(v(type, preview))).toBe(code);
  });

  it.each([
    ['float', 'nan'],
    ['float', 'inf'],
    ['set', 'set()'],
    ['list', '[0, 1, 2, … 80 more]'],
    ['list', '[<object at 0x1>]'],
    ['list', '[1, 2'],
    ['dict', "{'a': f(1)}"],
    ['DataFrame', '   a\n0  1'],
    ['MyInt', '3'],
    ['str', "f'{x}'"]
  ])('not for %s %s', (type, preview) => {
    expect(copyAsCode(v(type, preview))).toBeNull();
  });

  it('not for cut previews, errors or secrets', () => {
    expect(copyAsCode(v('str', "'abc'", { truncated: true }))).toBeNull();
    expect(copyAsCode(v('str', "'abc'", { error: 'repr raised' }))).toBeNull();
    expect(copyAsCode(v('str', "'sk-1'", { likely_secret: true }))).toBeNull();
    expect(copyAsCode(v('str', "'[masked]'", { masked: true }))).toBeNull();
    expect(isPythonLiteral('')).toBe(false);
    expect(isPythonLiteral('__import__("os")')).toBe(false);
  });
});

describe('masking and errors', () => {
  it('masks previews of likely secrets', () => {
    expect(
      previewText(makeVariable('k', { masked: true, preview: '[masked]' }))
    ).toBe(MASKED_TEXT);
    // an older server that only flags it
    expect(
      previewText(makeVariable('k', { likely_secret: true, preview: "'sk-1'" }))
    ).toBe(MASKED_TEXT);
    expect(previewText(makeVariable('n', { preview: '1' }))).toBe('1');
  });

  it('shows each error once', () => {
    expect(dedupeError('repr timed out; repr timed out')).toBe(
      'repr timed out'
    );
    expect(dedupeError('a; b; a')).toBe('a; b');
    expect(dedupeError('')).toBeNull();
    expect(errorLine('repr timed out', 'repr timed out; len raised')).toBe(
      'repr timed out; len raised'
    );
    expect(errorLine(null, undefined)).toBeNull();
  });
});

describe('isExplorable', () => {
  it.each([
    ['dataframe', 'DataFrame', '   a', true],
    ['series', 'Series', '0 1', true],
    ['array', 'ndarray', '[1 2]', true],
    ['sequence', 'list', "[{'a': 1}, {'a': 2}]", true],
    ['sequence', 'list', '[[1, 2], [3, 4]]', true],
    ['sequence', 'list', '[1, 2, 3]', false],
    ['sequence', 'tuple', '({},)', false],
    ['mapping', 'dict', "{'a': [1]}", false],
    ['number', 'int', '1', false]
  ])('%s %s %s → %s', (kind, type, preview, expected) => {
    expect(isExplorable(makeVariable('v', { kind, type, preview }))).toBe(
      expected
    );
  });
});
