/**
 * The data explorer's main-area content: one variable of a kernel in a lumino grid,
 * with a toolbar (name, type, size, sort keys, go to column, hidden columns, summary,
 * code, refresh), a filter bar, the code of the view, a banner when the rows shown
 * are no longer the variable's, the summary panel beside the grid, and a status line
 * (errors, the rows in view; for a table in an engine, which engine computes it, what
 * its last query took, and a Count button while the rows are not counted).
 *
 * Everything put in the DOM is text (`textContent`): names and cells come from the
 * kernel. The grid itself paints text on a canvas.
 */
import { Clipboard, MainAreaWidget } from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { Toolbar } from '@jupyterlab/ui-components';
import { DataModel } from '@lumino/datagrid';
import { Message, MessageLoop } from '@lumino/messaging';
import { BoxPanel, SplitPanel, Widget } from '@lumino/widgets';

import {
  ColumnFamily,
  ICodeQuery,
  IEngineInfo,
  IProfileQuery,
  ITableProfile,
  IViewCode
} from '../tokens';
import { CodePanel } from './codePanel';
import { FilterBar } from './filterBar';
import { exceptValue, filterText, onlyValue } from './filters';
import { cellText, ExplorerGrid, IGridHit, IVisibleRows } from './grid';
import { RowsDataModel } from './model';
import { DEFAULT_NUMBER_FORMAT, INumberFormat } from './numbers';
import { ProfileLoader } from './profile';
import { IEngineCost, SortDirection, StaleReason } from './query';
import { SummaryPanel } from './summary';

const MIN_COLUMN_WIDTH = 60;
const MAX_COLUMN_WIDTH = 360;
const CELL_PADDING = 20;
/**
 * Rows of a block sampled to size a column.
 */
const SAMPLE_ROWS = 50;
/**
 * Cells one copy takes (the rest would be mostly not loaded: "…").
 */
export const MAX_COPY_CELLS = 100_000;
/**
 * Columns of the grid whose profiles are asked first, from the left of the view.
 */
const VISIBLE_PROFILES = 30;

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * The explorer's settings (`schema/explorer.json`).
 */
export interface IExplorerSettings {
  /**
   * The summary panel, on the left or right of the grid.
   */
  summaryPosition: 'left' | 'right';
  /**
   * Open the summary panel with each new explorer.
   */
  showSummary: boolean;
  /**
   * Significant digits of floats, and thousands separators.
   */
  numberFormat: INumberFormat;
}

export const DEFAULT_EXPLORER_SETTINGS: IExplorerSettings = {
  summaryPosition: 'left',
  showSummary: true,
  numberFormat: DEFAULT_NUMBER_FORMAT
};

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
 * `Rows 1–25 of 1,000,000 · index 0 … 24` (positions 1-based, labels as in the table);
 * not `counted`, `total` is the rows read so far: `Rows 1–25 of 200 read so far`.
 */
export function rangeText(
  trans: TranslationBundle,
  visible: IVisibleRows | null,
  total: number,
  firstLabel: string | null | undefined,
  lastLabel: string | null | undefined,
  counted = true
): string {
  if (!visible || (total === 0 && counted)) {
    return total === 0 && counted ? trans.__('No rows') : '';
  }
  const first = numberFormat.format(Math.min(visible.first + 1, total));
  const last = numberFormat.format(Math.min(visible.last + 1, total));
  const rows = counted
    ? trans.__('Rows %1–%2 of %3', first, last, numberFormat.format(total))
    : trans.__(
        'Rows %1–%2 of %3 read so far',
        first,
        last,
        numberFormat.format(total)
      );
  return typeof firstLabel === 'string' && typeof lastLabel === 'string'
    ? trans.__('%1 · index %2 … %3', rows, firstLabel, lastLabel)
    : rows;
}

/**
 * `lazy — computed by DuckDB`: where the rows of an engine table come from.
 */
