/**
 * `@var:<name>` and `@kernel` in a chat message: finding them, and marking them as
 * handled. A mention right after a backtick, a letter or `@` is not one (`me@kernel.org`,
 * a quoted `` `@var:x` ``), so a message whose mentions were marked is never expanded
 * twice.
 */

/**
 * What a user types to attach a variable.
 */
export const VAR_PREFIX = '@var:';

/**
 * What a user types to attach the kernel state.
 */
export const KERNEL_COMMAND = '@kernel';

/**
 * A variable name as typed after `@var:`: letters, digits and `_`, with inner dots for
 * R names (`my.df`); a trailing dot ends the sentence, not the name.
 */
const NAME = '[\\p{L}\\p{N}_]+(?:\\.[\\p{L}\\p{N}_]+)*';

const NOT_AFTER = '(?<![\\p{L}\\p{N}_`@])';

const VAR_MENTION = new RegExp(`${NOT_AFTER}@var:(${NAME})`, 'gu');

const KERNEL_MENTION = new RegExp(
  `${NOT_AFTER}@kernel(?![\\p{L}\\p{N}_:-])`,
  'gu'
);

/**
 * What can follow `@var:` while the user types a name (possibly empty).
 */
export const NAME_PREFIX = /^[\p{L}\p{N}_.]*$/u;

/**
 * The most variables one message attaches; further mentions are named as skipped.
 */
export const MAX_VARIABLE_MENTIONS = 20;

export interface IMentions {
  /**
   * The variable names mentioned, each once, in order.
   */
  variables: string[];
  /**
   * Whether `@kernel` is mentioned.
   */
  kernel: boolean;
}

/**
 * The `@var:` names and whether `@kernel` appears in `text`.
 */
export function findMentions(text: string): IMentions {
  const variables: string[] = [];
  for (const match of text.matchAll(VAR_MENTION)) {
    if (!variables.includes(match[1])) {
      variables.push(match[1]);
    }
  }
  KERNEL_MENTION.lastIndex = 0;
  return { variables, kernel: KERNEL_MENTION.test(text) };
}

/**
 * `text` with each mention as a code span (`` `@var:sales` ``): it reads as a
 * reference to the card below and is not expanded again.
 */
export function markMentions(text: string): string {
  return text
    .replace(VAR_MENTION, mention => `\`${mention}\``)
    .replace(KERNEL_MENTION, mention => `\`${mention}\``);
}
