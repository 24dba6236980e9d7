/**
 * The comparison tab's view: the status line (how rows were matched, the counts, the
 * page), the rows listed (a select: those that differ, or one status, or all), a table
 * of the page — each row's status and key, the compared columns' cells, a changed cell
 * highlighted and shown before → after — paging, and the comparison's code (copy it,
 * or insert it below the active cell of the variable's notebook). It renders the model
 * (`model.ts`); every string goes in as text.
 */
import { Clipboard } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { CompareStatus, IComparedRow, ITableComparison } from '../../tokens';
import { button, element, select } from '../dom';
import { withLabel } from './keep';
import { comparisonText, ComparisonModel, DIFFERING, withText } from './model';

/**
 * The choices of the rows listed.
 */
const meanFormat = new Intl.NumberFormat('en-US', {
  maximumSignificantDigits: 6
});

const LISTED: [string, CompareStatus[]][] = [
  ['differing', [...DIFFERING]],
  ['added', ['added']],
  ['removed', ['removed']],
  ['changed', ['changed']],
  ['all', ['added', 'removed', 'changed', 'unchanged']]
];

export class ComparisonView extends Widget {
  constructor(options: ComparisonView.IOptions) {
    super();
    const { model, trans } = options;
    this.model = model;
    this._trans = trans;
    this._insert = options.insert ?? null;
    this._copy = options.copy ?? (text => Clipboard.copyToSystem(text));
    this.addClass('jp-KernelState-compare');
    this.node.dataset.testId = 'kernel-state-compare';
    this.node.setAttribute('role', 'region');
    this.node.setAttribute(
      'aria-label',
      trans.__(
        '%1 compared with %2',
        model.name,
        withLabel(trans, model.name, model.other)
      )
    );

    this._listed = select(
      'kernel-state-compare-statuses',
      trans.__('Rows listed'),
      [
        ['differing', trans.__('Rows that differ')],
        ['added', trans.__('Added')],
        ['removed', trans.__('Removed')],
        ['changed', trans.__('Changed')],
        ['all', trans.__('All rows')]
      ],
      'differing'
    );
    this._previous = button('‹', 'kernel-state-compare-previous', {
      label: trans.__('Previous rows')
    });
    this._next = button('›', 'kernel-state-compare-next', {
      label: trans.__('Next rows')
    });
    this._copyButton = button(
      trans.__('Copy code'),
      'kernel-state-compare-copy',
      {
        title: trans.__('Copy code that builds this comparison as a table')
      }
    );
    this._insertButton = button(
      trans.__('Insert code below'),
      'kernel-state-compare-insert'
    );
    this._listed.addEventListener('change', () => {
      const chosen = LISTED.find(([value]) => value === this._listed.value);
      void model.setStatuses(chosen ? chosen[1] : [...DIFFERING]);
    });
    this._previous.addEventListener('click', () => void model.previous());
    this._next.addEventListener('click', () => void model.next());
    this._copyButton.addEventListener('click', () => this._onCopy());
    this._insertButton.addEventListener('click', () => void this._onInsert());
    this._insertButton.hidden = this._insert === null;

    const bar = element('div', { className: 'jp-KernelState-compareBar' });
    bar.append(
      this._listed,
      this._previous,
      this._next,
      this._copyButton,
      this._insertButton
    );
    const scroller = element('div', {
      className: 'jp-KernelState-compareScroller'
    });
    scroller.append(this._table);
    this.node.append(
      this._status,
      this._note,
      bar,
      this._error,
      scroller,
      this._columns
    );
    model.changed.connect(this._render, this);
    this._render();
  }

  readonly model: ComparisonModel;

  /**
   * What the last copy or insert did, for the status beside the buttons.
   */
  get message(): string {
    return this._message;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.model.changed.disconnect(this._render, this);
    super.dispose();
  }

  private _render(): void {
    const trans = this._trans;
    const model = this.model;
    const got = model.comparison;
    this.node.classList.toggle('jp-mod-loading', model.loading);
    this._error.textContent = model.error ?? '';
    this._error.hidden = model.error === null;
    this._previous.disabled = !model.hasPrevious || model.loading;
    this._next.disabled = !model.hasNext || model.loading;
    if (got === null) {
      this._status.textContent = model.loading
        ? trans.__(
            'Comparing %1 with %2…',
            model.name,
            withLabel(trans, model.name, model.other)
          )
        : '';
      return;
    }
    this._status.textContent = comparisonText(trans, got, model.offset);
    this._status.title = got.stale
      ? trans.__('The kernel is busy: this is the last answer')
      : '';
    // How rows were matched, and what the code of a kept version needs.
    const notes = [got.key_note, got.code ? got.code_note : null].filter(
      (note): note is string => !!note
    );
    this._note.textContent = notes.join(' ');
    this._note.hidden = !notes.length;
    this._copyButton.disabled = got.code === null;
    this._insertButton.disabled = got.code === null;
    this._copyButton.title =
      got.code === null
        ? (got.code_note ?? '')
        : trans.__('Copy code that builds this comparison as a table');
    this._renderTable(got);
    this._renderColumns(got);
  }

