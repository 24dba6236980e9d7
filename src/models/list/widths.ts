/**
 * The widths of the variable list's columns: the columns whose width can be changed
 * (the preview takes the rest), their bounds, and the widths read from the settings
 * (any JSON: known keys with numbers, clamped; defaults else).
 */
import { DEFAULT_COLUMN_WIDTHS as DEFAULT_WIDTHS_SETTING } from '../../defaults';

/**
 * The columns of the list whose width can be changed (the preview takes the rest).
 */
export type ColumnKey = 'name' | 'type' | 'shape' | 'memory';

export type ColumnWidths = Record<ColumnKey, number>;

export const DEFAULT_COLUMN_WIDTHS: Readonly<ColumnWidths> =
  DEFAULT_WIDTHS_SETTING;

export const MIN_COLUMN_WIDTH = 40;
export const MAX_COLUMN_WIDTH = 800;

/**
 * The width clamped to the bounds, whole pixels.
 */
export function clampWidth(width: number): number {
  if (!Number.isFinite(width)) {
    return MIN_COLUMN_WIDTH;
  }
  return Math.round(
    Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width))
  );
}

/**
 * Widths from settings (any JSON): known keys with numbers, clamped; defaults else.
 */
export function readWidths(value: unknown): ColumnWidths {
  const widths = { ...DEFAULT_COLUMN_WIDTHS };
  if (value && typeof value === 'object') {
    for (const key of Object.keys(widths) as ColumnKey[]) {
      const width = (value as Record<string, unknown>)[key];
      if (typeof width === 'number') {
        widths[key] = clampWidth(width);
      }
    }
  }
  return widths;
}
