/**
 * The variable list's keyboard: where a navigation key moves the selection, and
 * type-ahead (letters typed in a row jump to the next name starting with them).
 */

/**
 * The row index a navigation key moves to from `index` (-1: nothing selected) among
 * `count` rows, `page` rows a page; null for other keys or an empty list.
 */
export function navigate(
  key: string,
  index: number,
  count: number,
  page = 10
): number | null {
  if (count === 0) {
    return null;
  }
  const last = count - 1;
  switch (key) {
    case 'ArrowDown':
      return index < 0 ? 0 : Math.min(last, index + 1);
    case 'ArrowUp':
      return index < 0 ? 0 : Math.max(0, index - 1);
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'PageDown':
      return index < 0 ? 0 : Math.min(last, index + page);
    case 'PageUp':
      return index < 0 ? 0 : Math.max(0, index - page);
    default:
      return null;
  }
}

/**
 * Type-ahead: letters typed within `timeout` ms of each other form a prefix; each
 * prefix jumps to the next name that starts with it (case-insensitive). Typing the
 * same letter again cycles through the names starting with it.
 */
export class TypeAhead {
  constructor(private readonly _timeout = 800) {}

  /**
   * Whether a key press is a character to type ahead with (no modifier but Shift).
   */
  static accepts(event: {
    key: string;
    ctrlKey?: boolean;
    metaKey?: boolean;
    altKey?: boolean;
  }): boolean {
    return (
      event.key.length === 1 &&
      event.key !== ' ' &&
      !event.ctrlKey &&
      !event.metaKey &&
      !event.altKey
    );
  }

  /**
   * The index of the row to select after typing `char` at time `now`, from the
   * selected row `index` (-1: none); null when no name matches.
   */
  type(
    char: string,
    names: readonly string[],
    index: number,
    now: number
  ): number | null {
    const fresh = now - this._last > this._timeout;
    this._last = now;
    const lower = char.toLowerCase();
    const repeated =
      !fresh &&
      this._prefix.length > 0 &&
      [...this._prefix].every(c => c === lower);
    this._prefix = fresh ? lower : this._prefix + lower;
    const count = names.length;
    if (count === 0) {
      return null;
    }
    // A new search starts after the selected row; a longer prefix may stay on it.
    const cycling = this._prefix.length === 1 || repeated;
    const prefix = repeated ? lower : this._prefix;
    const start = index < 0 ? 0 : cycling ? index + 1 : index;
    for (let step = 0; step < count; step++) {
      const i = (start + step) % count;
      if (names[i].toLowerCase().startsWith(prefix)) {
        return i;
      }
    }
    return null;
  }

  reset(): void {
    this._prefix = '';
    this._last = -Infinity;
  }

  get prefix(): string {
    return this._prefix;
  }

  private _prefix = '';
  private _last = -Infinity;
}
