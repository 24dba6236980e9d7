/**
 * A filter as text (the size's tooltip): `price ≥ 9990 and (region = north or region
 * is missing)`; and the column names a server message mentions.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { FilterNode, FilterScalar } from '../../tokens';
import { isTree, treeParts } from './draft';
import { opLabel, VALUE_SHAPE } from './ops';

/**
 * A filter as text: `price ≥ 9990 and (region = north or region is missing)`.
 */
export function filterText(
  filter: FilterNode,
  trans: TranslationBundle
): string {
  if (isTree(filter)) {
    const [how, nodes] = treeParts(filter);
    const word = how === 'and' ? trans.__('and') : trans.__('or');
    return nodes
      .map(node => {
        const text = filterText(node, trans);
        return isTree(node) && treeParts(node)[1].length > 1
          ? `(${text})`
          : text;
      })
      .join(` ${word} `);
  }
  const label = opLabel(filter.op, trans);
  const value = filter.value;
  const column = String(filter.column);
  switch (VALUE_SHAPE[filter.op]) {
    case 'none':
      return trans.__('%1 %2', column, label);
    case 'two': {
      const [low, high] = Array.isArray(value) ? value : [value, ''];
      return trans.__(
        '%1 %2 %3 and %4',
        column,
        label,
        scalarText(low),
        scalarText(high)
      );
    }
    case 'list':
      return trans.__(
        '%1 %2 (%3)',
        column,
        label,
        (Array.isArray(value) ? value : [value]).map(scalarText).join(', ')
      );
    default: {
      const text = scalarText(Array.isArray(value) ? value[0] : value);
      return filter.case
        ? trans.__('%1 %2 %3 (match case)', column, label, text)
        : trans.__('%1 %2 %3', column, label, text);
    }
  }
}

function scalarText(value: FilterScalar | undefined | null): string {
  return value === undefined || value === null ? '' : String(value);
}

/**
 * The column names a server message mentions (to mark the conditions it is about).
 */
export function columnsNamedIn(message: string, columns: string[]): string[] {
  return columns.filter(column => column !== '' && message.includes(column));
}