export function engineText(
  trans: TranslationBundle,
  engine: IEngineInfo
): string {
  return trans.__('lazy — computed by %1', engine.title);
}

/**
 * `last window: 12 ms`: what the engine's last query took.
 */
export function costText(trans: TranslationBundle, cost: IEngineCost): string {
  const ms = numberFormat.format(cost.ms);
  switch (cost.what) {
    case 'count':
      return trans.__('last count: %1 ms', ms);
    case 'profile':
      return trans.__('last statistics: %1 ms', ms);
    default:
      return trans.__('last window: %1 ms', ms);
  }
}

/**
 * `price ▼, region ▲`.
 */
export function sortText(
  keys: readonly { column: string; direction: SortDirection }[]
): string {
  return keys
    .map(key => `${key.column} ${key.direction === 'asc' ? '▲' : '▼'}`)
    .join(', ');
}

/**
 * The column a name asked for is: the exact name, else the first starting with it,
 * else the first containing it (case-insensitive); or null.
 */
export function findColumn(
  columns: { name: string; position: number }[],
  text: string
): number | null {
  const wanted = text.trim();
  if (!wanted) {
    return null;
  }
  const lower = wanted.toLowerCase();
  const exact = columns.find(column => column.name === wanted);
  const prefix = columns.find(column =>
    column.name.toLowerCase().startsWith(lower)
  );
  const inside = columns.find(column =>
    column.name.toLowerCase().includes(lower)
  );
  return (exact ?? prefix ?? inside)?.position ?? null;
}

