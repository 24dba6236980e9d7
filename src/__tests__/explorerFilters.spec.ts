/**
 * Filters: the tree a draft of the filter bar becomes (conditions, AND/OR, one level
 * of groups, the values each operator takes), the operators offered by family, a
 * filter as text, "Filter to / Exclude this value", and the filter bar itself
 * (several conditions, groups, ranges, lists, the case toggle, inline errors, Clear).
 */
import './canvasStub';

import { Widget } from '@lumino/widgets';

import { familyOf } from '../explorer/dtypes';
import { FilterBar } from '../explorer/filter/bar';
import {
  addToDraft,
  buildFilter,
  draftOf,
  emptyCondition,
  exceptValue,
  IFilterDraft,
  onlyValue
} from '../explorer/filter/draft';
import { opsFor } from '../explorer/filter/ops';
import { filterText } from '../explorer/filter/text';
import { FilterNode } from '../tokens';
import { FakeTable, makeModel, trans } from './explorerFakes';

describe('the filter tree of a draft', () => {
  it('is null without conditions, a bare condition alone, a tree for several', () => {
    expect(buildFilter({ join: 'and', items: [] }, trans).filter).toBeNull();
    const one: IFilterDraft = {
      join: 'and',
      items: [{ ...emptyCondition('price', 'ge'), value: '9990' }]
    };
    expect(buildFilter(one, trans).filter).toEqual({
      column: 'price',
      op: 'ge',
      value: '9990'
    });
    const several: IFilterDraft = {
      join: 'and',
      items: [
        { ...emptyCondition('price', 'between'), value: '10', high: '20' },
        {
          join: 'or',
          conditions: [
            { ...emptyCondition('region', 'in'), values: ['north', 'a,b'] },
            emptyCondition('region', 'isnull')
          ]
        },
        {
          ...emptyCondition('name', 'contains'),
          value: 'Smith',
          matchCase: true
        },
        { join: 'and', conditions: [emptyCondition('ok', 'is_true')] }
      ]
    };
    const { filter, errors } = buildFilter(several, trans);
    expect(errors.size).toBe(0);
    expect(filter).toEqual({
      and: [
        { column: 'price', op: 'between', value: ['10', '20'] },
        {
          or: [
            { column: 'region', op: 'in', value: ['north', 'a,b'] },
            { column: 'region', op: 'isnull' }
          ]
        },
        { column: 'name', op: 'contains', value: 'Smith', case: true },
        // a group of one is that condition
        { column: 'ok', op: 'is_true' }
      ]
    });
    expect(filterText(filter!, trans)).toBe(
      'price between 10 and 20 and (region is one of (north, a,b) or region is missing) and name contains Smith (match case) and ok is true'
    );
    // Any of:
    expect(
      buildFilter({ ...several, join: 'or' }, trans).filter
    ).toHaveProperty('or');
  });

  it('says which conditions miss a value, and sends nothing then', () => {
    const empty = { ...emptyCondition('price', 'lt') };
    const half = { ...emptyCondition('price', 'between'), value: '1' };
    const list = emptyCondition('region', 'not_in');
    const fine = { ...emptyCondition('price', 'gt'), value: '3' };
    const { filter, errors } = buildFilter(
      { join: 'and', items: [empty, half, list, fine] },
      trans
    );
    expect(filter).toBeNull();
    expect([...errors.entries()]).toEqual([
      [empty, 'Enter a value'],
      [half, 'Enter both ends of the range'],
      [list, 'Add at least one value']
    ]);
    const none = buildFilter(
      { join: 'and', items: [emptyCondition('', 'isnull')] },
      trans
    );
    expect([...none.errors.values()]).toEqual(['Choose a column']);
  });

  it('reads a filter back into a draft when it fits one level of groups', () => {
    const filter: FilterNode = {
      or: [
        { column: 'a', op: 'between', value: [1, 2] },
        {
          and: [
            { column: 'b', op: 'not_in', value: ['x', 'y'] },
            { column: 'c', op: 'regex', value: '^a', case: true }
          ]
        }
      ]
    };
    const draft = draftOf(filter)!;
    expect(buildFilter(draft, trans).filter).toEqual({
      or: [
        { column: 'a', op: 'between', value: ['1', '2'] },
        {
          and: [
            { column: 'b', op: 'not_in', value: ['x', 'y'] },
            { column: 'c', op: 'regex', value: '^a', case: true }
          ]
        }
      ]
    });
    expect(
      draftOf({ and: [{ or: [{ and: [{ column: 'a', op: 'isnull' }] }] }] })
    ).toBeNull();
  });

  it('keeps missing values when excluding a value (ne alone is false on them)', () => {
    expect(
      buildFilter(
        { join: 'and', items: [exceptValue('region', 'north')] },
        trans
      ).filter
    ).toEqual({
      or: [
        { column: 'region', op: 'ne', value: 'north' },
        { column: 'region', op: 'isnull' }
      ]
    });
    expect(onlyValue('region', null).op).toBe('isnull');
    expect(exceptValue('region', null)).toEqual(
      emptyCondition('region', 'notnull')
    );
    expect(onlyValue('name', '').op).toBe('empty');
  });

  it('adds to a draft with AND, making an OR draft a group', () => {
    const or: IFilterDraft = {
      join: 'or',
      items: [
        { ...emptyCondition('a', 'eq'), value: '1' },
        { ...emptyCondition('a', 'eq'), value: '2' }
      ]
    };
    const added = addToDraft(or, onlyValue('b', 'x'))!;
    expect(buildFilter(added, trans).filter).toEqual({
      and: [
        {
          or: [
            { column: 'a', op: 'eq', value: '1' },
            { column: 'a', op: 'eq', value: '2' }
          ]
        },
        { column: 'b', op: 'eq', value: 'x' }
      ]
    });
    // An OR of groups cannot take another level.
    expect(
      addToDraft(
        { join: 'or', items: [exceptValue('a', '1'), exceptValue('a', '2')] },
        onlyValue('b', 'x')
      )
    ).toBeNull();
  });

  it('offers the operators of a column family', () => {
    expect(familyOf('float64')).toBe('number');
    expect(familyOf('datetime64[ns]')).toBe('datetime');
    expect(familyOf('bool')).toBe('boolean');
    expect(familyOf('category')).toBe('category');
    expect(familyOf('object')).toBe('string');
    expect(familyOf('String')).toBe('string');
    expect(familyOf('numeric')).toBe('number');
    expect(familyOf(null)).toBe('other');
    expect(opsFor('number')).toEqual(
      expect.arrayContaining(['between', 'not_between', 'in', 'lt', 'isnull'])
    );
    expect(opsFor('number')).not.toContain('contains');
    expect(opsFor('string')[0]).toBe('contains');
    expect(opsFor('string')).toEqual(
      expect.arrayContaining(['regex', 'starts_with', 'empty', 'not_empty'])
    );
    expect(opsFor('boolean')).toEqual(
      expect.arrayContaining(['is_true', 'is_false'])
    );
    expect(opsFor('boolean')).not.toContain('between');
    expect(new Set(opsFor('other')).size).toBe(21);
  });
});

