/**
 * The variable list's rows: the snapshot's variables, and those the last execution
 * removed, kept (struck through) until the next one.
 */
import { countOf } from '../../delta';
import { ISnapshot, IVariable } from '../../tokens';

/**
 * One row of the list: a variable of the snapshot, or one the last execution removed.
 */
export interface IListRow {
  variable: IVariable;
  removed: boolean;
}

/**
 * Keeps the variables an execution removed, so the list can show them (struck
 * through) until the next execution. A name counts as removed when the snapshot says
 * so (`removed`) or when it disappears between two complete snapshots of the same
 * kernel, epoch and options across a new generation. Names the user deleted from the
 * list are not kept.
 */
export class RemovedTracker {
  /**
   * The rows for `snapshot`; `options` identifies what the list was asked with
   * (name pattern, include), so a name that only left the pattern is not "removed".
   */
  update(snapshot: ISnapshot | null, options = ''): IListRow[] {
    if (snapshot === this._snapshot && options === this._options) {
      return this._rows;
    }
    const previous = this._snapshot;
    const previousOptions = this._options;
    this._snapshot = snapshot;
    this._options = options;
    if (!snapshot) {
      this._removed = [];
      this._rows = [];
      return this._rows;
    }
    const sameEpoch =
      !!previous &&
      previous.kernel_id === snapshot.kernel_id &&
      previous.epoch === snapshot.epoch;
    const present = new Set(snapshot.variables.map(v => v.name));
    if (!sameEpoch) {
      this._removed = [];
      this._deleted.clear();
    } else if (snapshot.generation > previous!.generation) {
      this._removed = this._findRemoved(
        previous!,
        snapshot,
        present,
        options === previousOptions
      );
      this._deleted.clear();
    }
    this._removed = this._removed.filter(
      r => !present.has(r.variable.name) && !this._deleted.has(r.variable.name)
    );
    this._rows = splice(this._shown(snapshot), this._removed);
    return this._rows;
  }

  /**
   * The snapshot's variables but those the user deleted since it was taken: an answer
   * of the same generation (a stale one, or one asked before the delete) never brings
   * them back; the next generation's list no longer has them.
   */
  private _shown(snapshot: ISnapshot): ISnapshot['variables'] {
    if (this._deleted.size === 0) {
      return snapshot.variables;
    }
    return snapshot.variables.filter(v => !this._deleted.has(v.name));
  }

  /**
   * The user deleted `name`: it leaves the list at once, not marked removed.
   */
  forget(name: string): void {
    this._deleted.add(name);
    this._removed = this._removed.filter(r => r.variable.name !== name);
    if (this._snapshot) {
      this._rows = splice(this._shown(this._snapshot), this._removed);
    }
  }

  get removedNames(): string[] {
    return this._removed.map(r => r.variable.name);
  }

  private _findRemoved(
    previous: ISnapshot,
    snapshot: ISnapshot,
    present: Set<string>,
    sameOptions: boolean
  ): IRemoved[] {
    const before = new Map<string, number>();
    previous.variables.forEach((v, i) => before.set(v.name, i));
    const names = new Set(snapshot.removed ?? []);
    const complete = (s: ISnapshot) =>
      s.offset === 0 && s.variables.length >= countOf(s);
    if (sameOptions && complete(previous) && complete(snapshot)) {
      for (const v of previous.variables) {
        if (!present.has(v.name)) {
          names.add(v.name);
        }
      }
    }
    const removed: IRemoved[] = [];
    for (const name of names) {
      const at = before.get(name);
      // Only names the list showed: `removed` also names what was never listed
      // (a new name of a hidden kind) and what lay beyond the page.
      if (at === undefined || present.has(name) || this._deleted.has(name)) {
        continue;
      }
      removed.push({
        variable: {
          ...previous.variables[at],
          change: 'unchanged',
          changes: []
        },
        at
      });
    }
    return removed.sort((a, b) => a.at - b.at);
  }

  private _snapshot: ISnapshot | null = null;
  private _options = '';
  private _removed: IRemoved[] = [];
  private _rows: IListRow[] = [];
  private _deleted = new Set<string>();
}

interface IRemoved {
  variable: IVariable;
  /**
   * Its index in the list before it was removed.
   */
  at: number;
}

/**
 * The variables with the removed ones put back where they were.
 */
function splice(variables: IVariable[], removed: IRemoved[]): IListRow[] {
  const rows: IListRow[] = variables.map(variable => ({
    variable,
    removed: false
  }));
  for (const r of removed) {
    rows.splice(Math.min(r.at, rows.length), 0, {
      variable: r.variable,
      removed: true
    });
  }
  return rows;
}
