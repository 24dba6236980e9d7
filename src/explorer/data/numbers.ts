/**
 * Numbers at a readable precision: the kernel sends each cell's full text
 * (`6949.488000000001`); the grid shows it rounded to a number of significant digits
 * (`6,949.49`), never rounding away digits of the integer part, with thousands
 * separators. The full text stays the cell's value: it is what a tooltip shows and
 * what a copy gives.
 */
import { isIntegerDtype, isNumericDtype } from '../dtypes';

export interface INumberFormat {
  /**
   * Significant digits of a float (1–17).
   */
  digits: number;
  /**
   * Thousands separators.
   */
  grouping: boolean;
}

export const DEFAULT_NUMBER_FORMAT: INumberFormat = {
  digits: 6,
  grouping: true
};

const INTEGER = /^[-+]?\d+$/;
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i;
/**
 * Past these magnitudes a float is written with an exponent.
 */
const LARGE = 1e15;
const SMALL = 1e-4;

/**
 * The text shown for a cell of a column of `dtype`: numbers formatted, anything
 * else (missing values, `inf`, `nan`, complex numbers, text) as it came.
 */
export function formatCell(
  text: string,
  dtype: string | null | undefined,
  format: INumberFormat = DEFAULT_NUMBER_FORMAT
): string {
  if (!isNumericDtype(dtype)) {
    return text;
  }
  if (INTEGER.test(text)) {
    return format.grouping ? groupDigits(text) : text;
  }
  if (isIntegerDtype(dtype) || !DECIMAL.test(text)) {
    return text;
  }
  return formatFloat(Number(text), format);
}

/**
 * A float at `format.digits` significant digits (the integer part whole), with an
 * exponent past 1e15 or below 1e-4.
 */
export function formatFloat(
  value: number,
  format: INumberFormat = DEFAULT_NUMBER_FORMAT
): string {
  if (!Number.isFinite(value)) {
    return String(value);
  }
  const digits = Math.min(17, Math.max(1, Math.round(format.digits)));
  const magnitude = Math.abs(value);
  if (magnitude === 0) {
    return '0';
  }
  if (magnitude >= LARGE || magnitude < SMALL) {
    const [mantissa, exponent] = value.toExponential(digits - 1).split('e');
    const trimmed = mantissa.includes('.')
      ? mantissa.replace(/\.?0+$/, '')
      : mantissa;
    return `${trimmed}e${exponent}`;
  }
  const integerDigits = Math.floor(Math.log10(magnitude)) + 1;
  return formatter(
    integerDigits >= digits ? 0 : null,
    digits,
    format.grouping
  ).format(value);
}

/**
 * `1234567` → `1,234,567` (on the text: int64 beyond 2^53 stays exact).
 */
export function groupDigits(text: string): string {
  const sign = /^[-+]/.test(text) ? text[0] : '';
  const digits = sign ? text.slice(1) : text;
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(
  fractionDigits: number | null,
  digits: number,
  grouping: boolean
): Intl.NumberFormat {
  const key = `${fractionDigits}:${digits}:${grouping}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.NumberFormat(
      'en-US',
      fractionDigits === null
        ? { maximumSignificantDigits: digits, useGrouping: grouping }
        : { maximumFractionDigits: fractionDigits, useGrouping: grouping }
    );
    formatters.set(key, found);
  }
  return found;
}
