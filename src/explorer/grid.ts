/**
 * The explorer's grid: a `@lumino/datagrid` `DataGrid` that sorts on a click of a
 * column header (shift-click adds a key), says which rows and columns it shows after
 * each paint, remembers the cell of the last context menu, and keeps the cursor in
 * view while columns are sized; its cell renderers (numbers at a readable precision)
 * and colours (read from JupyterLab's theme variables: the grid paints on a canvas).
 *
 * Pinned columns are columns 1… of the row-header region (frozen beside the row
 * labels), their names in the corner header.
 */
import {
  BasicKeyHandler,
  BasicMouseHandler,
  BasicSelectionModel,
  CellRenderer,
  DataGrid,
  DataModel,
  RendererMap,
  TextRenderer
} from '@lumino/datagrid';
import { TranslationBundle } from '@jupyterlab/translation';
import { ISignal, Signal } from '@lumino/signaling';

import { DEFAULT_NUMBER_FORMAT, formatCell, INumberFormat } from './numbers';
import { ICellMetadata, isNumericDtype } from './query';

/**
 * The text of a cell not loaded yet.
 */
export const PLACEHOLDER = '…';

/**
 * The text of a missing value, by dtype.
 */
export function nullText(dtype: string | null | undefined): string {
  if (!dtype) {
    return 'null';
  }
  if (/^(float|complex)/i.test(dtype)) {
    return 'NaN';
  }
  if (/^(datetime|timedelta|date|duration)/i.test(dtype)) {
    return 'NaT';
  }
  return 'null';
}

/**
 * Whether a dtype holds numbers (right-aligned).
 */
export function isNumeric(dtype: string | null | undefined): boolean {
  return isNumericDtype(dtype);
}

/**
 * The rows and body columns a grid shows: first and last of each.
 */
export interface IVisibleRows {
  first: number;
  last: number;
  firstColumn?: number;
  lastColumn?: number;
}

/**
 * A cell of the grid: its region and row and column in that region.
 */
export interface IGridHit {
  region: DataModel.CellRegion;
  row: number;
  column: number;
}

/**
 * Whether a hit is a column's header: in the column header, or a pinned column's in
 * the corner.
 */
function isHeader(hit: DataGrid.HitTestResult): boolean {
  return (
    hit.region === 'column-header' ||
    (hit.region === 'corner-header' && hit.column > 0)
  );
}

/**
 * The mouse handler: a plain click on a column header (not on its resize edge) asks
 * for the next sort of that column, with Shift for another key; a context menu
 * records its cell (and selects it when outside the selection); everything else is
 * lumino's.
 */
class HeaderClickHandler extends BasicMouseHandler {
  constructor(private readonly _grid: ExplorerGrid) {
    super();
  }

  /**
   * A tooltip (text) with what the canvas may cut or round: the column's name and
   * dtype, a cell's whole text.
   */
  onMouseHover(grid: DataGrid, event: MouseEvent): void {
    super.onMouseHover(grid, event);
    const model = grid.dataModel;
    const hit = grid.hitTest(event.clientX, event.clientY);
    const trans = this._grid.trans;
    let title = '';
    if (model && isHeader(hit)) {
      const region = hit.region as 'column-header' | 'corner-header';
      const name = model.data(region, 0, hit.column);
      const dtype = model.data(region, 1, hit.column);
      if (typeof name === 'string') {
        const lines = [name];
        if (typeof dtype === 'string' && dtype) {
          lines.push(dtype);
        }
        lines.push(trans.__('Click to sort, Shift+click to add a sort key'));
        title = lines.join('\n');
      }
    } else if (
      model &&
      (hit.region === 'body' || hit.region === 'row-header')
    ) {
      const value = model.data(hit.region, hit.row, hit.column);
      title = typeof value === 'string' ? value : '';
    }
    if (grid.viewport.node.title !== title) {
      grid.viewport.node.title = title;
    }
  }

  onMouseDown(grid: DataGrid, event: MouseEvent): void {
    this._grid.followCursor = false;
    const hit = grid.hitTest(event.clientX, event.clientY);
    const onEdge = hit.x <= 6 || hit.width - hit.x <= 7;
    if (isHeader(hit) && !onEdge && event.button === 0) {
      this._press = {
        region: hit.region,
        column: hit.column,
        x: event.clientX,
        y: event.clientY
      };
      return;
    }
    this._press = null;
    super.onMouseDown(grid, event);
  }

  onMouseUp(grid: DataGrid, event: MouseEvent): void {
    const press = this._press;
    this._press = null;
    if (press) {
      const hit = grid.hitTest(event.clientX, event.clientY);
      const still =
        Math.abs(event.clientX - press.x) < 5 &&
        Math.abs(event.clientY - press.y) < 5;
      if (hit.region === press.region && hit.column === press.column && still) {
        this._grid.headerClicked(
          press.region === 'corner-header' ? 'row-header' : 'body',
          press.column,
          event.shiftKey
        );
      }
      return;
    }
    super.onMouseUp(grid, event);
  }

  onContextMenu(grid: DataGrid, event: MouseEvent): void {
    const hit = grid.hitTest(event.clientX, event.clientY);
    this._grid.contextHit =
      hit.region === 'void'
        ? null
        : { region: hit.region, row: hit.row, column: hit.column };
    const selection = grid.selectionModel;
    if (
      selection &&
      hit.region === 'body' &&
      !selection.isCellSelected(hit.row, hit.column)
    ) {
      selection.select({
        r1: hit.row,
        c1: hit.column,
        r2: hit.row,
        c2: hit.column,
        cursorRow: hit.row,
        cursorColumn: hit.column,
        clear: 'all'
      });
    }
    super.onContextMenu(grid, event);
  }

