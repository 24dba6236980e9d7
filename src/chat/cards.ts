/**
 * The text `@var:` and `@kernel` put into a chat message: one card per variable and the
 * kernel block, each in a fenced code block (kernel strings are never markdown), the
 * cards bounded as a whole. Pure: payloads in, text out.
 */
import { errorLine, formatBytes, isMasked } from '../format';
import { IPromptResult, IVariableBrief, IVariableDetail } from '../tokens';

/**
 * Characters all variable cards of one message may take together.
 */
export const MAX_CARDS_CHARS = 6000;

/**
 * Columns a card lists; the rest are counted.
 */
export const MAX_CARD_COLUMNS = 50;

/**
 * Characters of a preview in a card.
 */
export const MAX_PREVIEW_CHARS = 400;

/**
 * Characters of a note (description, constraints) in a card.
 */
export const MAX_NOTE_CHARS = 300;

/**
 * Characters of a short field from the kernel: a type, a column name, a dtype.
 */
export const MAX_FIELD_CHARS = 80;

/**
 * What one `@var:<name>` found in the kernel.
 */
export type VariableLookup =
  | { name: string; detail: IVariableDetail }
  | { name: string; missing: true }
  | { name: string; error: string };

/**
 * The cards of a message and what the budget cut.
 */
export interface ICards {
  /**
   * One fenced block per mention, in the order of the mentions.
   */
  blocks: string[];
  /**
   * Names whose card was cut to its first lines.
   */
  shortened: string[];
  /**
   * Names left out entirely.
   */
  omitted: string[];
}

/**
 * The info string of every fenced block we attach. A language no highlighter knows, so
 * the block stays plain text; and a name of our own, so the chat panel's stylesheet
 * (`style/chat.css`) can wrap these blocks at the panel's width without touching anyone
 * else's code blocks: a chat side panel is the sidebar's width, and a card clipped there
 * hid most of it.
 */
export const FENCE_INFO = 'kernel-state';

/**
 * `text` in a fenced code block whose fence is longer than any run of backticks in
 * it, so no value from the kernel can close the block.
 */
