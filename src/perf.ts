/**
 * Performance marks for the first-paint benchmark (`benchmarks/ui/first_paint.spec.ts`):
 * `kernel-state:data` when a new snapshot has been parsed, `kernel-state:painted` once
 * the list showing it has been painted. Only the latest mark of each name is kept, so
 * the timeline does not grow with the session.
 */
export const MARK_DATA = 'kernel-state:data';
export const MARK_PAINTED = 'kernel-state:painted';

/**
 * The notebook's output grid (`explorer/output/grid.ts`): its first window parsed, and
 * the first frame painted after it.
 */
export const MARK_OUTPUT_DATA = 'kernel-state:output-grid-data';
export const MARK_OUTPUT_PAINTED = 'kernel-state:output-grid-painted';

/**
 * Mark one of the output grid's moments (only the latest of each name is kept).
 */
export function markOutputGrid(name: string, rows: number): void {
  mark(name, { rows });
}

function mark(name: string, detail: Record<string, number>): void {
  if (typeof performance === 'undefined' || !performance.mark) {
    return;
  }
  performance.clearMarks(name);
  performance.mark(name, { detail });
}

/**
 * A new snapshot was parsed (not a 304).
 */
export function markSnapshotData(variables: number): void {
  mark(MARK_DATA, { variables });
}

/**
 * Call after React committed a list of `total` variables with `rows` rows rendered:
 * the mark is set after the next frame has been painted (a task queued from
 * `requestAnimationFrame` runs after that frame's paint).
 */
export function markPaintedAfterFrame(rows: number, total: number): void {
  if (typeof requestAnimationFrame === 'undefined') {
    return;
  }
  requestAnimationFrame(() => {
    setTimeout(() => mark(MARK_PAINTED, { rows, total }), 0);
  });
}
