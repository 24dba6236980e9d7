/**
 * The explorer's filter bar: conditions joined by AND or OR, with one level of groups
 * (`price ≥ 10 and (region = north or region is missing)`), computed in the kernel.
 * Each condition offers the operators of its column's family, with the inputs its
 * operator takes: none, one value, two (a range), a list (`in`), and a case toggle for
 * text operators. What the bar cannot send (a missing value) and what the server
 * refuses (its message) are shown inline. Column names are option text, never markup.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { ColumnFamily } from '../../tokens';
import { RowsDataModel } from '../data/model';
import { element, fitMinHeight, select } from '../dom';
import { familyOf } from '../dtypes';
import { ConditionEditor, labelledButton } from './conditions';
import {
  addToDraft,
  buildFilter,
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
  MAX_CONDITIONS
} from './draft';
import { opsFor } from './ops';
import { columnsNamedIn } from './text';

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
    this._conditions = new ConditionEditor({
      model: this._model,
      trans: this._trans,
      family: column => this._family(column),
      render: () => this._render(),
      edited: condition => {
        this._errors.delete(condition);
        this._render();
      }
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
    const list = element('div', {
      className: 'jp-KernelState-explorerFilterItems'
    });
    this._draft.items.forEach((item, index) => {
      const joinWord = joinWordNode(
        index === 0
          ? trans.__('Where')
          : this._draft.join === 'and'
            ? trans.__('and')
            : trans.__('or')
      );
      const line = isGroup(item)
        ? this._groupNode(item, `${index}`)
        : this._conditionNode(item, `${index}`, () => this._removeItem(item));
      line.prepend(joinWord);
      list.append(line);
    });

    const actions = element('div', {
      className: 'jp-KernelState-explorerFilterActions'
    });
    const match = this._joinSelect(
      this._draft,
      'join',
      'kernel-state-explorer-filter-join',
      trans.__('Rows must meet'),
      [
        ['and', trans.__('all conditions')],
        ['or', trans.__('any condition')]
      ]
    );
    const add = this._adder(
      trans.__('+ Condition'),
      'kernel-state-explorer-filter-add',
      trans.__('Add a condition'),
      'add',
      () => this._draft.items.push(this._newCondition(this._defaultColumn()))
    );
    const addGroup = this._adder(
      trans.__('+ Group'),
      'kernel-state-explorer-filter-add-group',
      trans.__('Add a group of conditions in parentheses'),
      'add-group',
      () => {
        const column = this._defaultColumn();
        this._draft.items.push({
          join: 'or',
          conditions: [this._newCondition(column), this._newCondition(column)]
        });
      }
    );
    const apply = element('button', {
      className: 'jp-Button jp-mod-styled jp-mod-accept',
      text: trans.__('Apply'),
      testId: 'kernel-state-explorer-filter-apply'
    });
    apply.type = 'submit';
    const clear = labelledButton(
      trans.__('Clear'),
      'kernel-state-explorer-filter-clear',
      trans.__('Show every row')
    );
    clear.addEventListener('click', () => void this.clear());
    this._clear = clear;
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
    const node = element('div', {
      className: 'jp-KernelState-explorerFilterGroup',
      role: 'group',
      label: trans.__('Group of conditions'),
      testId: 'kernel-state-explorer-filter-group'
    });
    const open = element('span', {
      className: 'jp-KernelState-explorerFilterParen',
      text: '('
    });
    const how = this._joinSelect(
      group,
      `${key}.join`,
      'kernel-state-explorer-filter-group-join',
      trans.__('Group rows must meet'),
      [
        ['or', trans.__('any of')],
        ['and', trans.__('all of')]
      ]
    );
    const members = element('div', {
      className: 'jp-KernelState-explorerFilterMembers'
    });
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
        line.prepend(
          joinWordNode(group.join === 'and' ? trans.__('and') : trans.__('or'))
        );
      }
      members.append(line);
    });
    const add = this._adder(
      trans.__('+'),
      'kernel-state-explorer-filter-group-add',
      trans.__('Add a condition to the group'),
      `${key}.add`,
      () => group.conditions.push(this._newCondition(this._defaultColumn()))
    );
    const remove = labelledButton(
      '×',
      'kernel-state-explorer-filter-group-remove',
      trans.__('Remove the group')
    );
    remove.addEventListener('click', () => this._removeItem(group));
    const close = element('span', {
      className: 'jp-KernelState-explorerFilterParen',
      text: ')'
    });
    node.append(open, how, members, add, close, remove);
    return node;
  }

  /**
   * A button that adds to the draft (`add`), then renders it; disabled once the
   * draft holds `MAX_CONDITIONS`.
   */
  private _adder(
    text: string,
    testId: string,
    title: string,
    focusKey: string,
    add: () => void
  ): HTMLButtonElement {
    const node = labelledButton(text, testId, title);
    node.disabled = conditionsOf(this._draft).length >= MAX_CONDITIONS;
    node.dataset.focusKey = focusKey;
    node.addEventListener('click', () => {
      add();
      this._render();
    });
    return node;
  }

  /**
   * The AND / OR choice of the draft or of a group (`owner`).
   */
  private _joinSelect(
    owner: { join: Join },
    focusKey: string,
    testId: string,
    label: string,
    choices: [Join, string][]
  ): HTMLSelectElement {
    const node = select(testId, label, choices, owner.join);
    node.dataset.focusKey = focusKey;
    node.addEventListener('change', () => {
      owner.join = node.value as Join;
      this._render();
    });
    return node;
  }

  private _conditionNode(
    condition: IConditionDraft,
    key: string,
    onRemove: () => void
  ): HTMLElement {
    const error = this._errors.get(condition) ?? this._serverErrorOf(condition);
    const { node, column } = this._conditions.line(
      condition,
      key,
      error,
      onRemove
    );
    this._columnSelects.push({ select: column, condition });
    return node;
  }

  private _onColumns(): void {
    let blank = false;
    for (const { select, condition } of this._columnSelects) {
      if (!condition.column && this._model.column(0)) {
        condition.column = this._model.column(0)!.name;
        condition.op = opsFor(this._family(condition.column))[0];
        blank = true;
      }
      this._conditions.fillColumns(select, condition.column);
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
    fitMinHeight(this, `${Math.ceil(height) + 8}px`);
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
  private _conditions: ConditionEditor;
  private _form = document.createElement('form');
  private _error = element('span', {
    className: 'jp-KernelState-explorerFilterError',
    testId: 'kernel-state-explorer-filter-error',
    role: 'alert'
  });
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

/**
 * `Where`, `and`, `or` before a condition.
 */
function joinWordNode(text: string): HTMLElement {
  return element('span', {
    className: 'jp-KernelState-explorerFilterJoinWord',
    text
  });
}