  onWheel(grid: DataGrid, event: WheelEvent): void {
    this._grid.followCursor = false;
    super.onWheel(grid, event);
  }

  private _press: {
    region: DataGrid.HitTestResult['region'];
    column: number;
    x: number;
    y: number;
  } | null = null;
}

/**
 * lumino's keys (arrows, pages, Ctrl+C copies the selection) and Home/End: the first
 * or last column, with Ctrl (⌘) the first or last row; the cursor then stays in view
 * while the columns it passed are sized.
 */
class ExplorerKeyHandler extends BasicKeyHandler {
  onKeyDown(grid: DataGrid, event: KeyboardEvent): void {
    const model = grid.dataModel;
    const explorer = grid as ExplorerGrid;
    explorer.followCursor = false;
    if ((event.key !== 'Home' && event.key !== 'End') || !model) {
      super.onKeyDown(grid, event);
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    const toEnd = event.key === 'End';
    const selection = grid.selectionModel;
    let row = Math.max(0, selection?.cursorRow ?? 0);
    let column = Math.max(0, selection?.cursorColumn ?? 0);
    if (event.ctrlKey || event.metaKey) {
      row = toEnd ? model.rowCount('body') - 1 : 0;
    } else {
      column = toEnd ? model.columnCount('body') - 1 : 0;
    }
    if (row < 0 || column < 0) {
      return;
    }
    explorer.moveCursorTo(row, column);
  }
}

export class ExplorerGrid extends DataGrid {
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
    this.keyHandler = new ExplorerKeyHandler();
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

interface ITheme {
  style: DataGrid.Style;
  font: string;
  headerFont: string;
  text: string;
  muted: string;
}

/**
 * The grid's colours and fonts from JupyterLab's CSS variables (light or dark theme).
 */
function readTheme(): ITheme {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) =>
    css.getPropertyValue(name).trim() || fallback;
  const size = read('--jp-ui-font-size1', '13px');
  const font = `${size} ${read('--jp-code-font-family', 'monospace')}`;
  const headerFont = `${size} ${read('--jp-ui-font-family', 'sans-serif')}`;
  const border = read('--jp-border-color2', '#e0e0e0');
  return {
    font,
    headerFont,
    text: read('--jp-ui-font-color0', '#000'),
    muted: read('--jp-ui-font-color3', '#9e9e9e'),
    style: {
      ...DataGrid.defaultStyle,
      voidColor: read('--jp-layout-color0', '#fff'),
      backgroundColor: read('--jp-layout-color0', '#fff'),
      headerBackgroundColor: read('--jp-layout-color2', '#eee'),
      gridLineColor: border,
      headerGridLineColor: read('--jp-border-color1', '#bdbdbd'),
      selectionFillColor: 'rgba(33, 150, 243, 0.15)',
      selectionBorderColor: read('--jp-brand-color1', '#1976d2'),
      cursorBorderColor: read('--jp-brand-color1', '#1976d2'),
      headerSelectionFillColor: 'rgba(33, 150, 243, 0.1)',
      headerSelectionBorderColor: read('--jp-brand-color1', '#1976d2'),
      rowBackgroundColor: i =>
        i % 2 === 0 ? 'rgba(0, 0, 0, 0)' : 'rgba(128, 128, 128, 0.06)'
    }
  };
}

/**
 * The text a cell paints: numbers formatted, missing values by dtype, "…" while
 * loading.
 */
export function cellText(
  value: unknown,
  dtype: string | null | undefined,
  format: INumberFormat
): string {
  if (value === undefined) {
    return PLACEHOLDER;
  }
  if (value === null) {
    return nullText(dtype);
  }
  return formatCell(String(value), dtype, format);
}

function makeRenderers(
  theme: ITheme,
  numberFormat: () => INumberFormat
): RendererMap {
  const missing = (config: CellRenderer.CellConfig) =>
    config.value === null || config.value === undefined;
  const dtype = (config: CellRenderer.CellConfig) =>
    (config.metadata as ICellMetadata).dtype;
  const body = new TextRenderer({
    font: config => (missing(config) ? `italic ${theme.font}` : theme.font),
    textColor: config => (missing(config) ? theme.muted : theme.text),
    horizontalAlignment: config =>
      isNumeric(dtype(config)) ? 'right' : 'left',
    format: config => cellText(config.value, dtype(config), numberFormat())
  });
  const placeholderOr = (config: CellRenderer.CellConfig) =>
    config.value === undefined
      ? PLACEHOLDER
      : config.value === null
        ? 'null'
        : String(config.value);
  const columnHeader = new TextRenderer({
    font: config =>
      config.row === 0 ? `bold ${theme.headerFont}` : theme.headerFont,
    textColor: config =>
      config.row === 0 && config.value !== undefined ? theme.text : theme.muted,
    format: placeholderOr
  });
  const rowLabel = new TextRenderer({
    font: theme.font,
    textColor: config =>
      config.value === undefined ? theme.muted : theme.text,
    horizontalAlignment: 'right',
    format: placeholderOr
  });
  const indexName = new TextRenderer({
    font: `italic ${theme.headerFont}`,
    textColor: theme.muted,
    format: placeholderOr
  });
  return new RendererMap({
    body,
    // Column 0: the row labels; 1…: the pinned columns.
    'column-header': columnHeader,
    'row-header': config => (config.column === 0 ? rowLabel : body),
    'corner-header': config => (config.column === 0 ? indexName : columnHeader)
  });
}

let measuring: CanvasRenderingContext2D | null | undefined;

function measuringContext(): CanvasRenderingContext2D | null {
  if (measuring === undefined) {
    measuring = document.createElement('canvas').getContext('2d');
  }
  return measuring;
}