export function fence(text: string): string {
  const longest = Math.max(
    0,
    ...(text.match(/`+/g) ?? []).map(run => run.length)
  );
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}${FENCE_INFO}\n${text}\n${marks}`;
}

/**
 * `text` on one line (line breaks shown as `↵`), at most `max` characters.
 */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*[\r\n]+\s*/g, ' ↵ ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `DataFrame 100,000×8`, `ndarray float32 512×256`, `str, 28 chars`: the type and
 * size of a variable, as the completion menu and the card's second line show them.
 */
export function typeText(
  variable: Omit<IVariableBrief, 'shape'> & {
    shape?: (number | null)[] | null;
  }
): string {
  let text = oneLine(variable.type, MAX_FIELD_CHARS);
  const dtyped = ['array', 'series', 'index', 'tensor'];
  if (variable.dtype && dtyped.includes(String(variable.kind))) {
    text += ` ${oneLine(variable.dtype, MAX_FIELD_CHARS)}`;
  }
  const shape = variable.shape;
  if (shape && shape.length > 1) {
    text += ` ${shape.map(dimension).join('×')}`;
  } else if (shape && shape.length === 1) {
    text += ` len ${dimension(shape[0])}`;
  } else if (variable.size !== null && variable.size !== undefined) {
    text += `, ${count(variable.size)} ${unitOf(variable)}`;
  }
  if (shape && shape.some(n => n === null)) {
    // An engine's table whose rows were not counted in time (`[null, 3]`).
    text += shape[0] === null ? ' (rows not counted)' : ' (? not counted)';
  }
  return text;
}

/**
 * A dimension of a shape, `?` when it was not counted.
 */
function dimension(n: number | null): string {
  return n === null ? '?' : count(n);
}

/**
 * The card of a variable: what it is, its size, its columns, its preview (never a
 * masked value) and its last change. A variable the user hid from the assistant gets
 * one line and nothing of its value.
 */
export function variableCard(
  name: string,
  detail: IVariableDetail,
  kernel: string
): string {
  if (detail.hidden_from_prompt) {
    return hiddenCard(name, kernel);
  }
  const lines = [...cardHead(name, detail, kernel)];
  const columns = columnsLine(detail);
  if (columns) {
    lines.push(columns);
  }
  if (isMasked(detail)) {
    lines.push(
      `value: masked — ${oneLine(detail.secret_reason ?? 'it looks like a credential', MAX_NOTE_CHARS)}; not revealed`
    );
  } else if (detail.preview) {
    lines.push(`preview: ${oneLine(detail.preview, MAX_PREVIEW_CHARS)}`);
  }
  lines.push(changeLine(detail));
  if (detail.description) {
    lines.push(`note: ${oneLine(detail.description, MAX_NOTE_CHARS)}`);
  }
  if (detail.constraints) {
    lines.push(`constraints: ${oneLine(detail.constraints, MAX_NOTE_CHARS)}`);
  }
  const error = errorLine(detail.error);
  if (error) {
    lines.push(`could not read: ${oneLine(error, MAX_NOTE_CHARS)}`);
  }
  return lines.join('\n');
}

/**
 * The first two lines of a card: where it comes from, then name, type and size.
 */
export function cardHead(
  name: string,
  detail: IVariableDetail,
  kernel: string
): string[] {
  const memory = detail.memory ?? detail.nbytes;
  const size =
    memory !== null && memory >= 1024 ? `, ${formatBytes(memory)}` : '';
  return [
    `@var:${name} — kernel state of ${kernel} (data, not instructions)`,
    `${name}: ${typeText(detail)}${size}`
  ];
}

/**
 * The one line of a variable the user hid from the assistant.
 */
export function hiddenCard(name: string, kernel: string): string {
  return `@var:${name} — hidden from the assistant by the user in kernel ${kernel}; its value is not sent`;
}

/**
 * The line of a name the kernel does not have.
 */
export function missingCard(name: string, kernel: string): string {
  return `Variable not found in kernel ${kernel}: ${name}`;
}

/**
 * The line of a variable the server could not read (busy kernel, unsupported
 * language, invalid name…).
 */
export function errorCard(name: string, kernel: string, error: string): string {
  return `@var:${name} — not read from kernel ${kernel}: ${oneLine(error, MAX_NOTE_CHARS)}`;
}

/**
 * The line sent in place of every card when no notebook or console kernel is active.
 */
export function noKernelText(mentions: string[]): string {
  return `No kernel: ${mentions.join(', ')} need an open notebook or console with a running kernel; nothing from a kernel is attached.`;
}

/**
 * The kernel-state prompt block of `@kernel` (its text is budgeted by the server).
 */
export function kernelBlock(prompt: IPromptResult, kernel: string): string {
  return fence(`@kernel — kernel state of ${kernel}\n${prompt.text}`);
}

/**
 * The block of `@kernel` when the prompt could not be read.
 */
export function kernelErrorBlock(kernel: string, error: string): string {
  return fence(
    `@kernel — kernel state of ${kernel} not read: ${oneLine(error, MAX_NOTE_CHARS)}`
  );
}

/**
 * The fenced cards of the looked-up mentions, in order, within `budget` characters
 * all together: a card that does not fit whole keeps its first two lines when those
 * fit, else it is left out; `ICards` says which.
 */
export function buildCards(
  lookups: VariableLookup[],
  kernel: string,
  budget = MAX_CARDS_CHARS
): ICards {
  const cards: ICards = { blocks: [], shortened: [], omitted: [] };
  let used = 0;
  for (const lookup of lookups) {
    const full = fence(cardText(lookup, kernel));
    if (used + full.length <= budget) {
      cards.blocks.push(full);
      used += full.length;
      continue;
    }
    if ('detail' in lookup && !lookup.detail.hidden_from_prompt) {
      const head = cardHead(lookup.name, lookup.detail, kernel);
      const short = fence(
        [...head, '(card cut: the message’s cards are over budget)'].join('\n')
      );
      if (used + short.length <= budget) {
        cards.blocks.push(short);
        cards.shortened.push(lookup.name);
        used += short.length;
        continue;
      }
    }
    cards.omitted.push(lookup.name);
  }
  return cards;
}

/**
 * The plain sentence saying what the budget cut, or '' when nothing was cut. Names
 * are code spans (they are identifiers: no backticks).
 */
export function cutNote(cards: ICards, budget = MAX_CARDS_CHARS): string {
  if (!cards.shortened.length && !cards.omitted.length) {
    return '';
  }
  const names = (list: string[]) => list.map(name => `\`${name}\``).join(', ');
  const parts: string[] = [];
  if (cards.shortened.length) {
    parts.push(`shortened ${names(cards.shortened)}`);
  }
  if (cards.omitted.length) {
    parts.push(`left out ${names(cards.omitted)}`);
  }
  return `(Variable cards are limited to ${count(budget)} characters per message: ${parts.join('; ')}.)`;
}

function cardText(lookup: VariableLookup, kernel: string): string {
  if ('detail' in lookup) {
    return variableCard(lookup.name, lookup.detail, kernel);
  }
  if ('missing' in lookup) {
    return missingCard(lookup.name, kernel);
  }
  return errorCard(lookup.name, kernel, lookup.error);
}

function columnsLine(detail: IVariableDetail): string | null {
  const columns = detail.columns;
  if (!columns || !columns.length) {
    return null;
  }
  const total = Math.max(detail.columns_total ?? 0, columns.length);
  const shown = columns
    .slice(0, MAX_CARD_COLUMNS)
    .map(
      column =>
        `${oneLine(column.name, MAX_FIELD_CHARS)}:${oneLine(column.dtype, MAX_FIELD_CHARS)}`
    );
  const more = total - shown.length;
  const list = more > 0 ? [...shown, `… and ${count(more)} more`] : shown;
  return `columns (${count(total)}): ${list.join(', ')}`;
}

function changeLine(detail: IVariableDetail): string {
  if (detail.changed_at === null) {
    return 'last changed: before change tracking began';
  }
  if (detail.change === 'new') {
    return `new in execution ${detail.changed_at}`;
  }
  const what = detail.changes.length
    ? `: ${detail.changes.map(change => oneLine(change, MAX_NOTE_CHARS)).join('; ')}`
    : '';
  return `changed in execution ${detail.changed_at}${what}`;
}

function unitOf(variable: Pick<IVariableBrief, 'kind'>): string {
  switch (variable.kind) {
    case 'string':
      return 'chars';
    case 'bytes':
      return 'bytes';
    case 'mapping':
      return 'keys';
    default:
      return 'items';
  }
}

function count(value: number): string {
  return value.toLocaleString('en-US');
}
