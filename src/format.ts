/**
 * Pure helpers that turn payload fields into short display text.
 */
import { IVariable } from './tokens';

/**
 * `3×1` for a shape (`?×3` when an engine did not count the rows), the length for a
 * sized value, else an empty string.
 */
export function formatShape(
  variable: Pick<IVariable, 'shape' | 'size'>
): string {
  if (variable.shape && variable.shape.length > 0) {
    return variable.shape
      .map(n => (n === null ? '?' : n.toLocaleString('en-US')))
      .join('×');
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

/**
 * What the list and the inspector show for a masked (likely secret) value.
 */
export const MASKED_TEXT = '•••••• (masked)';

/**
 * Whether a variable's value must not be shown: the server masked it, or (an older
 * server) flagged it as a likely secret. Never revealed by default.
 */
export function isMasked(
  variable: Pick<IVariable, 'likely_secret'> & { masked?: boolean }
): boolean {
  return variable.masked === true || variable.likely_secret;
}

/**
 * The list's preview text of a variable: masked when it is a likely secret.
 */
export function previewText(
  variable: Pick<IVariable, 'preview' | 'likely_secret'> & { masked?: boolean }
): string {
  return isMasked(variable) ? MASKED_TEXT : variable.preview;
}

/**
 * `512 KiB`-style memory of a variable, or '' when unknown.
 */
export function formatMemory(memory: number | null | undefined): string {
  return formatBytes(memory);
}

/**
 * Distinct parts of an error text, joined once: `repr timed out; repr timed out`
 * gives `repr timed out`.
 */
export function dedupeError(text: string | null | undefined): string | null {
  if (!text) {
    return null;
  }
  const parts: string[] = [];
  for (const part of text.split(/;\s*/)) {
    const trimmed = part.trim();
    if (trimmed && !parts.includes(trimmed)) {
      parts.push(trimmed);
    }
  }
  return parts.join('; ') || null;
}

/**
 * Every distinct error line among several sources (each deduplicated), or null.
 */
export function errorLine(
  ...texts: (string | null | undefined)[]
): string | null {
  return dedupeError(texts.filter(Boolean).join('; '));
}

/**
 * Python types whose repr is a literal that recreates the value.
 */
const LITERAL_TYPES = new Set([
  'int',
  'float',
  'bool',
  'NoneType',
  'str',
  'bytes',
  'list',
  'dict',
  'tuple',
  'set'
]);

/**
 * The longest value `Copy as code` copies.
 */
export const MAX_CODE_CHARS = 2000;

/**
 * `name = <literal>` for a variable whose whole value is in its preview as a Python
 * literal (numbers, bools, None, strings, and lists, tuples, sets and dicts of them);
 * null when it cannot be expressed that way (a cut preview, NaN, an object's repr, a
 * masked secret, a subclass).
 */
export function copyAsCode(
  variable: Pick<
    IVariable,
    'name' | 'type' | 'preview' | 'truncated' | 'error' | 'likely_secret'
  > & { masked?: boolean }
): string | null {
  if (
    isMasked(variable) ||
    variable.truncated ||
    variable.error ||
    !LITERAL_TYPES.has(variable.type) ||
    variable.preview.length > MAX_CODE_CHARS ||
    !isPythonLiteral(variable.preview)
  ) {
    return null;
  }
  return `${variable.name} = ${variable.preview}`;
}

const LITERAL_TOKEN = new RegExp(
  [
    '\\s+',
    // strings, optionally prefixed (no f-strings: they run code)
    "(?:[rRbBuU]{0,2})'(?:[^'\\\\\\n]|\\\\.)*'",
    '(?:[rRbBuU]{0,2})"(?:[^"\\\\\\n]|\\\\.)*"',
    // numbers, complex included
    '[-+]?(?:\\d[\\d_]*\\.?[\\d_]*|\\.\\d[\\d_]*)(?:[eE][-+]?\\d+)?[jJ]?',
    '0[xXoObB][0-9a-fA-F_]+',
    'True|False|None',
    '[\\[\\](){},:]'
  ]
    .map(p => `(?:${p})`)
    .join('|'),
  'y'
);

/**
 * Whether `text` consists only of Python literal tokens (strings, numbers, True,
 * False, None, brackets, commas, colons) with balanced brackets: no names, no calls,
 * no `…` of a cut preview. An empty set (`set()`) is not a literal.
 */
export function isPythonLiteral(text: string): boolean {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ']': '[', ')': '(', '}': '{' };
  let position = 0;
  let tokens = 0;
  while (position < text.length) {
    LITERAL_TOKEN.lastIndex = position;
    const match = LITERAL_TOKEN.exec(text);
    if (!match || match[0].length === 0) {
      return false;
    }
    const token = match[0];
    if (token === '[' || token === '(' || token === '{') {
      stack.push(token);
    } else if (token in pairs) {
      if (stack.pop() !== pairs[token]) {
        return false;
      }
    }
    if (token.trim()) {
      tokens++;
    }
    position += token.length;
  }
  return stack.length === 0 && tokens > 0;
}

/**
 * Kinds the Data Explorer opens as tables or arrays.
 */
export const EXPLORABLE_KINDS: ReadonlySet<string> = new Set([
  'dataframe',
  'series',
  'array',
  'tensor'
]);

/**
 * Whether the Data Explorer can show a variable: a table, a series, an array, or a
 * list whose preview starts like a list of records (dicts) or of rows (lists).
 */
export function isExplorable(
  variable: Pick<IVariable, 'kind' | 'type' | 'preview'>
): boolean {
  if (EXPLORABLE_KINDS.has(String(variable.kind))) {
    return true;
  }
  return (
    variable.type === 'list' &&
    typeof variable.preview === 'string' &&
    /^\[\s*[[{(]/.test(variable.preview)
  );
}
