/**
 * The data explorer's main-area content: one variable of a kernel in a lumino grid,
 * with a toolbar (name, type, size, sort, refresh), a banner when the rows shown are no
 * longer the variable's, and a status line (errors, the rows in view).
 *
 * Everything put in the DOM is text (`textContent`): names and cells come from the
 * kernel. The grid itself paints text on a canvas.
 */
import { MainAreaWidget } from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { Toolbar } from '@jupyterlab/ui-components';
import { DataModel } from '@lumino/datagrid';
import { BoxPanel, Widget } from '@lumino/widgets';

import { FilterBar, filterText } from './filterBar';
import { ExplorerGrid, IVisibleRows } from './grid';
import { RowsDataModel } from './model';
import { StaleReason } from './query';

const MIN_COLUMN_WIDTH = 60;
const MAX_COLUMN_WIDTH = 360;
const CELL_PADDING = 20;
/**
 * Rows of a block sampled to size a column.
 */
const SAMPLE_ROWS = 50;

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * `1,000,000 rows × 20 columns`; with a filter `1,000 of 1,000,000 rows × 20 columns`.
 */
export function sizeText(
  trans: TranslationBundle,
  rows: number,
  columns: number,
  kept: number | null = null
): string {
  const total = trans._n('%2 row', '%2 rows', rows, numberFormat.format(rows));
  const shown =
    kept === null
      ? total
      : trans.__('%1 of %2', numberFormat.format(kept), total);
  const width = trans._n(
    '%2 column',
    '%2 columns',
    columns,
    numberFormat.format(columns)
  );
  return trans.__('%1 × %2', shown, width);
}

/**
 * What the banner says for a stale reason.
 */
export function staleText(
  trans: TranslationBundle,
  reason: StaleReason,
  name: string
): string {
  switch (reason) {
    case 'removed':
      return trans.__('%1 no longer exists', name);
    case 'restarted':
      return trans.__('The kernel restarted since these rows were loaded');
    default:
      return trans.__('%1 changed since loaded', name);
  }
}

/**
 * `Rows 1–25 of 1,000,000 · index 0 … 24` (positions 1-based, labels as in the table).
 */
export function rangeText(
  trans: TranslationBundle,
  visible: IVisibleRows | null,
  total: number,
  firstLabel: string | null | undefined,
  lastLabel: string | null | undefined
): string {
  if (!visible || total === 0) {
    return total === 0 ? trans.__('No rows') : '';
  }
  const rows = trans.__(
    'Rows %1–%2 of %3',
    numberFormat.format(visible.first + 1),
    numberFormat.format(visible.last + 1),
    numberFormat.format(total)
  );
  return typeof firstLabel === 'string' && typeof lastLabel === 'string'
    ? trans.__('%1 · index %2 … %3', rows, firstLabel, lastLabel)
    : rows;
}

export class DataExplorer extends BoxPanel {
  constructor(options: DataExplorer.IOptions) {
    super({ direction: 'top-to-bottom', spacing: 0 });
    this.addClass('jp-KernelState-explorer');
    this.name = options.name;
    this.kernelId = options.kernelId;
    this.model = options.model;
    const trans = (options.translator ?? nullTranslator).load(
      'jupyter_kernel_state'
    );
    this._trans = trans;

    this._filterBar = new FilterBar(this.model, trans);
    this._banner = new Widget();
    this._banner.addClass('jp-KernelState-explorerBanner');
    this._banner.node.dataset.testId = 'kernel-state-explorer-stale';
    this._banner.node.setAttribute('role', 'status');
    this._bannerText = document.createElement('span');
    const bannerButton = button(
      trans.__('Refresh'),
      'kernel-state-explorer-stale-refresh'
    );
    bannerButton.addEventListener('click', () => void this.refresh());
    this._banner.node.append(this._bannerText, bannerButton);
    this._banner.hide();

    this.grid = new ExplorerGrid({
      onHeaderClick: column => this.model.cycleSort(column),
      trans
    });
    this.grid.node.dataset.testId = 'kernel-state-explorer-grid';
    this.grid.setModel(this.model);
    this.grid.painted.connect((_, visible) => this._showRange(visible));

    const footer = new Widget();
    footer.addClass('jp-KernelState-explorerFooter');
    this._status = document.createElement('span');
    this._status.className = 'jp-KernelState-explorerStatus';
    this._status.dataset.testId = 'kernel-state-explorer-status';
    this._status.setAttribute('role', 'status');
    this._range = document.createElement('span');
    this._range.className = 'jp-KernelState-explorerRange';
    this._range.dataset.testId = 'kernel-state-explorer-range';
    footer.node.append(this._status, this._range);

    this.addWidget(this._filterBar);
    this.addWidget(this._banner);
    this.addWidget(this.grid);
    this.addWidget(footer);
    BoxPanel.setStretch(this._filterBar, 0);
    BoxPanel.setStretch(this._banner, 0);
    BoxPanel.setStretch(this.grid, 1);
    BoxPanel.setStretch(footer, 0);

    this.toolbarItems = this._makeToolbar();
    this.model.changed.connect(this._onDataChanged, this);
    this.model.stateChanged.connect(this._onStateChanged, this);
    this._onStateChanged();
  }

