/**
 * The items of the explorer's toolbar: the variable's name, type and size (with the
 * filter as its tooltip), the sort keys with Clear sort, Go to column and the hidden
 * columns' Show all, the Summary, Code and Findings toggles, Refresh. They render the
 * model's state (`sync`); what their buttons do is the explorer's
 * (`ToolbarItems.IOptions`).
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { RowsDataModel } from '../data/model';
import { sortText } from '../data/sort';
import { button, element } from '../dom';
import { filterText } from '../filter/text';

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * `1,000,000 rows × 20 columns`; with a filter `1,000 of 1,000,000 rows × 20 columns`.
 * An engine table's rows may be null (not counted): `rows not counted × 20 columns`,
 * with a filter `not counted of 1,000,000 rows × 20 columns`.
 */
export function sizeText(
  trans: TranslationBundle,
  rows: number | null,
  columns: number,
  kept: number | null = null,
  filtered: boolean = kept !== null
): string {
  const total =
    rows === null
      ? trans.__('rows not counted')
      : trans._n('%2 row', '%2 rows', rows, numberFormat.format(rows));
  let shown = total;
  if (filtered && kept === null) {
    shown = rows === null ? total : trans.__('not counted of %1', total);
  } else if (filtered && kept !== null) {
    shown =
      rows === null
        ? trans._n(
            '%2 row kept',
            '%2 rows kept',
            kept,
            numberFormat.format(kept)
          )
        : trans.__('%1 of %2', numberFormat.format(kept), total);
  }
  const width = trans._n(
    '%2 column',
    '%2 columns',
    columns,
    numberFormat.format(columns)
  );
  return trans.__('%1 × %2', shown, width);
}

