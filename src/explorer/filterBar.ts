/**
 * The explorer's filter bar: conditions joined by AND or OR, with one level of groups
 * (`price ≥ 10 and (region = north or region is missing)`), computed in the kernel.
 * Each condition offers the operators of its column's family, with the inputs its
 * operator takes: none, one value, two (a range), a list (`in`), and a case toggle for
 * text operators. What the bar cannot send (a missing value) and what the server
 * refuses (its message) are shown inline. Column names are option text, never markup.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { ColumnFamily, FilterOp } from '../tokens';
import {
  addToDraft,
  buildFilter,
  columnsNamedIn,
  conditionsOf,
  DraftErrors,
  DraftItem,
  draftOf,
  emptyCondition,
  IConditionDraft,
  IFilterDraft,
  IGroupDraft,
  isBlank,
  isGroup,
  Join,
  MAX_CONDITIONS,
  MAX_LIST_VALUES,
  opLabel,
  opsFor,
  TEXT_OPS,
  VALUE_SHAPE
} from './filters';
import { RowsDataModel } from './model';
import { familyOf } from './query';

/**
 * Columns offered in a column list (a table may have many more; their names arrive
 * with the windows that hold them, or all at once when a list is opened).
 */
const MAX_LISTED_COLUMNS = 1000;

export class FilterBar extends Widget {
  constructor(options: FilterBar.IOptions) {
    super();
    this._model = options.model;
    this._trans = options.trans;
    this._familyOf = options.familyOf ?? (() => null);
    this.addClass('jp-KernelState-explorerFilter');
    this._form.setAttribute('role', 'search');
    this._form.setAttribute('aria-label', this._trans.__('Filter rows'));
    this._form.noValidate = true;
    this.node.append(this._form);
    this._form.addEventListener('submit', event => {
      event.preventDefault();
      void this.apply();
    });
    this._draft = this._freshDraft();
    this._model.columnsChanged.connect(this._onColumns, this);
    this._model.stateChanged.connect(this._syncState, this);
    this._render();
  }

  /**
   * The conditions being edited (applied or not).
   */
  get draft(): IFilterDraft {
    return this._draft;
  }

  /**
   * Replace the conditions edited (not applied).
   */
  setDraft(draft: IFilterDraft): void {
    this._draft = draft.items.length ? draft : this._freshDraft();
    this._errors.clear();
    this._render();
  }

  /**
   * Send the conditions to the kernel; false when some cannot be sent (each says
   * why). A draft without a condition shows every row.
   */
  async apply(): Promise<boolean> {
    const { filter, errors } = buildFilter(this._withoutBlanks(), this._trans);
    this._errors = errors;
    this._localError = null;
    if (errors.size > 0) {
      this._render();
      return false;
    }
    this._render();
    await this._model.setFilter(filter);
    return this._model.filterError === null;
  }

  /**
   * Show every row again, and one blank condition.
   */
  async clear(): Promise<void> {
    this._draft = this._freshDraft();
    this._errors.clear();
    this._localError = null;
    this._render();
    await this._model.setFilter(null);
  }

  /**
   * Add a condition or group with AND, and apply ("Filter to this value").
   */
  async add(item: DraftItem): Promise<boolean> {
    const next = addToDraft(this._draft, item);
    if (next === null) {
      this._localError = this._trans.__(
        'This filter is nested too deeply to add a condition to: clear it first'
      );
      this._render();
      return false;
    }
    if (conditionsOf(next).length > MAX_CONDITIONS) {
      this._localError = this._trans.__(
        'At most %1 conditions in one filter',
        MAX_CONDITIONS
      );
      this._render();
      return false;
    }
    this._draft = next;
    return this.apply();
  }

  protected onAfterAttach(): void {
    this._fit();
  }

  protected onAfterShow(): void {
    this._fit();
  }

