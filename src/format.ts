/**
 * Pure helpers that turn payload fields into short display text.
 */
import { IVariable } from './tokens';

/**
 * `3×1` for a shape, the length for a sized value, else an empty string.
 */
export function formatShape(
  variable: Pick<IVariable, 'shape' | 'size'>
): string {
  if (variable.shape && variable.shape.length > 0) {
    return variable.shape.map(n => n.toLocaleString('en-US')).join('×');
  }
  if (variable.size !== null && variable.size !== undefined) {
    return variable.size.toLocaleString('en-US');
  }
  return '';
}

/**
 * `512 KiB` style sizes.
 */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) {
    return '';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * Whether a variable matches a filter on its name or type. Without `*` the filter is a
 * case-insensitive substring; with `*` it is a whole-string wildcard pattern.
 */
export function makeFilter(
  pattern: string
): (v: Pick<IVariable, 'name' | 'type'>) => boolean {
  const text = pattern.trim().toLowerCase();
  if (!text) {
    return () => true;
  }
  if (!text.includes('*')) {
    return v =>
      v.name.toLowerCase().includes(text) ||
      v.type.toLowerCase().includes(text);
  }
  const source = text
    .split('*')
    .map(part => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = new RegExp(`^${source}$`, 'i');
  return v => regex.test(v.name) || regex.test(v.type);
}

const NAME_CHAR = /[\p{L}\p{N}_.]/u;
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/**
 * The variable name a selection or cursor points at in `source`: the selected text
 * between `from` and `to` when it is an identifier, else (a cursor) the head of the
 * dotted name around `from` — `sales` for a cursor anywhere in `sales.units.sum`.
 * Null when there is none.
 */
export function identifierAt(
  source: string,
  from: number,
  to: number = from
): string | null {
  let text: string;
  if (to > from) {
    text = source.slice(from, to).trim();
  } else {
    let start = from;
    while (start > 0 && NAME_CHAR.test(source[start - 1])) {
      start--;
    }
    let end = from;
    while (end < source.length && NAME_CHAR.test(source[end])) {
      end++;
    }
    text = source.slice(start, end).replace(/^\.+/, '').split('.')[0];
  }
  return text.length > 0 && text.length <= 256 && IDENTIFIER.test(text)
    ? text
    : null;
}
