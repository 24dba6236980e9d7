/**
 * The explorer's settings (`schema/explorer.json`): the summary panel's side and
 * whether it opens with each explorer, the numbers' precision and separators.
 */
import { DEFAULT_NUMBER_FORMAT, INumberFormat } from './data/numbers';

/**
 * The explorer's settings (`schema/explorer.json`).
 */
export interface IExplorerSettings {
  /**
   * The summary panel, on the left or right of the grid.
   */
  summaryPosition: 'left' | 'right';
  /**
   * Open the summary panel with each new explorer.
   */
  showSummary: boolean;
  /**
   * Significant digits of floats, and thousands separators.
   */
  numberFormat: INumberFormat;
  /**
   * A table a cell returns shown as the grid in the notebook ('on'), or the static
   * table with a button to show it ('off').
   */
  outputGrid: 'on' | 'off';
}

export const DEFAULT_EXPLORER_SETTINGS: IExplorerSettings = {
  summaryPosition: 'left',
  showSummary: true,
  numberFormat: DEFAULT_NUMBER_FORMAT,
  outputGrid: 'on'
};

/**
 * The explorer settings of a settings object (`schema/explorer.json`).
 */
export function readSettings(
  composite: Partial<Record<string, unknown>>
): IExplorerSettings {
  const digits = Number(composite.significantDigits);
  return {
    summaryPosition: composite.summaryPosition === 'right' ? 'right' : 'left',
    showSummary: composite.showSummary !== false,
    numberFormat: {
      digits: Number.isFinite(digits)
        ? Math.min(17, Math.max(1, Math.round(digits)))
        : DEFAULT_EXPLORER_SETTINGS.numberFormat.digits,
      grouping: composite.thousandsSeparator !== false
    },
    outputGrid: composite.outputGrid === 'off' ? 'off' : 'on'
  };
}