  readonly name: string;
  readonly kernelId: string;
  readonly model: RowsDataModel;
  readonly grid: ExplorerGrid;
  /**
   * The widgets `createExplorer` puts in the main-area toolbar, by name.
   */
  readonly toolbarItems: [string, Widget][];

  /**
   * Read the variable again; the rows shown stay until the new ones arrive.
   */
  refresh(): Promise<void> {
    this._sized.clear();
    return this.model.refresh();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.model.dispose();
    super.dispose();
  }

  private _makeToolbar(): [string, Widget][] {
    const trans = this._trans;
    const info = new Widget();
    info.addClass('jp-KernelState-explorerInfo');
    const name = document.createElement('span');
    name.className = 'jp-KernelState-explorerName';
    name.textContent = this.name;
    this._type = document.createElement('span');
    this._type.className = 'jp-KernelState-explorerType';
    this._size = document.createElement('span');
    this._size.className = 'jp-KernelState-explorerSize';
    this._size.dataset.testId = 'kernel-state-explorer-size';
    info.node.append(name, this._type, this._size);

    const sort = new Widget();
    sort.addClass('jp-KernelState-explorerSort');
    this._sortText = document.createElement('span');
    this._sortText.dataset.testId = 'kernel-state-explorer-sort';
    this._clearSort = button(
      trans.__('Clear sort'),
      'kernel-state-explorer-clear-sort'
    );
    this._clearSort.addEventListener('click', () => this.model.setSort(null));
    sort.node.append(this._sortText, this._clearSort);

    const refresh = new Widget();
    const refreshButton = button(
      trans.__('Refresh'),
      'kernel-state-explorer-refresh'
    );
    refreshButton.title = trans.__('Read the rows from the kernel again');
    refreshButton.addEventListener('click', () => void this.refresh());
    refresh.node.append(refreshButton);
    return [
      ['info', info],
      ['sort', sort],
      ['refresh', refresh]
    ];
  }

  private _onStateChanged(): void {
    const trans = this._trans;
    const model = this.model;
    const info = model.info;
    this._type!.textContent = info
      ? trans.__('%1 · %2', info.type, info.kind)
      : '';
    this._size!.textContent = info
      ? sizeText(trans, info.totalRows, info.columnsTotal, info.filteredRows)
      : '';
    const filter = model.filter;
    this._size!.title = filter
      ? trans.__('Filtered: %1', filterText(filter, trans))
      : '';
    const sort = model.sort;
    this._sortText!.textContent = sort
      ? trans.__(
          'Sorted by %1 %2',
          sort.column,
          sort.direction === 'asc' ? '▲' : '▼'
        )
      : trans.__('Unsorted');
    this._sortText!.title = sort
      ? trans.__(
          'Sorted by the kernel; click the header again to reverse or clear'
        )
      : trans.__('Click a column header to sort (in the kernel)');
    // `hidden` loses against the button's own display rule.
    this._clearSort!.style.display = sort === null ? 'none' : '';

    const reason = model.staleReason;
    if (reason) {
      this._bannerText.textContent =
        reason === 'removed'
          ? staleText(trans, reason, this.name)
          : trans.__('%1 — ', staleText(trans, reason, this.name));
      this._banner.show();
    } else {
      this._banner.hide();
    }

    let status = '';
    this._status.classList.toggle('jp-mod-error', false);
    if (model.retrying) {
      status = trans.__('The kernel is busy — trying again shortly…');
    } else if ((model.error || model.queryError) && reason !== 'removed') {
      status = (model.error ?? model.queryError)!;
      this._status.classList.toggle('jp-mod-error', true);
    } else if (info?.stale) {
      status = trans.__('The kernel is busy: rows as of an earlier execution.');
    } else if (!info && !model.error) {
      status = trans.__('Loading…');
    }
    this._status.textContent = status;
  }

