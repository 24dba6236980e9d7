/**
 * The filter's operators (the contract's): the value each takes, those that match
 * case, those offered for a column's family (the most used first), and each as the
 * filter bar shows it.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ColumnFamily, FilterOp } from '../../tokens';

/**
 * What value an operator takes: none, one, two (a range) or a list.
 */
export type ValueShape = 'none' | 'one' | 'two' | 'list';

export const VALUE_SHAPE: Record<FilterOp, ValueShape> = {
  eq: 'one',
  ne: 'one',
  lt: 'one',
  le: 'one',
  gt: 'one',
  ge: 'one',
  between: 'two',
  not_between: 'two',
  in: 'list',
  not_in: 'list',
  contains: 'one',
  not_contains: 'one',
  starts_with: 'one',
  ends_with: 'one',
  regex: 'one',
  isnull: 'none',
  notnull: 'none',
  empty: 'none',
  not_empty: 'none',
  is_true: 'none',
  is_false: 'none'
};

/**
 * The operators on text that match case or not (`case`).
 */
export const TEXT_OPS: ReadonlySet<FilterOp> = new Set<FilterOp>([
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'regex'
]);

const COMPARE: FilterOp[] = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'];
const RANGE: FilterOp[] = ['between', 'not_between'];
const LIST: FilterOp[] = ['in', 'not_in'];
const TEXT: FilterOp[] = [
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'regex'
];
const MISSING: FilterOp[] = ['isnull', 'notnull'];
const EMPTY: FilterOp[] = ['empty', 'not_empty'];
const TRUTH: FilterOp[] = ['is_true', 'is_false'];

/**
 * The operators offered for a column of a family, the most used first.
 */
export function opsFor(family: ColumnFamily): FilterOp[] {
  switch (family) {
    case 'number':
    case 'datetime':
      return [...COMPARE, ...RANGE, ...LIST, ...MISSING];
    case 'string':
      return [...TEXT, 'eq', 'ne', ...LIST, ...EMPTY, ...MISSING];
    case 'category':
      return ['eq', 'ne', ...LIST, ...TEXT, ...MISSING];
    case 'boolean':
      return [...TRUTH, 'eq', 'ne', ...MISSING];
    default:
      return [
        ...COMPARE,
        ...RANGE,
        ...LIST,
        ...TEXT,
        ...EMPTY,
        ...TRUTH,
        ...MISSING
      ];
  }
}

/**
 * An operator as the filter bar shows it.
 */
export function opLabel(op: FilterOp, trans: TranslationBundle): string {
  switch (op) {
    case 'eq':
      return '=';
    case 'ne':
      return '≠';
    case 'lt':
      return '<';
    case 'le':
      return '≤';
    case 'gt':
      return '>';
    case 'ge':
      return '≥';
    case 'between':
      return trans.__('between');
    case 'not_between':
      return trans.__('not between');
    case 'in':
      return trans.__('is one of');
    case 'not_in':
      return trans.__('is none of');
    case 'contains':
      return trans.__('contains');
    case 'not_contains':
      return trans.__('does not contain');
    case 'starts_with':
      return trans.__('starts with');
    case 'ends_with':
      return trans.__('ends with');
    case 'regex':
      return trans.__('matches regex');
    case 'isnull':
      return trans.__('is missing');
    case 'notnull':
      return trans.__('is not missing');
    case 'empty':
      return trans.__('is empty');
    case 'not_empty':
      return trans.__('is not empty');
    case 'is_true':
      return trans.__('is true');
    case 'is_false':
      return trans.__('is false');
  }
}
