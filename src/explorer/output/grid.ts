/**
 * A table output of a notebook cell shown as the explorer's grid, in place: the
 * explorer (`../widget.ts`) in a compact frame of fixed height, reading windows from
 * the kernel by the cell's result handle (`_<n>`, IPython's `Out[n]`), with buttons to
 * go back to the static table and to open the same handle in a tab.
 *
 * Three modes: `grid` (the explorer shown, the static output hidden), `static` (the
 * output as the kernel rendered it, a button to show the grid) and `gone` (the kernel
 * no longer holds the result — deleted, past IPython's output cache, or a restarted
 * kernel: the static output with a line saying so). The explorer is built on first
 * show and read once: it is not reloaded on every toggle.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { MessageLoop } from '@lumino/messaging';
import { ISignal, Signal } from '@lumino/signaling';
import { Panel, Widget } from '@lumino/widgets';

import {
  MARK_OUTPUT_DATA,
  MARK_OUTPUT_PAINTED,
  markOutputGrid
} from '../../perf';
import { button, element } from '../dom';
import { ExplorerToolbar } from '../toolbar/toolbar';
import { DataExplorer } from '../widget';

export type OutputGridMode = 'grid' | 'static' | 'gone';

/**
 * The grid's frame at most (px): a longer table scrolls inside it; a shorter one (a
 * `head()`) gets the frame its rows need, not an empty box.
 */
export const MAX_OUTPUT_GRID_HEIGHT = 360;
const MIN_OUTPUT_GRID_HEIGHT = 140;
/**
 * Room for the horizontal scroll bar under the rows.
 */
const SCROLLBAR_ALLOWANCE = 16;

export class OutputGrid extends Panel {
  constructor(options: OutputGrid.IOptions) {
    super();
    // The explorer tab's button and toolbar styles apply to it too (style/explorer.css);
    // it is not an explorer panel (a tab), which tests and commands look for.
    this.addClass('jp-KernelState-outputGrid');
    this.node.dataset.testId = 'kernel-state-output-grid';
    this.handle = options.handle;
    this._staticOutput = options.staticOutput;
    this._createExplorer = options.createExplorer;
    const trans = options.trans;
    this._trans = trans;

    const bar = new Widget();
    bar.addClass('jp-KernelState-outputGridBar');
    this._toggle = button('', 'kernel-state-output-grid-toggle');
    this._toggle.addEventListener('click', () =>
      this.mode === 'grid' ? this.showStatic() : this.showGrid()
    );
    this._openButton = button(
      trans.__('Open in a tab'),
      'kernel-state-output-grid-open',
      { title: trans.__('Show this result in the Data Explorer, in a tab') }
    );
    this._openButton.addEventListener('click', () =>
      options.openInTab(this.handle)
    );
    // The filter bar folded in a cell's output: a button opens it (and a filter set from
    // a cell's context menu shows it).
    this._filterButton = button(
      trans.__('Filter'),
      'kernel-state-output-grid-filter',
      { title: trans.__('Show or hide the filter of this grid') }
    );
    this._filterButton.addEventListener('click', () => {
      const bar = this._explorer?.filterBar;
      if (bar) {
        this._showFilter(bar.isHidden);
      }
    });
    this._message = element('span', {
      className: 'jp-KernelState-outputGridMessage',
      testId: 'kernel-state-output-grid-message'
    });
    bar.node.append(
      this._toggle,
      this._openButton,
      this._filterButton,
      this._message
    );
    this._bar = bar;
    this.addWidget(bar);
    this._sync();
  }

  /**
   * The name the kernel holds the result under (`_12`).
   */
  readonly handle: string;

  get mode(): OutputGridMode {
    return this._mode;
  }

  /**
   * The explorer, once the grid was shown.
   */
  get explorer(): DataExplorer | null {
    return this._explorer;
  }

  /**
   * Emitted when the mode changes.
   */
  get modeChanged(): ISignal<this, OutputGridMode> {
    return this._modeChanged;
  }

  /**
   * Show the grid (built and read on first show); a result the kernel no longer holds
   * turns to `gone`.
   */
  showGrid(): void {
    if (this._mode === 'gone') {
      return;
    }
    if (!this._explorer) {
      this._build();
    }
    this._setMode('grid');
  }

  /**
   * Show the static table the kernel rendered.
   */
  showStatic(): void {
    if (this._mode !== 'gone') {
      this._setMode('static');
    }
  }

  /**
   * The kernel no longer holds the result (a 404, a restart): the static table, said.
   */
  markGone(): void {
    this._setMode('gone');
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._observer?.disconnect();
    this._staticOutput.show();
    super.dispose();
  }

  protected onAfterAttach(): void {
    if (typeof ResizeObserver !== 'undefined') {
      // The notebook does not pass sizes down to outputs: the explorer's box layout
      // and canvas follow this frame's width themselves.
      this._observer = new ResizeObserver(() => this._fit());
      this._observer.observe(this.node);
    }
    this._fit();
  }

  protected onBeforeDetach(): void {
    this._observer?.disconnect();
    this._observer = null;
  }

