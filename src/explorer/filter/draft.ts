/**
 * The filter as the filter bar edits it: a draft of conditions joined by AND or OR,
 * with one level of groups, and the tree it becomes (`FilterNode`, sent as JSON to
 * `rows`, `profile` and `code`), read back from a tree, added to ("Filter to this
 * value", "Exclude this value").
 *
 * Missing values match only `isnull`: every other condition, a negated one too, is
 * false on them (SQL's rule, applied by the kernel). So "Exclude this value" keeps
 * the missing values explicitly: `(column ≠ v or column is missing)`.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { FilterNode, FilterOp, IFilterCondition } from '../../tokens';
import { TEXT_OPS, VALUE_SHAPE } from './ops';

/**
 * Conditions in one filter, and items of an `in` list (the contract's bounds).
 */
export const MAX_CONDITIONS = 50;
export const MAX_LIST_VALUES = 1000;

export type Join = 'and' | 'or';

/**
 * One condition as the filter bar edits it: the inputs' text.
 */
export interface IConditionDraft {
  column: string;
  op: FilterOp;
  /**
   * The value, or the low end of a range.
   */
  value: string;
  /**
   * The high end of a range.
   */
  high: string;
  /**
   * The items of `in` / `not_in`.
   */
  values: string[];
  /**
   * Text operators: match case.
   */
  matchCase: boolean;
}

/**
 * Conditions in parentheses, joined by their own AND or OR.
 */
export interface IGroupDraft {
  join: Join;
  conditions: IConditionDraft[];
}

export type DraftItem = IConditionDraft | IGroupDraft;

/**
 * What the filter bar edits: conditions and groups joined by AND or OR.
 */
export interface IFilterDraft {
  join: Join;
  items: DraftItem[];
}

/**
 * A condition nothing was entered in: no column, or an operator taking a value and
 * none given (the blank row the bar starts with).
 */
export function isBlank(condition: IConditionDraft): boolean {
  return (
    condition.column === '' ||
    (VALUE_SHAPE[condition.op] !== 'none' &&
      condition.value === '' &&
      condition.high === '' &&
      condition.values.length === 0)
  );
}

export function isGroup(item: DraftItem): item is IGroupDraft {
  return (item as IGroupDraft).conditions !== undefined;
}

export function emptyCondition(
  column = '',
  op: FilterOp = 'eq'
): IConditionDraft {
  return { column, op, value: '', high: '', values: [], matchCase: false };
}

/**
 * Every condition of a draft, in order.
 */
export function conditionsOf(draft: IFilterDraft): IConditionDraft[] {
  return draft.items.flatMap(item =>
    isGroup(item) ? item.conditions : [item]
  );
}

/**
 * Why a draft's condition cannot be sent, keyed by the condition.
 */
export type DraftErrors = Map<IConditionDraft, string>;

/**
 * The filter a draft means, or null when it has no condition; `errors` says which
 * conditions miss their column or value (nothing is sent then).
 */
export function buildFilter(
  draft: IFilterDraft,
  trans: TranslationBundle
): { filter: FilterNode | null; errors: DraftErrors } {
  const errors: DraftErrors = new Map();
  const nodes: FilterNode[] = [];
  for (const item of draft.items) {
    if (isGroup(item)) {
      const members = item.conditions
        .map(condition => toCondition(condition, errors, trans))
        .filter((node): node is IFilterCondition => node !== null);
      if (members.length === 1) {
        nodes.push(members[0]);
      } else if (members.length > 1) {
        nodes.push(join(item.join, members));
      }
    } else {
      const node = toCondition(item, errors, trans);
      if (node) {
        nodes.push(node);
      }
    }
  }
  if (conditionsOf(draft).length > MAX_CONDITIONS) {
    const last = conditionsOf(draft)[MAX_CONDITIONS];
    errors.set(
      last,
      trans.__('At most %1 conditions in one filter', MAX_CONDITIONS)
    );
  }
  if (errors.size > 0 || nodes.length === 0) {
    return { filter: null, errors };
  }
  return {
    filter: nodes.length === 1 ? nodes[0] : join(draft.join, nodes),
    errors
  };
}

function join(how: Join, nodes: FilterNode[]): FilterNode {
  return how === 'and' ? { and: nodes } : { or: nodes };
}