  /**
   * A new width may wrap the conditions on more lines (or fewer).
   */
  protected onResize(msg: Widget.ResizeMessage): void {
    if (msg.width >= 0 && msg.width !== this._width) {
      this._width = msg.width;
      requestAnimationFrame(() => {
        if (!this.isDisposed) {
          this._fit();
        }
      });
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._model.columnsChanged.disconnect(this._onColumns, this);
    this._model.stateChanged.disconnect(this._syncState, this);
    super.dispose();
  }

  private _freshDraft(): IFilterDraft {
    return {
      join: 'and',
      items: [this._newCondition(this._model.column(0)?.name ?? '')]
    };
  }

  /**
   * A blank condition on a column, with the first operator of its family.
   */
  private _newCondition(column: string): IConditionDraft {
    return emptyCondition(column, opsFor(this._family(column))[0]);
  }

  /**
   * The draft without untouched blank conditions (a column, no value, an operator
   * taking one): the blank row the bar starts with is no condition.
   */
  private _withoutBlanks(): IFilterDraft {
    const [first] = this._draft.items;
    const items =
      this._draft.items.length === 1 && !isGroup(first) && isBlank(first)
        ? []
        : this._draft.items;
    return { ...this._draft, items };
  }

  private _render(): void {
    const focused = (document.activeElement as HTMLElement | null)?.dataset
      ?.focusKey;
    this._columnSelects = [];
    const trans = this._trans;
    const list = document.createElement('div');
    list.className = 'jp-KernelState-explorerFilterItems';
    this._draft.items.forEach((item, index) => {
      const joinWord = document.createElement('span');
      joinWord.className = 'jp-KernelState-explorerFilterJoinWord';
      joinWord.textContent =
        index === 0
          ? trans.__('Where')
          : this._draft.join === 'and'
            ? trans.__('and')
            : trans.__('or');
      const line = isGroup(item)
        ? this._groupNode(item, `${index}`)
        : this._conditionNode(item, `${index}`, () => this._removeItem(item));
      line.prepend(joinWord);
      list.append(line);
    });

    const actions = document.createElement('div');
    actions.className = 'jp-KernelState-explorerFilterActions';
    const match = select(
      'kernel-state-explorer-filter-join',
      trans.__('Rows must meet'),
      [
        ['and', trans.__('all conditions')],
        ['or', trans.__('any condition')]
      ],
      this._draft.join
    );
    match.dataset.focusKey = 'join';
    match.addEventListener('change', () => {
      this._draft.join = match.value as Join;
      this._render();
    });
    const full = conditionsOf(this._draft).length >= MAX_CONDITIONS;
    const add = button(
      trans.__('+ Condition'),
      'kernel-state-explorer-filter-add',
      trans.__('Add a condition')
    );
    add.disabled = full;
    add.dataset.focusKey = 'add';
    add.addEventListener('click', () => {
      this._draft.items.push(this._newCondition(this._defaultColumn()));
      this._render();
    });
    const addGroup = button(
      trans.__('+ Group'),
      'kernel-state-explorer-filter-add-group',
      trans.__('Add a group of conditions in parentheses')
    );
    addGroup.disabled = full;
    addGroup.dataset.focusKey = 'add-group';
    addGroup.addEventListener('click', () => {
      const column = this._defaultColumn();
      this._draft.items.push({
        join: 'or',
        conditions: [this._newCondition(column), this._newCondition(column)]
      });
      this._render();
    });
    const apply = document.createElement('button');
    apply.type = 'submit';
    apply.className = 'jp-Button jp-mod-styled jp-mod-accept';
    apply.textContent = trans.__('Apply');
    apply.dataset.testId = 'kernel-state-explorer-filter-apply';
    const clear = button(
      trans.__('Clear'),
      'kernel-state-explorer-filter-clear',
      trans.__('Show every row')
    );
    clear.addEventListener('click', () => void this.clear());
    this._clear = clear;
    this._error.className = 'jp-KernelState-explorerFilterError';
    this._error.dataset.testId = 'kernel-state-explorer-filter-error';
    this._error.setAttribute('role', 'alert');
    actions.append(match, add, addGroup, apply, clear, this._error);

    this._form.replaceChildren(list, actions);
    this._syncState();
    if (focused) {
      this._form
        .querySelector<HTMLElement>(`[data-focus-key="${focused}"]`)
        ?.focus();
    }
    this._fit();
  }

  private _groupNode(group: IGroupDraft, key: string): HTMLElement {
    const trans = this._trans;
    const node = document.createElement('div');
    node.className = 'jp-KernelState-explorerFilterGroup';
    node.setAttribute('role', 'group');
    node.setAttribute('aria-label', trans.__('Group of conditions'));
    node.dataset.testId = 'kernel-state-explorer-filter-group';
    const open = document.createElement('span');
    open.className = 'jp-KernelState-explorerFilterParen';
    open.textContent = '(';
    const how = select(
      'kernel-state-explorer-filter-group-join',
      trans.__('Group rows must meet'),
      [
        ['or', trans.__('any of')],
        ['and', trans.__('all of')]
      ],
      group.join
    );
    how.dataset.focusKey = `${key}.join`;
    how.addEventListener('change', () => {
      group.join = how.value as Join;
      this._render();
    });
    const members = document.createElement('div');
    members.className = 'jp-KernelState-explorerFilterMembers';
    group.conditions.forEach((condition, index) => {
      const line = this._conditionNode(condition, `${key}.${index}`, () => {
        group.conditions.splice(group.conditions.indexOf(condition), 1);
        if (group.conditions.length === 0) {
          this._removeItem(group);
        } else {
          this._render();
        }
      });
      if (index > 0) {
        const word = document.createElement('span');
        word.className = 'jp-KernelState-explorerFilterJoinWord';
        word.textContent =
          group.join === 'and' ? trans.__('and') : trans.__('or');
        line.prepend(word);
      }
      members.append(line);
    });
    const add = button(
      trans.__('+'),
      'kernel-state-explorer-filter-group-add',
      trans.__('Add a condition to the group')
    );
    add.dataset.focusKey = `${key}.add`;
    add.disabled = conditionsOf(this._draft).length >= MAX_CONDITIONS;
    add.addEventListener('click', () => {
      group.conditions.push(this._newCondition(this._defaultColumn()));
      this._render();
    });
    const remove = button(
      '×',
      'kernel-state-explorer-filter-group-remove',
      trans.__('Remove the group')
    );
    remove.addEventListener('click', () => this._removeItem(group));
    const close = document.createElement('span');
    close.className = 'jp-KernelState-explorerFilterParen';
    close.textContent = ')';
    node.append(open, how, members, add, close, remove);
    return node;
  }

  private _conditionNode(
    condition: IConditionDraft,
    key: string,
    onRemove: () => void
  ): HTMLElement {
    const trans = this._trans;
    const node = document.createElement('div');
    node.className = 'jp-KernelState-explorerFilterCondition';
    node.dataset.testId = 'kernel-state-explorer-filter-condition';
    const error = this._errors.get(condition) ?? this._serverErrorOf(condition);

    const column = document.createElement('select');
    column.setAttribute('aria-label', trans.__('Column'));
    column.dataset.testId = 'kernel-state-explorer-filter-column';
    column.dataset.focusKey = `${key}.column`;
    this._fillColumns(column, condition.column);
    this._columnSelects.push({ select: column, condition });
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

    const op = document.createElement('select');
    op.setAttribute('aria-label', trans.__('Condition'));
    op.dataset.testId = 'kernel-state-explorer-filter-op';
    op.dataset.focusKey = `${key}.op`;
    const ops = opsFor(this._family(condition.column));
    if (!ops.includes(condition.op)) {
      ops.push(condition.op); // kept as set (e.g. by "Filter to this value")
    }
    for (const name of ops) {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = opLabel(name, trans);
      op.append(option);
    }
    op.value = condition.op;
    op.addEventListener('change', () => {
      condition.op = op.value as FilterOp;
      this._errors.delete(condition);
      this._render();
    });
    node.append(column, op, ...this._valueNodes(condition, key));

    if (TEXT_OPS.has(condition.op)) {
      const toggle = button(
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
    const remove = button(
      '×',
      'kernel-state-explorer-filter-remove',
      trans.__('Remove the condition')
    );
    remove.addEventListener('click', onRemove);
    node.append(remove);
    if (error) {
      node.classList.add('jp-mod-invalid');
      const text = document.createElement('span');
      text.className = 'jp-KernelState-explorerFilterConditionError';
      text.dataset.testId = 'kernel-state-explorer-filter-condition-error';
      text.textContent = error;
      node.append(text);
      for (const input of node.querySelectorAll('input, select')) {
        input.setAttribute('aria-invalid', 'true');
      }
    }
    return node;
  }

  private _valueNodes(condition: IConditionDraft, key: string): HTMLElement[] {
    const trans = this._trans;
    const family = this._family(condition.column);
    const input = (
      field: 'value' | 'high',
      label: string,
      testId: string
    ): HTMLInputElement => {
      const node = document.createElement('input');
      node.type = 'text';
      node.maxLength = 1000;
      node.value = condition[field];
      node.placeholder = placeholder(family, trans);
      node.setAttribute('aria-label', label);
      node.dataset.testId = testId;
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
      case 'two': {
        const and = document.createElement('span');
        and.className = 'jp-KernelState-explorerFilterJoinWord';
        and.textContent = trans.__('and');
        return [
          input(
            'value',
            trans.__('From (included)'),
            'kernel-state-explorer-filter-value'
          ),
          and,
          input(
            'high',
            trans.__('To (included)'),
            'kernel-state-explorer-filter-high'
          )
        ];
      }
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
    const node = document.createElement('div');
    node.className = 'jp-KernelState-explorerFilterList';
    node.setAttribute('role', 'group');
    node.setAttribute('aria-label', trans.__('Values'));
    node.dataset.testId = 'kernel-state-explorer-filter-values';
    condition.values.forEach((value, index) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'jp-KernelState-explorerFilterChip';
      chip.textContent = `${value} ×`;
      chip.title = trans.__('Remove %1', value);
      chip.setAttribute('aria-label', trans.__('Remove %1', value));
      chip.dataset.focusKey = `${key}.chip`;
      chip.addEventListener('click', () => {
        condition.values.splice(index, 1);
        this._render();
      });
      node.append(chip);
    });
    const input = document.createElement('input');
    input.type = 'text';
    input.maxLength = 1000;
    input.placeholder = trans.__('value, Enter');
    input.setAttribute('aria-label', trans.__('Add a value'));
    input.dataset.testId = 'kernel-state-explorer-filter-values-input';
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
      this._errors.delete(condition);
      this._render();
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

  private _fillColumns(select: HTMLSelectElement, selected: string): void {
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

  private _onColumns(): void {
    let blank = false;
    for (const { select, condition } of this._columnSelects) {
      if (!condition.column && this._model.column(0)) {
        condition.column = this._model.column(0)!.name;
        condition.op = opsFor(this._family(condition.column))[0];
        blank = true;
      }
      this._fillColumns(select, condition.column);
    }
    if (blank) {
      this._render();
    }
  }

  private _family(column: string): ColumnFamily {
    return (
      this._familyOf(column) ??
      familyOf(this._model.columnNamed(column)?.dtype ?? null)
    );
  }

  private _defaultColumn(): string {
    const conditions = conditionsOf(this._draft);
    return (
      conditions[conditions.length - 1]?.column ??
      this._model.column(0)?.name ??
      ''
    );
  }

  private _removeItem(item: DraftItem): void {
    this._draft.items = this._draft.items.filter(other => other !== item);
    if (this._draft.items.length === 0) {
      this._draft = this._freshDraft();
    }
    this._render();
  }

  /**
   * The server's message, on the conditions of the columns it names (all when none).
   */
  private _serverErrorOf(condition: IConditionDraft): string | null {
    const message = this._model.filterError;
    if (!message) {
      return null;
    }
    const named = columnsNamedIn(
      message,
      conditionsOf(this._draft).map(c => c.column)
    );
    return named.length === 0 || named.includes(condition.column)
      ? message
      : null;
  }

  private _syncState(): void {
    const filter = this._model.filter;
    this.node.classList.toggle('jp-mod-active', filter !== null);
    if (this._clear) {
      this._clear.style.display =
        filter !== null || this._model.filterError !== null ? '' : 'none';
    }
    const message =
      this._localError ??
      (this._model.filterError
        ? this._trans.__(
            'The kernel refused this filter: %1',
            this._model.filterError
          )
        : this._errors.size > 0
          ? this._trans.__('Correct the conditions marked to apply the filter')
          : '');
    if (this._error.textContent !== message) {
      this._error.textContent = message;
    }
    const shownServerError = this._shownServerError;
    this._shownServerError = this._model.filterError;
    if (shownServerError !== this._model.filterError) {
      // Mark (or unmark) the conditions the server's message is about.
      this._render();
    }
  }

  /**
   * The bar is as tall as its conditions: tell the layout.
   */
  private _fit(): void {
    const height = this._form.getBoundingClientRect().height;
    if (height <= 0) {
      return; // not laid out (detached, hidden)
    }
    const minHeight = `${Math.ceil(height) + 8}px`;
    if (this.node.style.minHeight !== minHeight) {
      this.node.style.minHeight = minHeight;
      if (this.parent) {
        MessageLoop.postMessage(this.parent, Widget.Msg.FitRequest);
      }
    }
  }

  /**
   * Re-read the draft from the model's filter (after it was set elsewhere).
   */
  syncFromModel(): void {
    const draft = draftOf(this._model.filter);
    if (draft) {
      this.setDraft(draft);
    }
  }

  private _model: RowsDataModel;
  private _trans: TranslationBundle;
  private _familyOf: (column: string) => ColumnFamily | null;
  private _form = document.createElement('form');
  private _error = document.createElement('span');
  private _clear: HTMLButtonElement | null = null;
  private _width = -1;
  private _draft: IFilterDraft;
  private _errors: DraftErrors = new Map();
  private _localError: string | null = null;
  private _shownServerError: string | null = null;
  private _columnSelects: {
    select: HTMLSelectElement;
    condition: IConditionDraft;
  }[] = [];
}

export namespace FilterBar {
  export interface IOptions {
    model: RowsDataModel;
    trans: TranslationBundle;
    /**
     * The family of a column as the profile found it, or null when not known (the
     * dtype's family is used then).
     */
    familyOf?: (column: string) => ColumnFamily | null;
  }
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

function option(value: string, text: string): HTMLOptionElement {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = text;
  return node;
}

function select(
  testId: string,
  label: string,
  options: [string, string][],
  value: string
): HTMLSelectElement {
  const node = document.createElement('select');
  node.dataset.testId = testId;
  node.setAttribute('aria-label', label);
  for (const [key, text] of options) {
    node.append(option(key, text));
  }
  node.value = value;
  return node;
}

function button(
  text: string,
  testId: string,
  title: string
): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'jp-Button jp-mod-styled jp-mod-reject';
  node.textContent = text;
  node.title = title;
  node.setAttribute('aria-label', title);
  node.dataset.testId = testId;
  return node;
}