  private _build(): void {
    const explorer = this._createExplorer();
    explorer.addClass('jp-KernelState-outputGridExplorer');
    // Keys in the grid are the grid's: not the notebook's command-mode shortcuts
    // (arrows, Enter, A, B, D D); the explorer's own, bound below it, still apply.
    explorer.node.setAttribute('data-lm-suppress-shortcuts', 'true');
    const toolbar = new ExplorerToolbar();
    for (const [name, item] of explorer.toolbarItems) {
      toolbar.addItem(name, item);
    }
    this._explorer = explorer;
    this._toolbar = toolbar;
    this.addWidget(toolbar);
    this.addWidget(explorer);
    this._showFilter(false);
    explorer.model.stateChanged.connect(this._onModelState, this);
    explorer.grid.painted.connect(this._onPainted, this);
    void explorer.model.load();
  }

  private _onModelState(): void {
    const model = this._explorer!.model;
    if (model.errorStatus === 404) {
      this.markGone();
      return;
    }
    if (model.filter && this._explorer!.filterBar.isHidden) {
      this._showFilter(true);
    }
    if (model.info) {
      this._fitHeight();
    }
    if (model.info && !this._dataMarked) {
      this._dataMarked = true;
      markOutputGrid(MARK_OUTPUT_DATA, model.shownRows);
    }
  }

  private _onPainted(): void {
    const model = this._explorer!.model;
    if (this._dataMarked && !this._paintMarked && model.shownRows > 0) {
      this._paintMarked = true;
      markOutputGrid(MARK_OUTPUT_PAINTED, model.shownRows);
    }
  }

  private _showFilter(shown: boolean): void {
    this._explorer?.filterBar.setHidden(!shown);
    this._filterButton.setAttribute('aria-pressed', String(shown));
    this._fitHeight();
    this._fit();
  }

  /**
   * The frame's height: what the rows shown need (the header, the rows, a scroll bar,
   * and the explorer's own lines around the grid), at most MAX_OUTPUT_GRID_HEIGHT.
   */
  private _fitHeight(): void {
    const explorer = this._explorer;
    if (!explorer || !this.isAttached || explorer.isHidden) {
      return;
    }
    const grid = explorer.grid;
    const around = explorer.node.offsetHeight - grid.node.offsetHeight;
    if (around < 0 || grid.node.offsetHeight === 0) {
      return; // not laid out yet
    }
    const wanted =
      grid.headerHeight + grid.bodyHeight + SCROLLBAR_ALLOWANCE + around;
    const height = Math.round(
      Math.min(MAX_OUTPUT_GRID_HEIGHT, Math.max(MIN_OUTPUT_GRID_HEIGHT, wanted))
    );
    explorer.node.style.height = `${height}px`;
    explorer.node.style.minHeight = `${height}px`;
  }

  private _setMode(mode: OutputGridMode): void {
    if (mode === this._mode) {
      return;
    }
    this._mode = mode;
    this._sync();
    this._modeChanged.emit(mode);
  }

  private _sync(): void {
    const trans = this._trans;
    const grid = this._mode === 'grid';
    this.toggleClass('jp-mod-grid', grid);
    this._staticOutput.setHidden(grid);
    this._toolbar?.setHidden(!grid);
    this._explorer?.setHidden(!grid);
    this._toggle.textContent = grid
      ? trans.__('Show as static table')
      : trans.__('Show as grid');
    this._toggle.title = grid
      ? trans.__('Show the table as the kernel rendered it')
      : trans.__(
          'Sort, filter and scroll every row of this result, in the kernel'
        );
    const gone = this._mode === 'gone';
    this._toggle.hidden = gone;
    this._openButton.hidden = gone;
    this._filterButton.hidden = !grid;
    this._message.textContent = gone
      ? trans.__(
          "This output's value is gone (deleted, or past IPython's output cache): the static table is shown."
        )
      : '';
    if (grid) {
      this._fit();
    }
  }

  private _fit(): void {
    if (this._explorer && this._mode === 'grid' && this.isAttached) {
      MessageLoop.sendMessage(this._explorer, Widget.ResizeMessage.UnknownSize);
      MessageLoop.sendMessage(this._bar, Widget.ResizeMessage.UnknownSize);
    }
  }

  private _trans: TranslationBundle;
  private _staticOutput: Widget;
  private _createExplorer: () => DataExplorer;
  private _bar: Widget;
  private _toggle: HTMLButtonElement;
  private _openButton: HTMLButtonElement;
  private _filterButton: HTMLButtonElement;
  private _message: HTMLElement;
  private _explorer: DataExplorer | null = null;
  private _toolbar: ExplorerToolbar | null = null;
  private _observer: ResizeObserver | null = null;
  private _mode: OutputGridMode = 'static';
  private _modeChanged = new Signal<this, OutputGridMode>(this);
  private _dataMarked = false;
  private _paintMarked = false;
}

export namespace OutputGrid {
  export interface IOptions {
    /**
     * The name the kernel holds the result under (`_12`).
     */
    handle: string;
    /**
     * The output as the kernel rendered it (hidden while the grid shows).
     */
    staticOutput: Widget;
    /**
     * The explorer on the handle (built on first show).
     */
    createExplorer: () => DataExplorer;
    /**
     * Open the handle in the Data Explorer's tab.
     */
    openInTab: (handle: string) => void;
    trans: TranslationBundle;
  }
}