export class DataExplorer extends BoxPanel {
  constructor(options: DataExplorer.IOptions) {
    super({ direction: 'top-to-bottom', spacing: 0 });
    this.addClass('jp-KernelState-explorer');
    this.name = options.name;
    this.kernelId = options.kernelId;
    this.model = options.model;
    this._settings = options.settings ?? DEFAULT_EXPLORER_SETTINGS;
    const trans = (options.translator ?? nullTranslator).load(
      'jupyter_kernel_state'
    );
    this._trans = trans;

    const profile = options.profile;
    this.profiles = new ProfileLoader({
      fetch: profile
        ? async query => {
            const answer = await profile(query);
            this.model.noteCost('profile', answer.engine?.cost_ms);
            return answer;
          }
        : () => Promise.reject(new Error(trans.__('No statistics here'))),
      idle: () => this.model.settled()
    });

    this.filterBar = new FilterBar({
      model: this.model,
      trans,
      familyOf: column => this._familyOf(column)
    });
    this.code = new CodePanel({
      model: this.model,
      fetch:
        options.code ??
        (() => Promise.reject(new Error(trans.__('No code here')))),
      insert: options.insertCode ?? (() => Promise.resolve(null)),
      onClose: () => this.toggleCode(false),
      trans
    });
    this.code.hide();

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
      onHeaderClick: (region, column, add) => {
        const position = this.model.positionAt(region, column);
        if (position >= 0) {
          this.model.clickSort(position, add);
        }
      },
      trans,
      numberFormat: this._settings.numberFormat
    });
    this.grid.node.dataset.testId = 'kernel-state-explorer-grid';
    this.grid.setModel(this.model);
    this.grid.painted.connect((_, visible) => this._onPainted(visible));

    this.summary = new SummaryPanel({
      model: this.model,
      loader: this.profiles,
      trans,
      onGoTo: position => this.goToColumn(position),
      numberFormat: this._settings.numberFormat
    });
    this._body = new SplitPanel({ orientation: 'horizontal', spacing: 3 });
    this._body.addClass('jp-KernelState-explorerBody');
    this._placeSummary();
    if (!this._settings.showSummary) {
      this.summary.hide();
    }

    const footer = new Widget();
    footer.addClass('jp-KernelState-explorerFooter');
    this._status = document.createElement('span');
    this._status.className = 'jp-KernelState-explorerStatus';
    this._status.dataset.testId = 'kernel-state-explorer-status';
    this._status.setAttribute('role', 'status');
    this._range = document.createElement('span');
    this._range.className = 'jp-KernelState-explorerRange';
    this._range.dataset.testId = 'kernel-state-explorer-range';
    footer.node.append(this._status, this._makeEngineLine(), this._range);

    this.addWidget(this.filterBar);
    this.addWidget(this.code);
    this.addWidget(this._banner);
    this.addWidget(this._body);
    this.addWidget(footer);
    BoxPanel.setStretch(this.filterBar, 0);
    BoxPanel.setStretch(this.code, 0);
    BoxPanel.setStretch(this._banner, 0);
    BoxPanel.setStretch(this._body, 1);
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
  readonly filterBar: FilterBar;
  readonly summary: SummaryPanel;
  readonly profiles: ProfileLoader;
  readonly code: CodePanel;
  /**
   * The widgets `createExplorer` puts in the main-area toolbar, by name.
   */
  readonly toolbarItems: [string, Widget][];

  get settings(): IExplorerSettings {
    return this._settings;
  }

  /**
   * New settings: the summary's side, the numbers' precision.
   */
  set settings(settings: IExplorerSettings) {
    const moved = settings.summaryPosition !== this._settings.summaryPosition;
    this._settings = settings;
    this.grid.numberFormat = settings.numberFormat;
    this.summary.numberFormat = settings.numberFormat;
    if (moved) {
      this._placeSummary();
    }
    this._sized.clear();
    this._fitAll();
  }

  /**
   * Read the variable again; the rows shown stay until the new ones arrive.
   */
  refresh(): Promise<void> {
    this._sized.clear();
    this.profiles.reset();
    return this.model.refresh();
  }

  /**
   * Show or fold the summary panel.
   */
  toggleSummary(show = !this.summary.isVisible): void {
    this.summary.setHidden(!show);
    this._syncToggles();
    if (show) {
      this._wantVisibleProfiles(this.grid.visibleRows());
    }
  }

  /**
   * Show or fold the code of the view.
   */
  toggleCode(show = this.code.isHidden): void {
    this.code.setHidden(!show);
    this._syncToggles();
  }

  /**
   * Show the column at a table position in the grid (shown again if hidden), the
   * cursor on it.
   */
  goToColumn(position: number): boolean {
    const layout = this.model.layout;
    if (layout.isHidden(position)) {
      this.model.showColumn(position);
    }
    if (layout.isPinned(position)) {
      return true;
    }
    const view = layout.viewOf(position);
    if (view < 0 || view >= this.model.columnCount('body')) {
      return false;
    }
    this.grid.goToColumn(view);
    this.grid.activate();
    return true;
  }

  /**
   * Go to the column named `text` (exact, prefix, then part of a name), reading the
   * names not known yet first.
   */
  async goToColumnNamed(text: string): Promise<boolean> {
    let position = findColumn(this.model.knownColumns(), text);
    const info = this.model.info;
    if (
      position === null &&
      info &&
      this.model.knownColumns().length < info.columnsTotal
    ) {
      await this.model.loadNames();
      position = findColumn(this.model.knownColumns(), text);
    }
    if (position === null) {
      this._transient = this._trans.__('No column named “%1”', text);
      this._onStateChanged();
      return false;
    }
    this._transient = null;
    return this.goToColumn(position);
  }

  /**
   * The table position of a grid cell (body, pinned, or their headers), or -1.
   */
  positionOf(hit: IGridHit | null): number {
    if (!hit) {
      return -1;
    }
    switch (hit.region) {
      case 'body':
      case 'column-header':
        return this.model.positionAt('body', hit.column);
      case 'row-header':
      case 'corner-header':
        return this.model.positionAt('row-header', hit.column);
      default:
        return -1;
    }
  }

  /**
   * The value of a cell (of the body or a pinned column), or undefined when it is not
   * a loaded value cell.
   */
  valueAt(hit: IGridHit | null): string | null | undefined {
    if (
      !hit ||
      (hit.region !== 'body' &&
        !(hit.region === 'row-header' && hit.column > 0))
    ) {
      return undefined;
    }
    return this.model.data(hit.region, hit.row, hit.column);
  }

  /**
   * "Filter to this value" (or with `exclude` "Exclude this value") for a cell.
   */
  async filterByCell(hit: IGridHit | null, exclude: boolean): Promise<boolean> {
    const value = this.valueAt(hit);
    const column = this.model.column(this.positionOf(hit));
    if (value === undefined || !column) {
      return false;
    }
    return this.filterBar.add(
      exclude ? exceptValue(column.name, value) : onlyValue(column.name, value)
    );
  }

  /**
   * Sort by the column of a cell alone, in a direction.
   */
  sortByColumn(hit: IGridHit | null, direction: SortDirection): boolean {
    const column = this.model.column(this.positionOf(hit));
    if (!column) {
      return false;
    }
    this.model.setSort([{ column: column.name, direction }]);
    return true;
  }

  /**
   * Copy the selected cells as tab-separated text — their full values — with the
   * column names and row labels when `headers`. Cells not loaded yet copy as empty.
   */
  copySelection(headers: boolean): string | null {
    const selection = this.grid.selectionModel;
    if (!selection || selection.isEmpty) {
      return null;
    }
    let r1 = Infinity;
    let r2 = -1;
    let c1 = Infinity;
    let c2 = -1;
    for (const region of selection.selections()) {
      r1 = Math.min(r1, region.r1, region.r2);
      r2 = Math.max(r2, region.r1, region.r2);
      c1 = Math.min(c1, region.c1, region.c2);
      c2 = Math.max(c2, region.c1, region.c2);
    }
    r1 = Math.max(0, r1);
    c1 = Math.max(0, c1);
    if ((r2 - r1 + 1) * (c2 - c1 + 1) > MAX_COPY_CELLS) {
      this._transient = this._trans.__(
        'Select at most %1 cells to copy',
        numberFormat.format(MAX_COPY_CELLS)
      );
      this._onStateChanged();
      return null;
    }
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    const lines: string[] = [];
    if (headers) {
      const names = [text(this.model.info?.indexName ?? '')];
      for (let c = c1; c <= c2; c++) {
        names.push(
          this.model.column(this.model.positionAt('body', c))?.name ?? ''
        );
      }
      lines.push(names.join('\t'));
    }
    for (let r = r1; r <= r2; r++) {
      const cells: string[] = headers
        ? [text(this.model.data('row-header', r, 0))]
        : [];
      for (let c = c1; c <= c2; c++) {
        cells.push(text(this.model.data('body', r, c)));
      }
      lines.push(cells.join('\t'));
    }
    const copied = lines.join('\n');
    Clipboard.copyToSystem(copied);
    return copied;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.profiles.dispose();
    this.model.dispose();
    super.dispose();
  }

  private _placeSummary(): void {
    const left = this._settings.summaryPosition === 'left';
    const widgets = left
      ? [this.summary, this.grid]
      : [this.grid, this.summary];
    widgets.forEach((widget, index) => this._body.insertWidget(index, widget));
    this._body.setRelativeSizes(left ? [1, 3] : [3, 1]);
    SplitPanel.setStretch(this.summary, 0);
    SplitPanel.setStretch(this.grid, 1);
    this.summary.node.classList.toggle('jp-mod-left', left);
  }

  /**
   * The family of a column for the filter's operators: the profile's, when known.
   */
  private _familyOf(column: string): ColumnFamily | null {
    return this.profiles.profileNamed(column)?.family ?? null;
  }

  private _makeToolbar(): [string, Widget][] {
    const trans = this._trans;
    const info = new Widget();
    info.addClass('jp-KernelState-explorerInfo');
    const name = document.createElement('span');
    name.className = 'jp-KernelState-explorerName';
    name.textContent = this.name;
    name.title = this.name; // cut with an ellipsis in a narrow tab
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

    const columns = new Widget();
    columns.addClass('jp-KernelState-explorerColumns');
    const goTo = document.createElement('input');
    goTo.type = 'search';
    goTo.className = 'jp-KernelState-explorerGoTo';
    goTo.placeholder = trans.__('Go to column');
    goTo.setAttribute('aria-label', trans.__('Go to column'));
    goTo.dataset.testId = 'kernel-state-explorer-goto';
    goTo.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        void this.goToColumnNamed(goTo.value);
      }
    });
    this._showHidden = button('', 'kernel-state-explorer-show-hidden');
    this._showHidden.addEventListener('click', () =>
      this.model.showAllColumns()
    );
    columns.node.append(goTo, this._showHidden);

    const views = new Widget();
    views.addClass('jp-KernelState-explorerViews');
    this._summaryToggle = button(
      trans.__('Summary'),
      'kernel-state-explorer-summary-button'
    );
    this._summaryToggle.title = trans.__(
      'Show or hide the statistics of the columns'
    );
    this._summaryToggle.addEventListener('click', () => this.toggleSummary());
    this._codeToggle = button(
      trans.__('Code'),
      'kernel-state-explorer-code-button'
    );
    this._codeToggle.title = trans.__(
      'Show the code of this view (filter, sort, columns)'
    );
    this._codeToggle.addEventListener('click', () => this.toggleCode());
    views.node.append(this._summaryToggle, this._codeToggle);

    const refresh = new Widget();
    const refreshButton = button(
      trans.__('Refresh'),
      'kernel-state-explorer-refresh'
    );
    refreshButton.title = trans.__('Read the rows from the kernel again');
    refreshButton.addEventListener('click', () => void this.refresh());
    refresh.node.append(refreshButton);
    this._syncToggles();
    return [
      ['info', info],
      ['sort', sort],
      ['columns', columns],
      ['views', views],
      ['refresh', refresh]
    ];
  }

  /**
   * The engine's part of the status line (hidden for a value in memory): which
   * engine computes the rows, "not counted" with a Count button, what the last query
   * took.
   */
  private _makeEngineLine(): HTMLElement {
    const trans = this._trans;
    this._engine.className = 'jp-KernelState-explorerEngine';
    this._engine.dataset.testId = 'kernel-state-explorer-engine';
    this._engineName.dataset.testId = 'kernel-state-explorer-engine-name';
    this._notCounted.className = 'jp-KernelState-explorerNotCounted';
    this._notCounted.dataset.testId = 'kernel-state-explorer-not-counted';
    this._notCounted.textContent = trans.__('not counted');
    this._countButton = button(
      trans.__('Count'),
      'kernel-state-explorer-count'
    );
    this._countButton.title = trans.__(
      'Count the rows in the engine (cancelled past its time guard)'
    );
    this._countButton.addEventListener('click', () => void this.model.count());
    this._cost.className = 'jp-KernelState-explorerCost';
    this._cost.dataset.testId = 'kernel-state-explorer-cost';
    this._engine.append(
      this._engineName,
      this._notCounted,
      this._countButton,
      this._cost
    );
    this._engine.hidden = true;
    return this._engine;
  }

  private _syncEngine(): void {
    const trans = this._trans;
    const model = this.model;
    const engine = model.info?.engine ?? null;
    this._engine.hidden = engine === null;
    if (engine === null) {
      return;
    }
    this._engineName.textContent = engineText(trans, engine);
    this._engineName.title = engine.location ?? '';
    const counted = model.viewRows !== null;
    this._notCounted.hidden = counted;
    this._countButton!.style.display = counted ? 'none' : '';
    this._countButton!.disabled = model.counting;
    this._countButton!.textContent = model.counting
      ? trans.__('Counting…')
      : trans.__('Count');
    const cost = model.lastCost;
    this._cost.textContent = cost ? costText(trans, cost) : '';
  }

  private _syncToggles(): void {
    this._summaryToggle?.setAttribute(
      'aria-pressed',
      String(!this.summary.isHidden)
    );
    this._codeToggle?.setAttribute('aria-pressed', String(!this.code.isHidden));
  }

  private _onStateChanged(): void {
    const trans = this._trans;
    const model = this.model;
    const info = model.info;
    this._type!.textContent = info
      ? trans.__('%1 · %2', info.type, info.kind)
      : '';
    this._type!.title = this._type!.textContent;
    this._size!.textContent = info
      ? sizeText(
          trans,
          info.filtered ? info.totalRows : model.viewRows,
          info.columnsTotal,
          info.filtered ? model.viewRows : null,
          info.filtered
        )
      : '';
    const filter = model.filter;
    this._size!.title = filter
      ? trans.__('Filtered: %1', filterText(filter, trans))
      : '';
    const keys = model.sort;
    this._sortText!.textContent = keys.length
      ? trans.__('Sorted by %1', sortText(keys))
      : trans.__('Unsorted');
    this._sortText!.title = keys.length
      ? trans.__(
          'Sorted by the kernel; click a header to sort by it alone, Shift+click to add or reverse a key'
        )
      : trans.__(
          'Click a column header to sort (in the kernel), Shift+click to add a key'
        );
    // `hidden` loses against the button's own display rule.
    this._clearSort!.style.display = keys.length === 0 ? 'none' : '';
    const hidden = model.layout.hiddenCount;
    this._showHidden!.textContent = trans._n(
      '%1 hidden column: show',
      '%1 hidden columns: show all',
      hidden
    );
    this._showHidden!.style.display = hidden === 0 ? 'none' : '';

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
    let error = false;
    if (model.retrying) {
      status = trans.__('The kernel is busy — trying again shortly…');
    } else if (
      (model.error || model.queryError || model.countError) &&
      reason !== 'removed'
    ) {
      // A refused window, a sort given up, a count cancelled in the engine.
      status = (model.error ?? model.queryError ?? model.countError)!;
      error = true;
    } else if (this._transient) {
      status = this._transient;
      error = true;
    } else if (info?.stale) {
      status = trans.__('The kernel is busy: rows as of an earlier execution.');
    } else if (!info && !model.error) {
      status = trans.__('Loading…');
    }
    this._status.classList.toggle('jp-mod-error', error);
    this._status.textContent = status;
    this._syncEngine();

    // The statistics follow the view's rows: its filter, the value read.
    this.profiles.setFilter(filter);
    const version = info ? `${info.changedAt}:${info.epoch}` : null;
    if (version !== this._profiledVersion) {
      if (this._profiledVersion !== null) {
        this.profiles.reset();
      }
      this._profiledVersion = version;
    }
    if (this._layoutVersion !== model.layout.version) {
      this._layoutVersion = model.layout.version;
      this._sized.clear();
    }
  }

  private _onDataChanged(_: DataModel, args: DataModel.ChangedArgs): void {
    if (args.type === 'model-reset') {
      this._fitAll();
    } else if (
      args.type === 'cells-changed' &&
      args.region === 'column-header'
    ) {
      this._fitColumns(args.column, args.column + args.columnSpan);
    } else if (
      args.type === 'cells-changed' &&
      args.region === 'corner-header'
    ) {
      this._fitPinned();
    }
  }

  private _fitAll(): void {
    this._fitRowHeader();
    this._fitPinned();
    const layout = this.model.layout;
    for (const column of this.model.knownColumns()) {
      const view = layout.viewOf(column.position);
      if (view >= 0) {
        this._fitColumns(view, view + 1);
      }
    }
  }

  /**
   * The width of a column: its header and a sample of its cells as painted, within
   * bounds.
   */
  private _columnWidth(
    region: 'body' | 'row-header',
    column: number
  ): number | null {
    const model = this.model;
    const meta = model.column(model.positionAt(region, column));
    if (!meta) {
      return null;
    }
    const format = this._settings.numberFormat;
    let width =
      Math.max(
        this.grid.measure(`${meta.name} ▼9`, true) + 4,
        this.grid.measure(meta.dtype ?? '', true)
      ) + CELL_PADDING;
    const rows = Math.min(SAMPLE_ROWS, model.rowCount('body'));
    for (let row = 0; row < rows; row++) {
      const value = model.data(region, row, column);
      if (typeof value === 'string') {
        width = Math.max(
          width,
          this.grid.measure(cellText(value, meta.dtype, format)) + CELL_PADDING
        );
      }
    }
    return Math.round(
      Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width))
    );
  }

  /**
   * Size each column once, when its name and first cells are known. A user's resize
   * is kept. The cursor stays in view (End, Ctrl+End) while columns are sized.
   */
  private _fitColumns(from: number, to: number): void {
    const layout = this.model.layout;
    for (let column = from; column < to; column++) {
      const position = layout.positionOf(column);
      if (this._sized.has(position)) {
        continue;
      }
      const width = this._columnWidth('body', column);
      if (width === null) {
        continue;
      }
      this._sized.add(position);
      this.grid.resizeColumn('body', column, width);
    }
    this.grid.keepCursorInView();
  }

  private _fitPinned(): void {
    const count = this.model.columnCount('row-header');
    for (let column = 1; column < count; column++) {
      const width = this._columnWidth('row-header', column);
      if (width !== null) {
        this.grid.resizeColumn('row-header', column, width);
      }
    }
  }

  private _fitRowHeader(): void {
    const info = this.model.info;
    if (!info) {
      return;
    }
    let width = this.grid.measure(
      String(Math.max(0, this.model.shownRows - 1))
    );
    const rows = Math.min(SAMPLE_ROWS, this.model.rowCount('body'));
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

  private _onPainted(visible: IVisibleRows | null): void {
    const counted = this.model.viewRows !== null;
    // Not counted: the last row is the one that reads the next window.
    const total = this.model.rowCount('body') - (counted ? 0 : 1);
    const label = (row: number) => this.model.data('row-header', row, 0);
    this._range.textContent = rangeText(
      this._trans,
      visible,
      total,
      visible ? label(visible.first) : null,
      visible ? label(Math.min(visible.last, total - 1)) : null,
      counted
    );
    this._range.dataset.lastRow = visible ? String(visible.last) : '';
    this._wantVisibleProfiles(visible);
  }

  /**
   * The statistics of the columns the grid shows first (when the panel is open).
   */
  private _wantVisibleProfiles(visible: IVisibleRows | null): void {
    if (this.summary.isHidden || !this.model.info) {
      return;
    }
    const positions = [...this.model.layout.pinned];
    if (visible && visible.firstColumn !== undefined) {
      const last = Math.min(
        visible.lastColumn ?? visible.firstColumn,
        visible.firstColumn + VISIBLE_PROFILES - 1
      );
      for (let column = visible.firstColumn; column <= last; column++) {
        positions.push(this.model.positionAt('body', column));
      }
    }
    this.profiles.want(positions, true);
  }

  private _trans: TranslationBundle;
  private _settings: IExplorerSettings;
  private _body: SplitPanel;
  private _banner: Widget;
  private _bannerText: HTMLSpanElement;
  private _status: HTMLSpanElement;
  private _range: HTMLSpanElement;
  private _engine = document.createElement('span');
  private _engineName = document.createElement('span');
  private _notCounted = document.createElement('span');
  private _countButton: HTMLButtonElement | null = null;
  private _cost = document.createElement('span');
  private _type: HTMLSpanElement | null = null;
  private _size: HTMLSpanElement | null = null;
  private _sortText: HTMLSpanElement | null = null;
  private _clearSort: HTMLButtonElement | null = null;
  private _showHidden: HTMLButtonElement | null = null;
  private _summaryToggle: HTMLButtonElement | null = null;
  private _codeToggle: HTMLButtonElement | null = null;
  private _transient: string | null = null;
  private _profiledVersion: string | null = null;
  private _layoutVersion = 0;
  private _sized = new Set<number>();
}

