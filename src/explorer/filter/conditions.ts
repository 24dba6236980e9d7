/**
 * The line of one condition in the filter bar: its column (the names known, read
 * all at once when the list is opened), its operator (those of the column's family),
 * the inputs the operator takes — none, one value, two (a range), a list of chips —
 * a case toggle for text operators, a remove button, and its error. Edits change the
 * condition in place and tell the bar, which renders the draft again.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ColumnFamily, FilterOp } from '../../tokens';
import { RowsDataModel } from '../data/model';
import { button, element, option } from '../dom';
import { IConditionDraft, MAX_LIST_VALUES } from './draft';
import { opLabel, opsFor, TEXT_OPS, VALUE_SHAPE } from './ops';

/**
 * Columns offered in a column list (a table may have many more; their names arrive
 * with the windows that hold them, or all at once when a list is opened).
 */
const MAX_LISTED_COLUMNS = 1000;

export class ConditionEditor {
  constructor(options: ConditionEditor.IOptions) {
    this._model = options.model;
    this._trans = options.trans;
    this._family = options.family;
    this._render = options.render;
    this._edited = options.edited;
  }

  /**
   * The line of a condition (`key` names its inputs to keep the focus across
   * renders), marked with `error` when there is one; and its column select.
   */
  line(
    condition: IConditionDraft,
    key: string,
    error: string | null,
    onRemove: () => void
  ): { node: HTMLElement; column: HTMLSelectElement } {
    const trans = this._trans;
    const node = element('div', {
      className: 'jp-KernelState-explorerFilterCondition',
      testId: 'kernel-state-explorer-filter-condition'
    });

    const column = element('select', {
      label: trans.__('Column'),
      testId: 'kernel-state-explorer-filter-column'
    });
    column.dataset.focusKey = `${key}.column`;
    this.fillColumns(column, condition.column);
    column.addEventListener('focus', () => {
      const info = this._model.info;
      if (info && this._model.knownColumns().length < info.columnsTotal) {
        void this._model.loadNames();
      }
    });
    column.addEventListener('change', () => {
      condition.column = column.value;
      const ops = opsFor(this._family(condition.column));
      if (!ops.includes(condition.op)) {
        condition.op = ops[0];
      }
      this._render();
    });

    const op = element('select', {
      label: trans.__('Condition'),
      testId: 'kernel-state-explorer-filter-op'
    });
    op.dataset.focusKey = `${key}.op`;
    const ops = opsFor(this._family(condition.column));
    if (!ops.includes(condition.op)) {
      ops.push(condition.op); // kept as set (e.g. by "Filter to this value")
    }
    op.append(...ops.map(name => option(name, opLabel(name, trans))));
    op.value = condition.op;
    op.addEventListener('change', () => {
      condition.op = op.value as FilterOp;
      this._edited(condition);
    });
    node.append(column, op, ...this._valueNodes(condition, key));

    if (TEXT_OPS.has(condition.op)) {
      const toggle = labelledButton(
        trans.__('Aa'),
        'kernel-state-explorer-filter-case',
        trans.__('Match case')
      );
      toggle.classList.add('jp-KernelState-explorerFilterCase');
      toggle.setAttribute('aria-pressed', String(condition.matchCase));
      toggle.dataset.focusKey = `${key}.case`;
      toggle.addEventListener('click', () => {
        condition.matchCase = !condition.matchCase;
        toggle.setAttribute('aria-pressed', String(condition.matchCase));
      });
      node.append(toggle);
    }
    const remove = labelledButton(
      '×',
      'kernel-state-explorer-filter-remove',
      trans.__('Remove the condition')
    );
    remove.addEventListener('click', onRemove);
    node.append(remove);
    if (error) {
      node.classList.add('jp-mod-invalid');
      node.append(
        element('span', {
          className: 'jp-KernelState-explorerFilterConditionError',
          testId: 'kernel-state-explorer-filter-condition-error',
          text: error
        })
      );
      for (const input of node.querySelectorAll('input, select')) {
        input.setAttribute('aria-invalid', 'true');
      }
    }
    return { node, column };
  }

  /**
   * Offer the known column names (each once: a repeated name filters as its first
   * column), `selected` selected.
   */
  fillColumns(select: HTMLSelectElement, selected: string): void {
    const options: HTMLOptionElement[] = [];
    const seen = new Set<string>();
    for (const column of this._model.knownColumns()) {
      if (options.length >= MAX_LISTED_COLUMNS) {
        break;
      }
      if (seen.has(column.name)) {
        continue; // a repeated name filters as its first column
      }
      seen.add(column.name);
      options.push(option(column.name, column.name));
    }
    if (selected && !seen.has(selected)) {
      options.push(option(selected, selected));
    }
    if (!selected) {
      const none = option('', this._trans.__('Column…'));
      options.unshift(none);
    }
    select.replaceChildren(...options);
    select.value = selected;
  }

