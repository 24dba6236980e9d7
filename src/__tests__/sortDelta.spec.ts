/**
 * Deltas merged into lists sorted with a direction (`name:desc`, `memory`, …): kept
 * only when the merge is exact, else null (the client asks for a page).
 */
import { applyDelta, canMerge } from '../delta';
import { makeSnapshot, makeVariable } from './helpers';

describe('applyDelta with sort directions', () => {
  const held = (sort: string) =>
    makeSnapshot({
      generation: 1,
      variables:
        sort === 'name:desc'
          ? [makeVariable('c'), makeVariable('b'), makeVariable('a')]
          : [
              makeVariable('a', { memory: 300 }),
              makeVariable('b', { memory: 200 }),
              makeVariable('c', { memory: 100 })
            ]
    });

  it('keeps a name:desc list when an entry changed in place', () => {
    const reply = makeSnapshot({
      generation: 2,
      delta: true,
      total: 3,
      variables: [makeVariable('b', { change: 'modified', preview: '2' })]
    });
    const merged = applyDelta(held('name:desc'), reply, {
      limit: 100,
      sort: 'name:desc'
    });
    expect(merged?.variables.map(v => v.name)).toEqual(['c', 'b', 'a']);
    expect(merged?.variables[1].preview).toBe('2');
    expect(canMerge(held('name:desc'), { limit: 100, sort: 'name:desc' })).toBe(
      true
    );
  });

  it('gives up on a new entry in a reversed list', () => {
    const reply = makeSnapshot({
      generation: 2,
      delta: true,
      total: 4,
      variables: [makeVariable('bb', { change: 'new' })]
    });
    expect(
      applyDelta(held('name:desc'), reply, { limit: 100, sort: 'name:desc' })
    ).toBeNull();
  });

  it('gives up when the memory an order depends on moved', () => {
    const reply = makeSnapshot({
      generation: 2,
      delta: true,
      total: 3,
      variables: [makeVariable('c', { change: 'modified', memory: 999 })]
    });
    for (const sort of ['memory', 'memory:asc'] as const) {
      expect(applyDelta(held(sort), reply, { limit: 100, sort })).toBeNull();
    }
    const same = makeSnapshot({
      generation: 2,
      delta: true,
      total: 3,
      variables: [makeVariable('c', { change: 'modified', memory: 100 })]
    });
    expect(
      applyDelta(held('memory'), same, {
        limit: 100,
        sort: 'memory'
      })?.variables.map(v => v.name)
    ).toEqual(['a', 'b', 'c']);
  });

  it('merges name:asc like name', () => {
    const list = makeSnapshot({
      generation: 1,
      variables: [makeVariable('a'), makeVariable('c')]
    });
    const reply = makeSnapshot({
      generation: 2,
      delta: true,
      total: 3,
      variables: [makeVariable('b', { change: 'new' })]
    });
    expect(
      applyDelta(list, reply, { limit: 100, sort: 'name:asc' })?.variables.map(
        v => v.name
      )
    ).toEqual(['a', 'b', 'c']);
  });
});