export namespace DataExplorer {
  export interface IOptions {
    name: string;
    kernelId: string;
    model: RowsDataModel;
    translator?: ITranslator;
    settings?: IExplorerSettings;
    /**
     * `IKernelStateService.profile` bound to the kernel and name.
     */
    profile?: (query: IProfileQuery) => Promise<ITableProfile>;
    /**
     * `IKernelStateService.code` bound to the kernel and name.
     */
    code?: (query: ICodeQuery) => Promise<IViewCode>;
    /**
     * Insert code below the active cell of the notebook running the kernel.
     */
    insertCode?: (code: string) => Promise<string | null>;
  }
}

/**
 * The explorer in a main-area tab, its toolbar filled.
 */
export function createExplorer(
  options: DataExplorer.IOptions
): MainAreaWidget<DataExplorer> {
  const content = new DataExplorer(options);
  // Not the default reactive toolbar: it moves items into an overflow menu.
  const widget = new MainAreaWidget({
    content,
    toolbar: new ExplorerToolbar(),
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
  }
  return widget;
}

/**
 * The explorer's toolbar. The name, type and size give way first (cut with an
 * ellipsis); when the tab is still too narrow, the items wrap onto more lines and
 * the toolbar tells its layout how tall that makes it: a main-area toolbar is only
 * as tall as its minimum height and clips the rest, which would leave the buttons of
 * a second line unseen and unreachable.
 */
export class ExplorerToolbar extends Toolbar<Widget> {
  constructor() {
    super();
    this.addClass('jp-KernelState-explorerToolbar');
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (typeof ResizeObserver !== 'undefined') {
      // A new width, or an item's new text (sort keys, hidden columns), may rewrap.
      this._observer = new ResizeObserver(() => this._fit());
      this._observer.observe(this.node);
      for (const item of this.children()) {
        this._observer.observe(item.node);
      }
    }
    this._fit();
  }

  protected onBeforeDetach(msg: Message): void {
    this._observer?.disconnect();
    this._observer = null;
    super.onBeforeDetach(msg);
  }

  protected onChildAdded(msg: Widget.ChildMessage): void {
    super.onChildAdded(msg);
    this._observer?.observe(msg.child.node);
  }

  /**
   * The toolbar's layout has just set the one-line minimum: keep the wrapped one.
   */
  protected onFitRequest(msg: Message): void {
    super.onFitRequest(msg);
    this._apply();
  }

  /**
   * Measure the lines the items take.
   */
  private _fit(): void {
    const node = this.node;
    const top = node.getBoundingClientRect().top;
    let bottom = top;
    let line = 0;
    for (const item of this.children()) {
      const rect = item.node.getBoundingClientRect();
      if (!item.isHidden && rect.height > 0) {
        bottom = Math.max(bottom, rect.bottom);
        line = Math.max(line, rect.height);
      }
    }
    if (line === 0) {
      return; // not laid out (detached, hidden)
    }
    const border = parseFloat(getComputedStyle(node).borderBottomWidth) || 0;
    this._wrapped =
      bottom - top > line + 1 ? Math.ceil(bottom - top + border) : null;
    this._apply();
  }

  /**
   * The minimum height: the lines' when the items wrap, else the theme's toolbar
   * height (as the toolbar's layout sets it).
   */
  private _apply(): void {
    const minHeight =
      this._wrapped === null
        ? 'var(--jp-private-toolbar-height)'
        : `${this._wrapped}px`;
    if (this.node.style.minHeight !== minHeight) {
      this.node.style.minHeight = minHeight;
      if (this.parent) {
        MessageLoop.postMessage(this.parent, Widget.Msg.FitRequest);
      }
    }
  }

  private _observer: ResizeObserver | null = null;
  private _wrapped: number | null = null;
}

function button(label: string, testId: string): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.className = 'jp-Button jp-mod-styled jp-mod-reject';
  node.textContent = label;
  node.dataset.testId = testId;
  return node;
}
