/**
 * The data explorer's tab: one variable of a kernel in a lumino grid, and the
 * features around it — the toolbar's items (`toolbar/`), the filter bar (`filter/`),
 * the code of the view (`code/`), the data-quality findings (`findings/`), the banner
 * when the rows shown are no longer the variable's and the status line
 * (`data/status.ts`), the summary panel beside the grid (`summary/`). It builds them
 * on one model, routes what one asks of another (go to a column, filter to a cell's
 * value, sort by its column, copy, show a finding's rows), places the summary and
 * applies the settings.
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
import { BoxPanel, SplitPanel, Widget } from '@lumino/widgets';

import {
  CodeSyntax,
  ColumnFamily,
  FilterNode,
  ICodeQuery,
  IFindingsQuery,
  IProfileQuery,
  ITableFindings,
  ITableProfile,
  IViewCode
} from '../tokens';
import { CodePanel } from './code/panel';
import { findColumn } from './data/columns';
import { MAX_COPY_CELLS, selectionText } from './data/copy';
import { ExplorerGrid } from './data/grid';
import { RowsDataModel } from './data/model';
import { IGridHit, IVisibleRows } from './data/query';
import { ColumnSizer } from './data/sizing';
import { SortDirection } from './data/sort';
import { StaleBanner, StatusLine } from './data/status';
import { exceptValue, onlyValue } from './filter/draft';
import { FilterBar } from './filter/bar';
import { FindingsLoader, findingsVersion } from './findings/model';
import { FindingsPanel } from './findings/panel';
import { worstSeverity } from './findings/text';
import { DEFAULT_EXPLORER_SETTINGS, IExplorerSettings } from './settings';
import { SummaryPanel } from './summary/panel';
import { ProfileLoader } from './summary/profile';
import { ToolbarItems } from './toolbar/items';
import { ExplorerToolbar } from './toolbar/toolbar';

/**
 * Columns of the grid whose profiles are asked first, from the left of the view.
 */
const VISIBLE_PROFILES = 30;

const numberFormat = new Intl.NumberFormat('en-US');