function toCondition(
  draft: IConditionDraft,
  errors: DraftErrors,
  trans: TranslationBundle
): IFilterCondition | null {
  if (!draft.column) {
    errors.set(draft, trans.__('Choose a column'));
    return null;
  }
  const condition: IFilterCondition = { column: draft.column, op: draft.op };
  switch (VALUE_SHAPE[draft.op]) {
    case 'one':
      if (draft.value === '') {
        errors.set(draft, trans.__('Enter a value'));
        return null;
      }
      condition.value = draft.value;
      break;
    case 'two':
      if (draft.value === '' || draft.high === '') {
        errors.set(draft, trans.__('Enter both ends of the range'));
        return null;
      }
      condition.value = [draft.value, draft.high];
      break;
    case 'list':
      if (draft.values.length === 0) {
        errors.set(draft, trans.__('Add at least one value'));
        return null;
      }
      if (draft.values.length > MAX_LIST_VALUES) {
        errors.set(
          draft,
          trans.__('At most %1 values in a list', MAX_LIST_VALUES)
        );
        return null;
      }
      condition.value = [...draft.values];
      break;
    default:
      break;
  }
  if (TEXT_OPS.has(draft.op)) {
    condition.case = draft.matchCase;
  }
  return condition;
}

/**
 * The draft of a filter, when it fits the bar (conditions, groups one level deep),
 * else null.
 */
export function draftOf(filter: FilterNode | null): IFilterDraft | null {
  if (filter === null) {
    return { join: 'and', items: [] };
  }
  if (!isTree(filter)) {
    return { join: 'and', items: [conditionDraft(filter)] };
  }
  const [how, nodes] = treeParts(filter);
  const items: DraftItem[] = [];
  for (const node of nodes) {
    if (!isTree(node)) {
      items.push(conditionDraft(node));
      continue;
    }
    const [inner, members] = treeParts(node);
    if (members.some(isTree)) {
      return null;
    }
    items.push({
      join: inner,
      conditions: (members as IFilterCondition[]).map(conditionDraft)
    });
  }
  return { join: how, items };
}

function conditionDraft(condition: IFilterCondition): IConditionDraft {
  const draft = emptyCondition(String(condition.column), condition.op);
  const value = condition.value;
  if (Array.isArray(value)) {
    if (VALUE_SHAPE[condition.op] === 'two') {
      draft.value = String(value[0] ?? '');
      draft.high = String(value[1] ?? '');
    } else {
      draft.values = value.map(String);
    }
  } else if (value !== undefined && value !== null) {
    draft.value = String(value);
  }
  draft.matchCase = condition.case === true;
  return draft;
}

export function isTree(
  node: FilterNode
): node is { and: FilterNode[] } | { or: FilterNode[] } {
  return 'and' in node || 'or' in node;
}

export function treeParts(
  node: { and: FilterNode[] } | { or: FilterNode[] }
): [Join, FilterNode[]] {
  return 'and' in node ? ['and', node.and] : ['or', node.or];
}

/**
 * The draft with a filter added to it with AND: appended when the draft joins by
 * AND, else the draft becomes a group beside it. Null when that would nest deeper
 * than the bar edits.
 */
export function addToDraft(
  draft: IFilterDraft,
  added: DraftItem
): IFilterDraft | null {
  const items = draft.items.filter(item => isGroup(item) || !isBlank(item));
  if (draft.join === 'and' || items.length <= 1) {
    return { join: 'and', items: [...items, added] };
  }
  // Several items joined by OR: they become one group, unless one is a group.
  if (items.some(isGroup)) {
    return null;
  }
  return {
    join: 'and',
    items: [{ join: 'or', conditions: items as IConditionDraft[] }, added]
  };
}

/**
 * "Filter to this value": the rows where a column holds a cell's value (its text,
 * read by the kernel as the column's type), or is missing for a missing cell.
 */
export function onlyValue(
  column: string,
  value: string | null
): IConditionDraft {
  if (value === null) {
    return emptyCondition(column, 'isnull');
  }
  if (value === '') {
    return emptyCondition(column, 'empty');
  }
  return { ...emptyCondition(column, 'eq'), value };
}

/**
 * "Exclude this value": the rows where a column holds another value or none (the
 * missing values kept: `ne` alone is false on them).
 */
export function exceptValue(column: string, value: string | null): DraftItem {
  if (value === null) {
    return emptyCondition(column, 'notnull');
  }
  const other =
    value === ''
      ? emptyCondition(column, 'not_empty')
      : { ...emptyCondition(column, 'ne'), value };
  return {
    join: 'or',
    conditions: [other, emptyCondition(column, 'isnull')]
  };
}
