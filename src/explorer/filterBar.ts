/**
 * The explorer's filter bar: one condition on one column (`price > 10`, `name contains
 * smith`, `date is null`), computed in the kernel. Column names are option text, never
 * markup.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { IRowsFilter } from '../tokens';
import { RowsDataModel } from './model';

/**
 * The operators of the rows route, with their labels.
 */
export function filterOps(trans: TranslationBundle): [string, string][] {
  return [
    ['contains', trans.__('contains')],
    ['eq', '='],
    ['ne', '≠'],
    ['lt', '<'],
    ['le', '≤'],
    ['gt', '>'],
    ['ge', '≥'],
    ['isnull', trans.__('is missing')],
    ['notnull', trans.__('is not missing')]
  ];
}

const NO_VALUE = new Set(['isnull', 'notnull']);

/**
 * Columns offered in the list (a table may have many more; their names arrive with the
 * blocks that hold them).
 */
const MAX_LISTED_COLUMNS = 500;

/**
 * `price > 10`, `price is missing`.
 */
export function filterText(
  filter: IRowsFilter,
  trans: TranslationBundle
): string {
  const label =
    filterOps(trans).find(([op]) => op === filter.op)?.[1] ?? filter.op;
  return NO_VALUE.has(filter.op)
    ? trans.__('%1 %2', filter.column, label)
    : trans.__('%1 %2 %3', filter.column, label, filter.value ?? '');
}

export class FilterBar extends Widget {
  constructor(
    private readonly _model: RowsDataModel,
    trans: TranslationBundle
  ) {
    super();
    this.addClass('jp-KernelState-explorerFilter');
    const form = document.createElement('form');
    form.setAttribute('role', 'search');
    form.setAttribute('aria-label', trans.__('Filter rows'));

    const label = document.createElement('span');
    label.textContent = trans.__('Filter');
    this._column.setAttribute('aria-label', trans.__('Column'));
    this._column.dataset.testId = 'kernel-state-explorer-filter-column';
    this._op.setAttribute('aria-label', trans.__('Condition'));
    this._op.dataset.testId = 'kernel-state-explorer-filter-op';
    for (const [op, text] of filterOps(trans)) {
      const option = document.createElement('option');
      option.value = op;
      option.textContent = text;
      this._op.append(option);
    }
    this._value.type = 'text';
    this._value.placeholder = trans.__('value');
    this._value.maxLength = 1000;
    this._value.setAttribute('aria-label', trans.__('Value'));
    this._value.dataset.testId = 'kernel-state-explorer-filter-value';
    const apply = document.createElement('button');
    apply.type = 'submit';
    apply.className = 'jp-Button jp-mod-styled jp-mod-accept';
    apply.textContent = trans.__('Apply');
    apply.dataset.testId = 'kernel-state-explorer-filter-apply';
    this._clear.type = 'button';
    this._clear.className = 'jp-Button jp-mod-styled jp-mod-reject';
    this._clear.textContent = trans.__('Clear');
    this._clear.dataset.testId = 'kernel-state-explorer-filter-clear';
    form.append(label, this._column, this._op, this._value, apply, this._clear);
    this.node.append(form);

    form.addEventListener('submit', event => {
      event.preventDefault();
      this._apply();
    });
    this._clear.addEventListener(
      'click',
      () => void this._model.setFilter(null)
    );
    this._op.addEventListener('change', () => this._syncValue());
    this._model.changed.connect(this._syncColumns, this);
    this._model.stateChanged.connect(this._syncState, this);
    this._syncColumns();
    this._syncState();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.changed.disconnect(this._syncColumns, this);
    this._model.stateChanged.disconnect(this._syncState, this);
    super.dispose();
  }

  private _apply(): void {
    const column = this._model.column(Number(this._column.value));
    if (!column) {
      return;
    }
    const op = this._op.value;
    const filter: IRowsFilter = NO_VALUE.has(op)
      ? { column: column.name, op }
      : { column: column.name, op, value: this._value.value };
    void this._model.setFilter(filter);
  }

  /**
   * List the columns known so far (by position: names may repeat).
   */
  private _syncColumns(): void {
    const count = Math.min(this._model.columnCount('body'), MAX_LISTED_COLUMNS);
    if (count === this._listed && count > 0) {
      return;
    }
    const selected = this._column.value;
    const options: HTMLOptionElement[] = [];
    for (let position = 0; position < count; position++) {
      const column = this._model.column(position);
      if (!column) {
        continue;
      }
      const option = document.createElement('option');
      option.value = String(position);
      option.textContent = column.name;
      options.push(option);
    }
    this._column.replaceChildren(...options);
    if (options.some(option => option.value === selected)) {
      this._column.value = selected;
    }
    // Columns whose names are not known yet are listed once their block arrives.
    this._listed = options.length === count ? count : -1;
  }

  private _syncState(): void {
    const filter = this._model.filter;
    this._clear.style.display = filter ? '' : 'none';
    this.node.classList.toggle('jp-mod-active', filter !== null);
    this._syncValue();
  }

  private _syncValue(): void {
    this._value.disabled = NO_VALUE.has(this._op.value);
  }

  private _column = document.createElement('select');
  private _op = document.createElement('select');
  private _value = document.createElement('input');
  private _clear = document.createElement('button');
  private _listed = -1;
}