export class DataExplorer extends BoxPanel {
  constructor(options: DataExplorer.IOptions) {
    super({ direction: 'top-to-bottom', spacing: 0 });
    this.addClass('jp-KernelState-explorer');
    this.name = options.name;
    this.kernelId = options.kernelId;
    this.path = options.path ?? null;
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
    const findings = options.findings;
    this.findings = new FindingsLoader({
      fetch:
        findings ??
        (() => Promise.reject(new Error(trans.__('No findings here')))),
      // After the rows, and the statistics the panel shows.
      idle: async () => {
        await this.model.settled();
        await this.profiles.settled();
      }
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
      trans,
      syntaxes: options.codeSyntaxes
    });
    this.code.hide();
    this.findingsPanel = new FindingsPanel({
      model: this.model,
      loader: this.findings,
      trans,
      showRows: filter => this.showRows(filter),
      insert: options.insertCode ?? (() => Promise.resolve(null)),
      onClose: () => this.toggleFindings(false)
    });
    this.findingsPanel.hide();

    this._banner = new StaleBanner({
      model: this.model,
      name: this.name,
      trans,
      onRefresh: () => void this.refresh()
    });

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
      numberFormat: this._settings.numberFormat,
      findings: this.findings
    });
    this._body = new SplitPanel({ orientation: 'horizontal', spacing: 3 });
    this._body.addClass('jp-KernelState-explorerBody');
    this._placeSummary();
    if (!this._settings.showSummary) {
      this.summary.hide();
    }

    this._status = new StatusLine({ model: this.model, trans });

    this.addWidget(this.filterBar);
    this.addWidget(this.code);
    this.addWidget(this.findingsPanel);
    this.addWidget(this._banner);
    this.addWidget(this._body);
    this.addWidget(this._status);
    BoxPanel.setStretch(this.filterBar, 0);
    BoxPanel.setStretch(this.code, 0);
    BoxPanel.setStretch(this.findingsPanel, 0);
    BoxPanel.setStretch(this._banner, 0);
    BoxPanel.setStretch(this._body, 1);
    BoxPanel.setStretch(this._status, 0);

    this._toolbar = new ToolbarItems({
      name: this.name,
      model: this.model,
      trans,
      onGoTo: text => void this.goToColumnNamed(text),
      onToggleSummary: () => this.toggleSummary(),
      onToggleCode: () => this.toggleCode(),
      onToggleFindings: () => this.toggleFindings(),
      onRefresh: () => void this.refresh()
    });
    this.toolbarItems = this._toolbar.items;
    this.findings.changed.connect(this._syncToggles, this);
    this._syncToggles();
    this._sizer = new ColumnSizer({
      grid: this.grid,
      model: this.model,
      numberFormat: () => this._settings.numberFormat
    });
    this.model.stateChanged.connect(this._onStateChanged, this);
    this._onStateChanged();
  }

  readonly name: string;
  /**
   * The kernel of the variable shown ('' for a file).
   */
  readonly kernelId: string;
  /**
   * The file shown (an API path under the server's root), or null for a variable.
   */
  readonly path: string | null;
  readonly model: RowsDataModel;
  readonly grid: ExplorerGrid;
  readonly filterBar: FilterBar;
  readonly summary: SummaryPanel;
  readonly profiles: ProfileLoader;
  readonly code: CodePanel;
  readonly findings: FindingsLoader;
  readonly findingsPanel: FindingsPanel;
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
    this._sizer.reset();
    this._sizer.fitAll();
  }

  /**
   * Read the variable again; the rows shown stay until the new ones arrive.
   */
  refresh(): Promise<void> {
    this._sizer.reset();
    this.profiles.reset();
    this.findings.reset();
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
   * Show or fold the findings.
   */
  toggleFindings(show = this.findingsPanel.isHidden): void {
    this.findingsPanel.setHidden(!show);
    this._syncToggles();
  }

  /**
   * Filter the grid to a filter's rows (a finding's "Show rows"; null: every row),
   * the filter bar showing it; false when the kernel refused it.
   */
  async showRows(filter: FilterNode | null): Promise<boolean> {
    await this.model.setFilter(filter);
    this.filterBar.syncFromModel();
    return this.model.filterError === null;
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
    const copied = selectionText(this.model, this.grid.selectionModel, headers);
    if (copied !== null && typeof copied !== 'string') {
      this._transient = this._trans.__(
        'Select at most %1 cells to copy',
        numberFormat.format(MAX_COPY_CELLS)
      );
      this._onStateChanged();
      return null;
    }
    if (copied !== null) {
      Clipboard.copyToSystem(copied);
    }
    return copied;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.profiles.dispose();
    this.findings.dispose();
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

  private _syncToggles(): void {
    this._toolbar.setPressed(!this.summary.isHidden, !this.code.isHidden);
    const found = this.findings.findings;
    this._toolbar.setFindings(
      !this.findingsPanel.isHidden,
      found?.findings_total ?? null,
      found ? worstSeverity(found.findings) : null
    );
  }

  private _onStateChanged(): void {
    const model = this.model;
    const info = model.info;
    this._toolbar.sync();
    this._banner.sync();
    this._status.sync(this._transient);

    // The statistics follow the view's rows: its filter, the value read.
    this.profiles.setFilter(model.filter);
    // The findings too, and of the value as it is now (a fix was run).
    this.findings.setFilter(model.filter);
    this.findings.setVersion(findingsVersion(model));
    const version = info ? `${info.changedAt}:${info.epoch}` : null;
    if (version !== this._profiledVersion) {
      if (this._profiledVersion !== null) {
        this.profiles.reset();
      }
      this._profiledVersion = version;
    }
    this._sizer.syncLayout();
  }

  private _onPainted(visible: IVisibleRows | null): void {
    this._status.showRange(visible);
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
  private _banner: StaleBanner;
  private _status: StatusLine;
  private _toolbar: ToolbarItems;
  private _sizer: ColumnSizer;
  private _transient: string | null = null;
  private _profiledVersion: string | null = null;
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
    /**
     * `IKernelStateService.findings` bound to the kernel and name.
     */
    findings?: (query: IFindingsQuery) => Promise<ITableFindings>;
    /**
     * A table file shown instead of a variable (`files/source.ts`): its API path.
     */
    path?: string;
    /**
     * The syntaxes the code offers whatever the table's engine (a file's loading
     * code: pandas, polars, DuckDB, dplyr).
     */
    codeSyntaxes?: readonly CodeSyntax[];
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
  const path = options.path;
  widget.id = path
    ? `kernel-state-explorer-file-${encodeURIComponent(path)}`
    : `kernel-state-explorer-${options.kernelId}-${encodeURIComponent(
        options.name
      )}`;
  widget.title.label = path ? (path.split('/').pop() ?? path) : options.name;
  const trans = (options.translator ?? nullTranslator).load(
    'jupyter_kernel_state'
  );
  widget.title.caption = trans.__('%1 — Data Explorer', path ?? options.name);
  widget.title.closable = true;
  for (const [name, item] of content.toolbarItems) {
    widget.toolbar.addItem(name, item);
  }
  return widget;
}
