/**
 * The explorer grid's mouse and keys. A plain click on a column header (not on its
 * resize edge) asks for the next sort of that column, with Shift for another key; a
 * hover shows what the canvas may cut (a header's name and dtype, a cell's whole
 * text); a context menu records its cell. Home/End go to the first or last column,
 * with Ctrl (⌘) the first or last row. Everything else is lumino's.
 */
import { BasicKeyHandler, BasicMouseHandler, DataGrid } from '@lumino/datagrid';
import { TranslationBundle } from '@jupyterlab/translation';

import { IGridHit } from './query';

/**
 * What the handlers ask of the explorer's grid.
 */
export interface IGridControl {
  readonly trans: TranslationBundle;
  /**
   * The cell under the last context menu, or null.
   */
  contextHit: IGridHit | null;
  /**
   * Keep the cursor in view while columns are sized.
   */
  followCursor: boolean;
  headerClicked(
    region: 'body' | 'row-header',
    column: number,
    add: boolean
  ): void;
  moveCursorTo(row: number, column: number): void;
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
export class HeaderClickHandler extends BasicMouseHandler {
  constructor(private readonly _grid: IGridControl) {
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
export class ExplorerKeyHandler extends BasicKeyHandler {
  constructor(private readonly _grid: IGridControl) {
    super();
  }

  onKeyDown(grid: DataGrid, event: KeyboardEvent): void {
    const model = grid.dataModel;
    const explorer = this._grid;
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