describe('the filter bar', () => {
  async function setup() {
    const table = new FakeTable(1000, 3);
    table.names[2] = 'name';
    const model = makeModel(table);
    await model.load();
    const bar = new FilterBar({
      model,
      trans,
      familyOf: column => (column === 'name' ? 'string' : null)
    });
    Widget.attach(bar, document.body);
    const all = (id: string) =>
      [
        ...bar.node.querySelectorAll(
          `[data-test-id="kernel-state-explorer-${id}"]`
        )
      ] as HTMLElement[];
    const one = <T extends HTMLElement>(id: string, index = 0) =>
      all(id)[index] as T;
    const set = (id: string, value: string, index = 0) => {
      const node = one<HTMLInputElement | HTMLSelectElement>(id, index);
      node.value = value;
      node.dispatchEvent(
        new Event(node instanceof HTMLSelectElement ? 'change' : 'input')
      );
    };
    const submit = async () => {
      bar.node
        .querySelector('form')!
        .dispatchEvent(new Event('submit', { cancelable: true }));
      await model.settled();
      await Promise.resolve();
    };
    return { table, model, bar, all, one, set, submit };
  }

  it('edits several conditions joined by AND or OR, with a group', async () => {
    const { model, bar, all, one, set, submit } = await setup();
    set('filter-op', 'ge');
    set('filter-value', '100');
    one<HTMLButtonElement>('filter-add').click();
    expect(all('filter-condition')).toHaveLength(2);
    set('filter-op', 'lt', 1);
    set('filter-value', '110', 1);
    await submit();
    expect(model.filter).toEqual({
      and: [
        { column: 'c0', op: 'ge', value: '100' },
        { column: 'c0', op: 'lt', value: '110' }
      ]
    });
    expect(model.rowCount('body')).toBe(10);

    set('filter-join', 'or');
    one<HTMLButtonElement>('filter-add-group').click();
    expect(all('filter-group')).toHaveLength(1);
    // The group's two conditions: c0 = 5 or c0 = 7.
    set('filter-op', 'eq', 2);
    set('filter-value', '5', 2);
    set('filter-op', 'eq', 3);
    set('filter-value', '7', 3);
    await submit();
    expect(model.filter).toEqual({
      or: [
        { column: 'c0', op: 'ge', value: '100' },
        { column: 'c0', op: 'lt', value: '110' },
        {
          or: [
            { column: 'c0', op: 'eq', value: '5' },
            { column: 'c0', op: 'eq', value: '7' }
          ]
        }
      ]
    });
    bar.dispose();
  });

  it('gives between two inputs and in a list of values', async () => {
    const { model, bar, all, one, set, submit } = await setup();
    set('filter-op', 'between');
    expect(all('filter-value')).toHaveLength(1);
    expect(all('filter-high')).toHaveLength(1);
    set('filter-value', '10');
    set('filter-high', '19');
    await submit();
    expect(model.filter).toEqual({
      column: 'c0',
      op: 'between',
      value: ['10', '19']
    });
    expect(model.rowCount('body')).toBe(10);

    set('filter-op', 'in');
    expect(all('filter-value')).toHaveLength(0);
    const input = one<HTMLInputElement>('filter-values-input');
    input.value = '3';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    const again = one<HTMLInputElement>('filter-values-input');
    again.value = '4';
    again.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    expect(one('filter-values').querySelectorAll('button')).toHaveLength(2);
    await submit();
    expect(model.filter).toEqual({ column: 'c0', op: 'in', value: ['3', '4'] });
    expect(model.rowCount('body')).toBe(2);
    bar.dispose();
  });

  it('offers text operators with a case toggle for a text column', async () => {
    const { bar, one, set, all } = await setup();
    set('filter-column', 'name');
    set('filter-op', 'contains');
    const ops = [...one<HTMLSelectElement>('filter-op').options].map(
      option => option.value
    );
    expect(ops[0]).toBe('contains');
    expect(ops).not.toContain('between');
    expect(all('filter-case')).toHaveLength(1);
    const toggle = one<HTMLButtonElement>('filter-case');
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    toggle.click();
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(bar.draft.items[0]).toMatchObject({ matchCase: true });
    set('filter-column', 'c0');
    expect(all('filter-case')).toHaveLength(0);
    bar.dispose();
  });

  it('shows what it cannot send beside the condition, and sends nothing', async () => {
    const { table, bar, all, one, set, submit } = await setup();
    set('filter-op', 'gt');
    one<HTMLButtonElement>('filter-add').click();
    set('filter-op', 'lt', 1);
    set('filter-value', '5', 1);
    const before = table.queries.length;
    await submit();
    expect(table.queries.length).toBe(before);
    expect(all('filter-condition-error').map(node => node.textContent)).toEqual(
      ['Enter a value']
    );
    expect(
      one('filter-condition').querySelector('[aria-invalid="true"]')
    ).not.toBeNull();
    bar.dispose();
  });

  it("shows the server's refusal inline on the condition it names", async () => {
    const { model, bar, all, one, set, submit } = await setup();
    set('filter-op', 'gt');
    set('filter-value', 'cheap');
    await submit();
    expect(model.filter).toBeNull();
    expect(one('filter-error').textContent).toBe(
      "The kernel refused this filter: filter gt: 'cheap' is not a number for column c0 (int64)"
    );
    expect(all('filter-condition-error')).toHaveLength(1);
    // The draft stays, to be corrected.
    expect(one<HTMLInputElement>('filter-value').value).toBe('cheap');
    set('filter-value', '990');
    await submit();
    expect(model.filterError).toBeNull();
    expect(one('filter-error').textContent).toBe('');
    expect(model.rowCount('body')).toBe(9);
    bar.dispose();
  });

  it('Clear shows every row and leaves no old condition in the inputs', async () => {
    const { model, bar, all, one, set, submit } = await setup();
    one<HTMLButtonElement>('filter-add').click();
    one<HTMLButtonElement>('filter-remove', 1).click();
    set('filter-op', 'ge');
    set('filter-value', '9990');
    await submit();
    expect(model.rowCount('body')).toBe(0);
    one<HTMLButtonElement>('filter-clear').click();
    await model.settled();
    expect(model.filter).toBeNull();
    expect(model.rowCount('body')).toBe(1000);
    expect(all('filter-condition')).toHaveLength(1);
    expect(one<HTMLInputElement>('filter-value').value).toBe('');
    expect(one<HTMLSelectElement>('filter-op').value).toBe('eq');
    // A new filter after the empty one is sent.
    set('filter-value', '3');
    await submit();
    expect(model.rowCount('body')).toBe(1);
    bar.dispose();
  });

  it('adds "Filter to this value" to the conditions and applies', async () => {
    const { model, bar, all } = await setup();
    await bar.add(onlyValue('c0', '42'));
    expect(model.filter).toEqual({ column: 'c0', op: 'eq', value: '42' });
    await bar.add(exceptValue('c0', '42'));
    expect(model.filter).toEqual({
      and: [
        { column: 'c0', op: 'eq', value: '42' },
        {
          or: [
            { column: 'c0', op: 'ne', value: '42' },
            { column: 'c0', op: 'isnull' }
          ]
        }
      ]
    });
    expect(model.rowCount('body')).toBe(0);
    expect(all('filter-group')).toHaveLength(1);
    bar.dispose();
  });
});