  private _valueNodes(condition: IConditionDraft, key: string): HTMLElement[] {
    const trans = this._trans;
    const family = this._family(condition.column);
    const input = (
      field: 'value' | 'high',
      label: string,
      testId: string
    ): HTMLInputElement => {
      const node = element('input', { label, testId });
      node.type = 'text';
      node.maxLength = 1000;
      node.value = condition[field];
      node.placeholder = placeholder(family, trans);
      node.dataset.focusKey = `${key}.${field}`;
      if (family === 'number') {
        node.inputMode = 'decimal';
      }
      node.addEventListener('input', () => {
        condition[field] = node.value;
      });
      return node;
    };
    switch (VALUE_SHAPE[condition.op]) {
      case 'one':
        return [
          input(
            'value',
            trans.__('Value'),
            'kernel-state-explorer-filter-value'
          )
        ];
      case 'two':
        return [
          input(
            'value',
            trans.__('From (included)'),
            'kernel-state-explorer-filter-value'
          ),
          element('span', {
            className: 'jp-KernelState-explorerFilterJoinWord',
            text: trans.__('and')
          }),
          input(
            'high',
            trans.__('To (included)'),
            'kernel-state-explorer-filter-high'
          )
        ];
      case 'list':
        return [this._listNode(condition, key)];
      default:
        return [];
    }
  }

  /**
   * The values of `in` / `not_in` as chips: Enter (or a paste of lines) adds, a
   * chip's button removes; Enter on an empty input applies the filter.
   */
  private _listNode(condition: IConditionDraft, key: string): HTMLElement {
    const trans = this._trans;
    const node = element('div', {
      className: 'jp-KernelState-explorerFilterList',
      role: 'group',
      label: trans.__('Values'),
      testId: 'kernel-state-explorer-filter-values'
    });
    condition.values.forEach((value, index) => {
      const chip = element('button', {
        className: 'jp-KernelState-explorerFilterChip',
        text: `${value} ×`,
        title: trans.__('Remove %1', value),
        label: trans.__('Remove %1', value)
      });
      chip.type = 'button';
      chip.dataset.focusKey = `${key}.chip`;
      chip.addEventListener('click', () => {
        condition.values.splice(index, 1);
        this._render();
      });
      node.append(chip);
    });
    const input = element('input', {
      label: trans.__('Add a value'),
      testId: 'kernel-state-explorer-filter-values-input'
    });
    input.type = 'text';
    input.maxLength = 1000;
    input.placeholder = trans.__('value, Enter');
    input.dataset.focusKey = `${key}.values`;
    const addValues = (values: string[]) => {
      for (const value of values) {
        if (
          value !== '' &&
          !condition.values.includes(value) &&
          condition.values.length < MAX_LIST_VALUES
        ) {
          condition.values.push(value);
        }
      }
      this._edited(condition);
    };
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && input.value !== '') {
        event.preventDefault();
        addValues([input.value]);
      } else if (
        event.key === 'Backspace' &&
        input.value === '' &&
        condition.values.length > 0
      ) {
        condition.values.pop();
        this._render();
      }
    });
    input.addEventListener('paste', event => {
      const text = event.clipboardData?.getData('text') ?? '';
      if (/[\n\t]/.test(text)) {
        event.preventDefault();
        addValues(text.split(/[\r\n\t]+/).map(value => value.trim()));
      }
    });
    // A value typed and left is kept too.
    input.addEventListener('change', () => {
      if (input.value !== '') {
        addValues([input.value]);
      }
    });
    node.append(input);
    return node;
  }

  private _model: RowsDataModel;
  private _trans: TranslationBundle;
  private _family: (column: string) => ColumnFamily;
  private _render: () => void;
  private _edited: (condition: IConditionDraft) => void;
}

export namespace ConditionEditor {
  export interface IOptions {
    model: RowsDataModel;
    trans: TranslationBundle;
    /**
     * The family of a column (its operators).
     */
    family: (column: string) => ColumnFamily;
    /**
     * The draft changed: render it again.
     */
    render: () => void;
    /**
     * A condition's operator or values changed: forget its error, render again.
     */
    edited: (condition: IConditionDraft) => void;
  }
}

/**
 * A button of the filter bar: its title is its accessible name (the text is a
 * glyph: `×`, `Aa`, `+`).
 */
export function labelledButton(
  text: string,
  testId: string,
  title: string
): HTMLButtonElement {
  return button(text, testId, { title, label: title });
}

function placeholder(family: ColumnFamily, trans: TranslationBundle): string {
  switch (family) {
    case 'number':
      return trans.__('number');
    case 'datetime':
      return trans.__('YYYY-MM-DD');
    case 'boolean':
      return trans.__('true or false');
    default:
      return trans.__('value');
  }
}
