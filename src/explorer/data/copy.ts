/**
 * Copying from the grid: the selected cells as tab-separated text — their full
 * values, as the model holds them — with the column names and row labels when asked.
 * Cells not loaded yet copy as empty; a selection past `MAX_COPY_CELLS` is refused.
 */
import { SelectionModel } from '@lumino/datagrid';

import { RowsDataModel } from './model';

/**
 * Cells one copy takes (the rest would be mostly not loaded: "…").
 */
export const MAX_COPY_CELLS = 100_000;

/**
 * The text of the selected cells; null for no selection, `tooMany` past the bound.
 */
export function selectionText(
  model: RowsDataModel,
  selection: SelectionModel | null,
  headers: boolean
): string | null | { tooMany: true } {
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
    return { tooMany: true };
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  const lines: string[] = [];
  if (headers) {
    const names = [text(model.info?.indexName ?? '')];
    for (let c = c1; c <= c2; c++) {
      names.push(model.column(model.positionAt('body', c))?.name ?? '');
    }
    lines.push(names.join('\t'));
  }
  for (let r = r1; r <= r2; r++) {
    const cells: string[] = headers
      ? [text(model.data('row-header', r, 0))]
      : [];
    for (let c = c1; c <= c2; c++) {
      cells.push(text(model.data('body', r, c)));
    }
    lines.push(cells.join('\t'));
  }
  return lines.join('\n');
}
