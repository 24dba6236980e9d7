/**
 * The explorer's grid: a `@lumino/datagrid` `DataGrid` that sorts on a click of a
 * column header and says which rows it shows after each paint; its cell renderers and
 * colours (read from JupyterLab's theme variables: the grid paints on a canvas).
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

import { ICellMetadata } from './query';

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
  return !!dtype && /^(u?int|float|complex|decimal|i\d|u\d|f\d)/i.test(dtype);
}

/**
 * The rows a grid shows: first and last body row, or null when none.
 */
export interface IVisibleRows {
  first: number;
  last: number;
}

/**
 * The mouse handler: a plain click on a column header (not on its resize edge) asks
 * for the next sort of that column; everything else is lumino's.
 */
class HeaderClickHandler extends BasicMouseHandler {
  constructor(
    private readonly _onHeaderClick: (column: number) => void,
    private readonly _trans: TranslationBundle
  ) {
    super();
  }

  /**
   * A tooltip (text) with what the canvas may cut: the column's name and dtype, a
   * cell's whole text.
   */
  onMouseHover(grid: DataGrid, event: MouseEvent): void {
    super.onMouseHover(grid, event);
    const model = grid.dataModel;
    const hit = grid.hitTest(event.clientX, event.clientY);
    let title = '';
    if (model && hit.region === 'column-header') {
      const name = model.data('column-header', 0, hit.column);
      const dtype = model.data('column-header', 1, hit.column);
      if (typeof name === 'string') {
        const lines = [name];
        if (typeof dtype === 'string' && dtype) {
          lines.push(dtype);
        }
        lines.push(this._trans.__('Click to sort'));
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
    const hit = grid.hitTest(event.clientX, event.clientY);
    const onEdge = hit.x <= 6 || hit.width - hit.x <= 7;
    if (hit.region === 'column-header' && !onEdge && event.button === 0) {
      this._press = { column: hit.column, x: event.clientX, y: event.clientY };
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
      if (
        hit.region === 'column-header' &&
        hit.column === press.column &&
        still
      ) {
        this._onHeaderClick(press.column);
      }
      return;
    }
    super.onMouseUp(grid, event);
  }

  private _press: { column: number; x: number; y: number } | null = null;
}

/**
 * lumino's keys (arrows, pages, Ctrl+C copies the selection) and Home/End: the first
 * or last column, with Ctrl (⌘) the first or last row.
 */
class ExplorerKeyHandler extends BasicKeyHandler {
  onKeyDown(grid: DataGrid, event: KeyboardEvent): void {
    const model = grid.dataModel;
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
    selection?.select({
      r1: row,
      c1: column,
      r2: row,
      c2: column,
      cursorRow: row,
      cursorColumn: column,
      clear: 'all'
    });
    grid.scrollToCell(row, column);
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
        format: ({ value }) => (typeof value === 'string' ? value : ''),
        warningThreshold: 100_000
      }
    });
    this.cellRenderers = makeRenderers(theme);
    this.mouseHandler = new HeaderClickHandler(
      options.onHeaderClick,
      options.trans
    );
    this.keyHandler = new ExplorerKeyHandler();
    this.addClass('jp-KernelState-explorerGrid');
  }

  /**
   * Read the theme's colours again (after a theme change: the canvas does not follow
   * CSS by itself).
   */
  applyTheme(): void {
    this._theme = readTheme();
    this.style = this._theme.style;
    this.cellRenderers = makeRenderers(this._theme);
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
   * Emitted after a paint (at most once a frame) with the body rows shown.
   */
  get painted(): ISignal<this, IVisibleRows | null> {
    return this._painted;
  }

  /**
   * The body rows the viewport shows now, or null.
   */
  visibleRows(): IVisibleRows | null {
    const viewport = this.currentViewport;
    if (!viewport || viewport.lastRow < viewport.firstRow) {
      return null;
    }
    return { first: viewport.firstRow, last: viewport.lastRow };
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

  private _theme = readTheme();
  private _frame = 0;
  private _painted = new Signal<this, IVisibleRows | null>(this);
}

export namespace ExplorerGrid {
  export interface IOptions {
    /**
     * A column header was clicked (its body column).
     */
    onHeaderClick: (column: number) => void;
    trans: TranslationBundle;
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

function makeRenderers(theme: ITheme): RendererMap {
  const missing = (config: CellRenderer.CellConfig) =>
    config.value === null || config.value === undefined;
  const dtype = (config: CellRenderer.CellConfig) =>
    (config.metadata as ICellMetadata).dtype;
  const body = new TextRenderer({
    font: config => (missing(config) ? `italic ${theme.font}` : theme.font),
    textColor: config => (missing(config) ? theme.muted : theme.text),
    horizontalAlignment: config =>
      isNumeric(dtype(config)) ? 'right' : 'left',
    format: config =>
      config.value === undefined
        ? PLACEHOLDER
        : config.value === null
          ? nullText(dtype(config))
          : String(config.value)
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
  const rowHeader = new TextRenderer({
    font: theme.font,
    textColor: config =>
      config.value === undefined ? theme.muted : theme.text,
    horizontalAlignment: 'right',
    format: placeholderOr
  });
  const corner = new TextRenderer({
    font: `italic ${theme.headerFont}`,
    textColor: theme.muted,
    format: placeholderOr
  });
  return new RendererMap({
    body,
    'column-header': columnHeader,
    'row-header': rowHeader,
    'corner-header': corner
  });
}

let measuring: CanvasRenderingContext2D | null | undefined;

function measuringContext(): CanvasRenderingContext2D | null {
  if (measuring === undefined) {
    measuring = document.createElement('canvas').getContext('2d');
  }
  return measuring;
}
