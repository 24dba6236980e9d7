/**
 * The assistant view's model: the exact prompt block an assistant would get for the
 * followed kernel (`GET prompt?format=json`), with its size.
 *
 * It loads while the section is active, again when the snapshot moves to a new epoch
 * or generation (after an execution, after a restart — by then the server has a
 * snapshot cached, so the prompt costs no extra kernel message), when a note changes
 * and when the query (budget, history) changes.
 */
import { DEFAULT_PROMPT_BUDGET, DEFAULT_PROMPT_HISTORY } from '../defaults';
import { IKernelStateService, IPromptQuery, IPromptResult } from '../tokens';
import { KernelSectionModel, snapshotKey } from './section';

export const DEFAULT_PROMPT_QUERY: Required<
  Pick<IPromptQuery, 'budget' | 'history'>
> = {
  budget: DEFAULT_PROMPT_BUDGET,
  history: DEFAULT_PROMPT_HISTORY
};

export class PromptModel extends KernelSectionModel {
  constructor(options: PromptModel.IOptions) {
    super(options.service, options.debounce);
    this._query = { ...DEFAULT_PROMPT_QUERY, ...options.query };
  }

  /**
   * The last prompt of the followed kernel, or null.
   */
  get result(): IPromptResult | null {
    return this._result;
  }

  get query(): IPromptQuery {
    return this._query;
  }

  setQuery(query: IPromptQuery): void {
    const next = { ...this._query, ...query };
    if (JSON.stringify(next) === JSON.stringify(this._query)) {
      return;
    }
    this._query = next;
    this._dirty = true;
    this.emit();
    this.schedule(0);
  }

  protected async load(
    _kernelId: string,
    isCurrent: () => boolean
  ): Promise<void> {
    this._dirty = false;
    const key = snapshotKey(this.service);
    try {
      const result = await this.service.prompt(this._query);
      if (isCurrent()) {
        this._result = result;
        this._loadedKey = key;
      }
    } catch (reason) {
      if (isCurrent()) {
        this._result = null;
        this._dirty = true;
      }
      throw reason;
    }
  }

  protected clear(): void {
    this._result = null;
    this._loadedKey = null;
    this._dirty = true;
  }

  /**
   * Becoming active loads only when the kernel state or the query moved since.
   */
  protected needsLoad(): boolean {
    return this._dirty || this._loadedKey !== snapshotKey(this.service);
  }

  protected onSnapshotKey(): void {
    this._dirty = true;
    this.schedule();
  }

  protected onAnnotationChanged(): void {
    this._dirty = true;
    this.schedule(0);
  }

  private _query: IPromptQuery;
  private _result: IPromptResult | null = null;
  private _loadedKey: string | null = null;
  private _dirty = true;
}

export namespace PromptModel {
  export interface IOptions {
    service: IKernelStateService;
    query?: IPromptQuery;
    debounce?: number;
  }
}

/**
 * The lines of a prompt that say what it leaves out, in its own words: the variables
 * not listed (`- … and 1,234 more variables: …`), the sections dropped or cut for the
 * budget (`[history: 3 steps omitted for budget]`), and the change line's names past
 * its share (`… and 39,997 more.`).
 */
export function omittedLines(text: string): string[] {
  return text
    .split('\n')
    .filter(
      line =>
        line.startsWith('- … and ') ||
        /^\[[^\]]* omitted for budget\]$/.test(line) ||
        (/^Changed (in|since) /.test(line) && /\band [\d,]+ more\b/.test(line))
    );
}
