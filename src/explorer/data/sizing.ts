/**
 * Column auto-sizing of the explorer's grid: each column is sized once, when its
 * name and first cells are known — its header and a sample of its cells as painted,
 * within bounds — and a user's resize is kept. The row labels and the pinned columns
 * are sized likewise. A new layout (pinned, hidden, shown columns), new settings or a
 * refresh size the columns again.
 */
import { DataModel } from '@lumino/datagrid';

import { cellText } from './cells';
import { ExplorerGrid } from './grid';
import { RowsDataModel } from './model';
import { INumberFormat } from './numbers';

const MIN_COLUMN_WIDTH = 60;
const MAX_COLUMN_WIDTH = 360;
const CELL_PADDING = 20;
/**
 * Rows of a block sampled to size a column.
 */
const SAMPLE_ROWS = 50;

export class ColumnSizer {
  constructor(options: ColumnSizer.IOptions) {
    this._grid = options.grid;
    this._model = options.model;
    this._numberFormat = options.numberFormat;
    this._model.changed.connect(this._onDataChanged, this);
  }

  /**
   * Size every column again (the sizes kept are forgotten first by `reset`).
   */
  fitAll(): void {
    this._fitRowHeader();
    this._fitPinned();
    const layout = this._model.layout;
    for (const column of this._model.knownColumns()) {
      const view = layout.viewOf(column.position);
      if (view >= 0) {
        this._fitColumns(view, view + 1);
      }
    }
  }

  /**
   * Forget which columns were sized: each is sized again when next seen.
   */
  reset(): void {
    this._sized.clear();
  }

  /**
   * Forget the sizes when the model's column layout changed.
   */
  syncLayout(): void {
    if (this._layoutVersion !== this._model.layout.version) {
      this._layoutVersion = this._model.layout.version;
      this._sized.clear();
    }
  }

  private _onDataChanged(_: DataModel, args: DataModel.ChangedArgs): void {
    if (args.type === 'model-reset') {
      this.fitAll();
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

  /**
   * The width of a column: its header and a sample of its cells as painted, within
   * bounds.
   */
  private _columnWidth(
    region: 'body' | 'row-header',
    column: number
  ): number | null {
    const model = this._model;
    const grid = this._grid;
    const meta = model.column(model.positionAt(region, column));
    if (!meta) {
      return null;
    }
    const format = this._numberFormat();
    let width =
      Math.max(
        grid.measure(`${meta.name} ▼9`, true) + 4,
        grid.measure(meta.dtype ?? '', true)
      ) + CELL_PADDING;
    const rows = Math.min(SAMPLE_ROWS, model.rowCount('body'));
    for (let row = 0; row < rows; row++) {
      const value = model.data(region, row, column);
      if (typeof value === 'string') {
        width = Math.max(
          width,
          grid.measure(cellText(value, meta.dtype, format)) + CELL_PADDING
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
    const layout = this._model.layout;
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
      this._grid.resizeColumn('body', column, width);
    }
    this._grid.keepCursorInView();
  }

  private _fitPinned(): void {
    const count = this._model.columnCount('row-header');
    for (let column = 1; column < count; column++) {
      const width = this._columnWidth('row-header', column);
      if (width !== null) {
        this._grid.resizeColumn('row-header', column, width);
      }
    }
  }

  private _fitRowHeader(): void {
    const model = this._model;
    const grid = this._grid;
    const info = model.info;
    if (!info) {
      return;
    }
    let width = grid.measure(String(Math.max(0, model.shownRows - 1)));
    const rows = Math.min(SAMPLE_ROWS, model.rowCount('body'));
    for (let row = 0; row < rows; row++) {
      const label = model.data('row-header', row, 0);
      if (typeof label === 'string') {
        width = Math.max(width, grid.measure(label));
      }
    }
    if (info.indexName) {
      width = Math.max(width, grid.measure(info.indexName, true));
    }
    grid.resizeColumn(
      'row-header',
      0,
      Math.round(Math.min(240, Math.max(48, width + CELL_PADDING)))
    );
  }

  private _grid: ExplorerGrid;
  private _model: RowsDataModel;
  private _numberFormat: () => INumberFormat;
  private _layoutVersion = 0;
  private _sized = new Set<number>();
}

export namespace ColumnSizer {
  export interface IOptions {
    grid: ExplorerGrid;
    model: RowsDataModel;
    /**
     * The numbers' format now (the settings may change it).
     */
    numberFormat: () => INumberFormat;
  }
}
