/**
 * The variable list's layout maths: row heights, the row at a scroll offset, row ids.
 */
import * as React from 'react';

import { IListRow } from '../models/list/removed';

/**
 * Row heights: one line (columns), two lines (compact), and the changes line.
 */
export const ROW_HEIGHT = 24;
export const COMPACT_ROW_HEIGHT = 40;
export const CHANGES_LINE_HEIGHT = 18;

/**
 * Room the preview needs beside the sized columns before the list goes compact.
 */
export const PREVIEW_MIN_WIDTH = 80;

export type ListLayout = 'columns' | 'compact';

export function rowHeightOf(row: IListRow, lineHeight: number): number {
  return (
    lineHeight +
    (!row.removed && row.variable.changes?.length ? CHANGES_LINE_HEIGHT : 0)
  );
}

/**
 * The index of the row at `y` (offsets ascending, one more than the rows).
 */
export function indexAt(offsets: number[], y: number): number {
  let low = 0;
  let high = offsets.length - 2;
  if (high < 0) {
    return 0;
  }
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid] <= y) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

export function rowId(index: number): string {
  return `jp-KernelState-row-${index}`;
}

export function isRowTarget(event: React.KeyboardEvent): boolean {
  return !!(event.target as HTMLElement).closest?.(
    '[data-test-id="kernel-state-row"]'
  );
}