  private _renderTable(got: ITableComparison): void {
    const trans = this._trans;
    const head = element('tr');
    const headers = [
      trans.__('status'),
      got.by === 'key' ? (got.key ?? []).join(', ') : trans.__(got.by),
      ...got.window_columns.map(column => column.name)
    ];
    for (const text of headers) {
      head.append(element('th', { text, title: text }));
    }
    const thead = element('thead');
    thead.append(head);
    const tbody = element('tbody');
    got.rows.forEach((row, i) => tbody.append(this._row(row, i)));
    this._table.replaceChildren(thead, tbody);
  }

  private _row(row: IComparedRow, i: number): HTMLTableRowElement {
    const tr = element('tr', {
      className: `jp-KernelState-compare-${row.status}`,
      testId: `kernel-state-compare-row-${i}`
    });
    tr.append(
      element('td', { text: this._trans.__(row.status) }),
      element('td', { text: row.key.map(cellText).join(', ') })
    );
    const changes = new Map(
      row.changes.map(change => [change.column, change] as const)
    );
    row.cells.forEach((cell, j) => {
      const change = changes.get(j);
      if (change === undefined) {
        tr.append(element('td', { text: cellText(cell) }));
        return;
      }
      const text = `${cellText(change.before)} → ${cellText(change.after)}`;
      tr.append(
        element('td', {
          className: 'jp-KernelState-compareChanged',
          text,
          title: text,
          testId: 'kernel-state-compare-changed'
        })
      );
    });
    return tr;
  }

  private _renderColumns(got: ITableComparison): void {
    const trans = this._trans;
    const lines: string[] = [];
    for (const column of got.columns) {
      if (column.error) {
        lines.push(
          trans.__('%1: not compared (%2)', column.name, column.error)
        );
      } else if (column.changed) {
        const parts = [
          trans._n(
            '%2: %3 cell changed',
            '%2: %3 cells changed',
            column.changed,
            column.name,
            column.changed.toLocaleString('en-US')
          )
        ];
        if (
          column.mean !== null &&
          column.with_mean !== null &&
          column.mean !== column.with_mean
        ) {
          parts.push(
            trans.__(
              'mean %1 → %2',
              meanFormat.format(column.with_mean),
              meanFormat.format(column.mean)
            )
          );
        }
        if (column.nulls !== column.with_nulls) {
          parts.push(
            trans.__('missing %1 → %2', column.with_nulls, column.nulls)
          );
        }
        lines.push(parts.join(', '));
      }
    }
    if (got.only_in_name_total) {
      lines.push(
        trans.__('only in %1: %2', got.name, got.only_in_name.join(', '))
      );
    }
    if (got.only_in_with_total) {
      lines.push(
        trans.__(
          'only in %1: %2',
          withText(trans, got),
          got.only_in_with.join(', ')
        )
      );
    }
    this._columns.replaceChildren(
      ...lines.map(text => element('li', { text }))
    );
  }

  private _onCopy(): void {
    const code = this.model.comparison?.code;
    if (!code) {
      return;
    }
    this._copy(code.code);
    this._message = this._trans.__('Copied');
  }

  private async _onInsert(): Promise<void> {
    const code = this.model.comparison?.code;
    if (!code || this._insert === null) {
      return;
    }
    const path = await this._insert(code.code);
    this._message =
      path === null
        ? this._trans.__('No open notebook runs this kernel: copy the code')
        : this._trans.__('Inserted in %1', path);
  }

  private _trans: TranslationBundle;
  private _insert: ((code: string) => Promise<string | null>) | null;
  private _copy: (text: string) => void;
  private _message = '';
  private _listed: HTMLSelectElement;
  private _status = element('div', {
    className: 'jp-KernelState-compareStatus',
    testId: 'kernel-state-compare-status',
    role: 'status'
  });
  private _note = element('div', {
    className: 'jp-KernelState-compareNote',
    testId: 'kernel-state-compare-note'
  });
  private _error = element('div', {
    className: 'jp-KernelState-compareError',
    testId: 'kernel-state-compare-error',
    role: 'alert'
  });
  private _previous: HTMLButtonElement;
  private _next: HTMLButtonElement;
  private _copyButton: HTMLButtonElement;
  private _insertButton: HTMLButtonElement;
  private _table = element('table', {
    className: 'jp-KernelState-compareTable',
    testId: 'kernel-state-compare-table'
  });
  private _columns = element('ul', {
    className: 'jp-KernelState-compareColumns',
    testId: 'kernel-state-compare-columns'
  });
}

export namespace ComparisonView {
  export interface IOptions {
    model: ComparisonModel;
    trans: TranslationBundle;
    /**
     * Insert code below the active cell of the variable's notebook: its path, or null
     * when no open notebook runs the kernel.
     */
    insert?: (code: string) => Promise<string | null>;
    copy?: (text: string) => void;
  }
}

function cellText(value: string | null): string {
  return value === null ? 'null' : value;
}