  private _onDataChanged(_: DataModel, args: DataModel.ChangedArgs): void {
    if (args.type === 'model-reset') {
      this._fitRowHeader();
      this._fitColumns(0, this.model.columnCount('body'));
    } else if (
      args.type === 'cells-changed' &&
      args.region === 'column-header'
    ) {
      this._fitColumns(args.column, args.column + args.columnSpan);
    }
  }

  /**
   * Size each column once, when its name and first cells are known: wide enough for
   * its header and a sample of its cells, within bounds. A user's resize is kept.
   */
  private _fitColumns(from: number, to: number): void {
    const model = this.model;
    const rows = Math.min(SAMPLE_ROWS, model.rowCount('body'));
    for (let column = from; column < to; column++) {
      const meta = model.column(column);
      if (!meta || this._sized.has(column)) {
        continue;
      }
      this._sized.add(column);
      let width =
        Math.max(
          this.grid.measure(`${meta.name} ▼`, true) + 4,
          this.grid.measure(meta.dtype ?? '', true)
        ) + CELL_PADDING;
      for (let row = 0; row < rows; row++) {
        const value = model.data('body', row, column);
        if (typeof value === 'string') {
          width = Math.max(width, this.grid.measure(value) + CELL_PADDING);
        }
      }
      this.grid.resizeColumn(
        'body',
        column,
        Math.round(
          Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width))
        )
      );
    }
  }

  private _fitRowHeader(): void {
    const info = this.model.info;
    if (!info) {
      return;
    }
    let width = this.grid.measure(String(Math.max(0, info.totalRows - 1)));
    const rows = Math.min(SAMPLE_ROWS, info.totalRows);
    for (let row = 0; row < rows; row++) {
      const label = this.model.data('row-header', row, 0);
      if (typeof label === 'string') {
        width = Math.max(width, this.grid.measure(label));
      }
    }
    if (info.indexName) {
      width = Math.max(width, this.grid.measure(info.indexName, true));
    }
    this.grid.resizeColumn(
      'row-header',
      0,
      Math.round(Math.min(240, Math.max(48, width + CELL_PADDING)))
    );
  }

  private _showRange(visible: IVisibleRows | null): void {
    const total = this.model.rowCount('body');
    const label = (row: number) => this.model.data('row-header', row, 0);
    this._range.textContent = rangeText(
      this._trans,
      visible,
      total,
      visible ? label(visible.first) : null,
      visible ? label(visible.last) : null
    );
    this._range.dataset.lastRow = visible ? String(visible.last) : '';
  }

  private _trans: TranslationBundle;
  private _filterBar: FilterBar;
  private _banner: Widget;
  private _bannerText: HTMLSpanElement;
  private _status: HTMLSpanElement;
  private _range: HTMLSpanElement;
  private _type: HTMLSpanElement | null = null;
  private _size: HTMLSpanElement | null = null;
  private _sortText: HTMLSpanElement | null = null;
  private _clearSort: HTMLButtonElement | null = null;
  private _sized = new Set<number>();
}

export namespace DataExplorer {
  export interface IOptions {
    name: string;
    kernelId: string;
    model: RowsDataModel;
    translator?: ITranslator;
  }
}

/**
 * The explorer in a main-area tab, its toolbar filled.
 */
export function createExplorer(
  options: DataExplorer.IOptions
): MainAreaWidget<DataExplorer> {
  const content = new DataExplorer(options);
  // A plain toolbar: the default reactive one moves items into an overflow menu.
  const widget = new MainAreaWidget({
    content,
    toolbar: new Toolbar(),
    translator: options.translator
  });
  widget.addClass('jp-KernelState-explorerPanel');
  widget.id = `kernel-state-explorer-${options.kernelId}-${encodeURIComponent(
    options.name
  )}`;
  widget.title.label = options.name;
  const trans = (options.translator ?? nullTranslator).load(
    'jupyter_kernel_state'
  );
  widget.title.caption = trans.__('%1 — Data Explorer', options.name);
  widget.title.closable = true;
  for (const [name, item] of content.toolbarItems) {
    widget.toolbar.addItem(name, item);
    if (name === 'info') {
      widget.toolbar.addItem('spacer', Toolbar.createSpacerItem());
    }
  }
  return widget;
}

function button(label: string, testId: string): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'jp-Button jp-mod-styled jp-mod-reject';
  node.textContent = label;
  node.dataset.testId = testId;
  return node;
}
