/**
 * The explorer's grid: a `@lumino/datagrid` `DataGrid` that sorts on a click of a
 * column header (shift-click adds a key), says which rows and columns it shows after
 * each paint, remembers the cell of the last context menu, and keeps the cursor in
 * view while columns are sized. Its mouse and keys are in `gridInput.ts`, how it
 * paints (cell text, renderers, theme colours) in `cells.ts`.
 *
 * Pinned columns are columns 1… of the row-header region (frozen beside the row
 * labels), their names in the corner header.
 */
import { BasicSelectionModel, DataGrid, DataModel } from '@lumino/datagrid';
import { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';

import { ITheme, makeRenderers, measuringContext, readTheme } from './cells';
import {
  ExplorerKeyHandler,
  HeaderClickHandler,
  IGridControl
} from './gridInput';
import { DEFAULT_NUMBER_FORMAT, INumberFormat } from './numbers';
import { IGridHit, IVisibleRows } from './query';

export class ExplorerGrid extends DataGrid implements IGridControl {
  constructor(options: ExplorerGrid.IOptions) {
    const theme = readTheme();
    super({
      style: theme.style,
      defaultSizes: {
        rowHeight: 22,
        columnWidth: 110,
        rowHeaderWidth: 72,
        columnHeaderHeight: 22
      },
      minimumSizes: {
        rowHeight: 18,
        columnWidth: 40,
        rowHeaderWidth: 40,
        columnHeaderHeight: 18
      },
      headerVisibility: 'all',
      copyConfig: {
        separator: '\t',
        headers: 'none',
        // The full text, not the rounded number painted.
        format: ({ value }) => (typeof value === 'string' ? value : ''),
        warningThreshold: 100_000
      }
    });
    this._theme = theme;
    this.trans = options.trans;
    this._onHeaderClick = options.onHeaderClick;
    this._numberFormat = options.numberFormat ?? DEFAULT_NUMBER_FORMAT;
    this.cellRenderers = makeRenderers(theme, () => this._numberFormat);
    this.mouseHandler = new HeaderClickHandler(this);
    this.keyHandler = new ExplorerKeyHandler(this);
    this.addClass('jp-KernelState-explorerGrid');
  }

  readonly trans: TranslationBundle;

  /**
   * The cell under the last context menu, or null.
   */
  contextHit: IGridHit | null = null;

  /**
   * Keep the cursor in view while columns are sized (set by Home/End, cleared by
   * any other key, a click or the wheel).
   */
  followCursor = false;

  get numberFormat(): INumberFormat {
    return this._numberFormat;
  }

  /**
   * Numbers at another precision or grouping: repainted.
   */
  set numberFormat(format: INumberFormat) {
    if (
      format.digits === this._numberFormat.digits &&
      format.grouping === this._numberFormat.grouping
    ) {
      return;
    }
    this._numberFormat = format;
    this.repaintContent();
  }

  /**
   * Read the theme's colours again (after a theme change: the canvas does not follow
   * CSS by itself).
   */
  applyTheme(): void {
    this._theme = readTheme();
    this.style = this._theme.style;
    this.cellRenderers = makeRenderers(this._theme, () => this._numberFormat);
  }

  /**
   * Show a model, with a cell selection (arrows move it, Ctrl+C copies it).
   */
  setModel(model: DataModel): void {
    this.dataModel = model;
    this.selectionModel = new BasicSelectionModel({
      dataModel: model,
      selectionMode: 'cell'
    });
  }

  /**
   * Select one body cell, scroll to it, and keep it in view while the columns on the
   * way are sized (their windows arrive after the scroll).
   */
  moveCursorTo(row: number, column: number): void {
    this.selectionModel?.select({
      r1: row,
      c1: column,
      r2: row,
      c2: column,
      cursorRow: row,
      cursorColumn: column,
      clear: 'all'
    });
    this.scrollToCell(row, column);
    this.followCursor = true;
  }

  /**
   * Scroll a body column into view (at the left when it is far) and put the cursor
   * on it, in the rows shown.
   */
  goToColumn(column: number): void {
    const cursor = this.selectionModel?.cursorRow ?? -1;
    const row = cursor >= 0 ? cursor : (this.currentViewport?.firstRow ?? 0);
    const rows = this.dataModel?.rowCount('body') ?? 0;
    this.moveCursorTo(Math.max(0, Math.min(row, rows - 1)), column);
  }

  /**
   * After columns were sized: scroll again to the cursor when following it.
   */
  keepCursorInView(): void {
    if (this.followCursor) {
      const selection = this.selectionModel;
      if (
        selection &&
        selection.cursorRow >= 0 &&
        selection.cursorColumn >= 0
      ) {
        this.scrollToCell(selection.cursorRow, selection.cursorColumn);
      }
    }
  }

  /**
   * A header was clicked (a body column, or a pinned one of the row-header region).
   */
  headerClicked(
    region: 'body' | 'row-header',
    column: number,
    add: boolean
  ): void {
    this._onHeaderClick(region, column, add);
  }

  /**
   * Emitted after a paint (at most once a frame) with the body rows and columns
   * shown.
   */
  get painted(): ISignal<this, IVisibleRows | null> {
    return this._painted;
  }

  /**
   * The body rows and columns the viewport shows now, or null.
   */
  visibleRows(): IVisibleRows | null {
    const viewport = this.currentViewport;
    if (!viewport || viewport.lastRow < viewport.firstRow) {
      return null;
    }
    return {
      first: viewport.firstRow,
      last: viewport.lastRow,
      firstColumn: viewport.firstColumn,
      lastColumn: viewport.lastColumn
    };
  }

  /**
   * Measure a text in the body font (for column widths).
   */
  measure(text: string, header = false): number {
    const context = measuringContext();
    if (!context) {
      return text.length * 7.5;
    }
    context.font = header ? this._theme.headerFont : this._theme.font;
    return context.measureText(text).width;
  }

  /**
   * One paint for all the regions a block changes (body, row labels, headers): lumino
   * conflates requests of the whole grid, not of different regions, and each paint
   * ends in a copy of the whole canvas.
   */
  protected repaintRegion(): void {
    this.repaintContent();
  }

  protected paintContent(rx: number, ry: number, rw: number, rh: number): void {
    super.paintContent(rx, ry, rw, rh);
    if (this._frame === 0) {
      this._frame = requestAnimationFrame(() => {
        this._frame = 0;
        if (!this.isDisposed) {
          this._painted.emit(this.visibleRows());
        }
      });
    }
  }

  dispose(): void {
    if (this._frame !== 0) {
      cancelAnimationFrame(this._frame);
      this._frame = 0;
    }
    super.dispose();
  }

  private _theme: ITheme;
  private _numberFormat: INumberFormat;
  private _onHeaderClick: ExplorerGrid.IOptions['onHeaderClick'];
  private _frame = 0;
  private _painted = new Signal<this, IVisibleRows | null>(this);
}

export namespace ExplorerGrid {
  export interface IOptions {
    /**
     * A column header was clicked: a body column, or a pinned one (its column in the
     * row-header region); `add` with Shift.
     */
    onHeaderClick: (
      region: 'body' | 'row-header',
      column: number,
      add: boolean
    ) => void;
    trans: TranslationBundle;
    numberFormat?: INumberFormat;
  }
}