export class ToolbarItems {
  constructor(options: ToolbarItems.IOptions) {
    const { model, trans } = options;
    this._model = model;
    this._trans = trans;
    this._clearSort = button(
      trans.__('Clear sort'),
      'kernel-state-explorer-clear-sort'
    );

    const info = new Widget();
    info.addClass('jp-KernelState-explorerInfo');
    // cut with an ellipsis in a narrow tab
    const name = element('span', {
      className: 'jp-KernelState-explorerName',
      text: options.name,
      title: options.name
    });
    info.node.append(name, this._type, this._size);

    const sort = new Widget();
    sort.addClass('jp-KernelState-explorerSort');
    this._clearSort.addEventListener('click', () => model.setSort(null));
    sort.node.append(this._sortText, this._clearSort);

    const columns = new Widget();
    columns.addClass('jp-KernelState-explorerColumns');
    const goTo = element('input', {
      className: 'jp-KernelState-explorerGoTo',
      label: trans.__('Go to column'),
      testId: 'kernel-state-explorer-goto'
    });
    goTo.type = 'search';
    goTo.placeholder = trans.__('Go to column');
    goTo.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        options.onGoTo(goTo.value);
      }
    });
    this._showHidden.addEventListener('click', () => model.showAllColumns());
    columns.node.append(goTo, this._showHidden);

    const views = new Widget();
    views.addClass('jp-KernelState-explorerViews');
    this._summaryToggle = button(
      trans.__('Summary'),
      'kernel-state-explorer-summary-button',
      { title: trans.__('Show or hide the statistics of the columns') }
    );
    this._summaryToggle.addEventListener('click', () =>
      options.onToggleSummary()
    );
    this._codeToggle = button(
      trans.__('Code'),
      'kernel-state-explorer-code-button',
      { title: trans.__('Show the code of this view (filter, sort, columns)') }
    );
    this._codeToggle.addEventListener('click', () => options.onToggleCode());
    views.node.append(this._summaryToggle, this._codeToggle);
    if (options.onToggleFindings) {
      const onToggle = options.onToggleFindings;
      this._findingsToggle = button(
        trans.__('Findings'),
        'kernel-state-findings-toggle',
        {
          title: trans.__(
            'Show the data-quality findings of the rows shown, with the code that fixes them'
          )
        }
      );
      this._findingsToggle.addEventListener('click', () => onToggle());
      views.node.append(this._findingsToggle);
    }

    const refresh = new Widget();
    const refreshButton = button(
      trans.__('Refresh'),
      'kernel-state-explorer-refresh',
      { title: trans.__('Read the rows from the kernel again') }
    );
    refreshButton.addEventListener('click', () => options.onRefresh());
    refresh.node.append(refreshButton);

    this.items = [
      ['info', info],
      ['sort', sort],
      ['columns', columns],
      ['views', views],
      ['refresh', refresh]
    ];
  }

  /**
   * The widgets of the main-area toolbar, by name.
   */
  readonly items: [string, Widget][];

  /**
   * Whether the summary and the code are shown (their toggles pressed).
   */
  setPressed(summary: boolean, code: boolean): void {
    this._summaryToggle.setAttribute('aria-pressed', String(summary));
    this._codeToggle.setAttribute('aria-pressed', String(code));
  }

  /**
   * Whether the findings are shown, and how many there are (null: not known) and
   * the most severe.
   */
  setFindings(
    pressed: boolean,
    total: number | null,
    severity: string | null
  ): void {
    const toggle = this._findingsToggle;
    if (!toggle) {
      return;
    }
    toggle.setAttribute('aria-pressed', String(pressed));
    toggle.textContent =
      total === null
        ? this._trans.__('Findings')
        : this._trans.__('Findings (%1)', total);
    if (severity === null) {
      toggle.removeAttribute('data-severity');
    } else {
      toggle.dataset.severity = severity;
    }
  }

  /**
   * Render the model's state: type, size, filter, sort keys, hidden columns.
   */
  sync(): void {
    const trans = this._trans;
    const model = this._model;
    const info = model.info;
    this._type.textContent = info
      ? trans.__('%1 · %2', info.type, info.kind)
      : '';
    this._type.title = this._type.textContent;
    this._size.textContent = info
      ? sizeText(
          trans,
          info.filtered ? info.totalRows : model.viewRows,
          info.columnsTotal,
          info.filtered ? model.viewRows : null,
          info.filtered
        )
      : '';
    const filter = model.filter;
    this._size.title = filter
      ? trans.__('Filtered: %1', filterText(filter, trans))
      : '';
    const keys = model.sort;
    this._sortText.textContent = keys.length
      ? trans.__('Sorted by %1', sortText(keys))
      : trans.__('Unsorted');
    this._sortText.title = keys.length
      ? trans.__(
          'Sorted by the kernel; click a header to sort by it alone, Shift+click to add or reverse a key'
        )
      : trans.__(
          'Click a column header to sort (in the kernel), Shift+click to add a key'
        );
    // `hidden` loses against the button's own display rule.
    this._clearSort.style.display = keys.length === 0 ? 'none' : '';
    const hidden = model.layout.hiddenCount;
    this._showHidden.textContent = trans._n(
      '%1 hidden column: show',
      '%1 hidden columns: show all',
      hidden
    );
    this._showHidden.style.display = hidden === 0 ? 'none' : '';
  }

  private _model: RowsDataModel;
  private _trans: TranslationBundle;
  private _type = element('span', { className: 'jp-KernelState-explorerType' });
  private _size = element('span', {
    className: 'jp-KernelState-explorerSize',
    testId: 'kernel-state-explorer-size'
  });
  private _sortText = element('span', { testId: 'kernel-state-explorer-sort' });
  private _clearSort: HTMLButtonElement;
  private _showHidden = button('', 'kernel-state-explorer-show-hidden');
  private _summaryToggle: HTMLButtonElement;
  private _codeToggle: HTMLButtonElement;
  private _findingsToggle: HTMLButtonElement | null = null;
}

export namespace ToolbarItems {
  export interface IOptions {
    /**
     * The variable's name.
     */
    name: string;
    model: RowsDataModel;
    trans: TranslationBundle;
    /**
     * Go to the column a name asks for (Enter in Go to column).
     */
    onGoTo: (text: string) => void;
    onToggleSummary: () => void;
    onToggleCode: () => void;
    /**
     * Show or fold the findings (no Findings toggle without).
     */
    onToggleFindings?: () => void;
    onRefresh: () => void;
  }
}
