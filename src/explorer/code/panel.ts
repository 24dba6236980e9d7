/**
 * Convert to Code: the code that, run in the kernel, binds `{name}_view` to the rows,
 * order and columns the explorer shows (`GET .../code`: the filter, the sort keys,
 * the columns shown in their order), in the syntax of the value's library (pandas or
 * polars for Python, dplyr for R) or, for a table in an engine, of the engine (DuckDB:
 * its Python API or SQL; a polars LazyFrame: lazy or eager polars; Ibis; PySpark;
 * dask). Copy it, or insert it as a new cell below the active cell of the notebook
 * the variable lives in. It follows the view while open.
 */
import { Clipboard } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { CodeSyntax, ICodeQuery, IViewCode } from '../../tokens';
import { RowsDataModel } from '../data/model';
import { button, element, option } from '../dom';
import { describeError } from '../errors';
import {
  codeQuery,
  engineSyntaxes,
  MAX_CODE_COLUMNS,
  MEMORY_SYNTAXES,
  syntaxChoices
} from './syntaxes';

export class CodePanel extends Widget {
  constructor(options: CodePanel.IOptions) {
    super();
    this._model = options.model;
    this._fetch = options.fetch;
    this._insert = options.insert;
    this._fixed = options.syntaxes ? [...options.syntaxes] : null;
    this._trans = options.trans;
    this._copy = options.copy ?? (text => Clipboard.copyToSystem(text));
    this.addClass('jp-KernelState-explorerCode');
    this.node.dataset.testId = 'kernel-state-explorer-code';
    this.node.setAttribute('role', 'region');
    const trans = this._trans;
    this.node.setAttribute('aria-label', trans.__('Code for this view'));

    const bar = element('div', { className: 'jp-KernelState-explorerCodeBar' });
    const title = element('span', {
      className: 'jp-KernelState-explorerCodeTitle',
      text: trans.__('Code for this view')
    });
    this._syntax.setAttribute('aria-label', trans.__('Syntax'));
    this._syntax.addEventListener('change', () => {
      this._chosen = this._syntax.value as CodeSyntax;
      void this.reload();
    });
    this._copyButton = button(
      trans.__('Copy'),
      'kernel-state-explorer-code-copy',
      { title: trans.__('Copy the code') }
    );
    this._copyButton.addEventListener('click', () => this._onCopy());
    this._insertButton = button(
      trans.__('Insert below'),
      'kernel-state-explorer-code-insert',
      {
        title: trans.__(
          'Insert as a new cell below the active cell of the notebook'
        )
      }
    );
    this._insertButton.addEventListener('click', () => void this._onInsert());
    const close = button('×', 'kernel-state-explorer-code-close', {
      title: trans.__('Close the code')
    });
    close.addEventListener('click', () =>
      options.onClose ? options.onClose() : this.hide()
    );
    bar.append(
      title,
      this._syntax,
      this._copyButton,
      this._insertButton,
      this._status,
      close
    );
    this._pre.tabIndex = 0;
    this._pre.setAttribute('aria-label', trans.__('Code'));
    this.node.append(bar, this._pre);
    this._model.stateChanged.connect(this._onView, this);
    this._sync();
  }

  /**
   * The code shown, or null while none.
   */
  get code(): IViewCode | null {
    return this._code;
  }

  /**
   * Ask the code of the view now (when shown).
   */
  async reload(): Promise<void> {
    if (!this.isVisible) {
      return;
    }
    const query = codeQuery(this._model, this._syntaxAsked());
    const trans = this._trans;
    if ('tooWide' in query) {
      this._code = null;
      this._error = trans.__(
        'The view shows %1 columns: the code names at most %2; hide fewer or show all',
        query.tooWide,
        MAX_CODE_COLUMNS
      );
      this._sync();
      return;
    }
    const key = JSON.stringify(query);
    if (key === this._key && (this._code || this._loading)) {
      this._sync(); // the choices may be known only now (the engine)
      return;
    }
    this._key = key;
    const ticket = ++this._ticket;
    this._loading = true;
    this._error = null;
    this._sync();
    try {
      const code = await this._fetch(query);
      if (ticket !== this._ticket || this.isDisposed) {
        return;
      }
      this._code = code;
      if (this._own === null && !this._engineChoices()) {
        this._own = code.syntax;
      }
    } catch (error) {
      if (ticket !== this._ticket || this.isDisposed) {
        return;
      }
      this._code = null;
      this._error = describeError(error).message;
      this._key = null;
    } finally {
      if (ticket === this._ticket) {
        this._loading = false;
      }
    }
    this._sync();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    if (this._timer !== null) {
      clearTimeout(this._timer);
    }
    this._model.stateChanged.disconnect(this._onView, this);
    super.dispose();
  }

  protected onAfterShow(): void {
    void this.reload();
  }

  /**
   * The view changed (sort, filter, columns): ask again shortly.
   */
  private _onView(): void {
    if (!this.isVisible) {
      return;
    }
    if (this._timer !== null) {
      clearTimeout(this._timer);
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      void this.reload();
    }, VIEW_DELAY_MS);
  }

  private async _onCopy(): Promise<void> {
    if (this._code) {
      this._copy(this._code.code);
      this._status.textContent = this._trans.__('Copied');
    }
  }

  private async _onInsert(): Promise<void> {
    if (!this._code) {
      return;
    }
    try {
      const where = await this._insert(this._code.code);
      this._status.textContent =
        where === null
          ? this._trans.__('No open notebook runs this kernel')
          : this._trans.__('Inserted in %1', where);
    } catch (error) {
      this._status.textContent = describeError(error).message;
    }
  }

  /**
   * The syntaxes of the model's engine, or null (a value in memory).
   */
  private _engineChoices(): CodeSyntax[] | null {
    return this._fixed ?? engineSyntaxes(this._model.info?.engine);
  }

  /**
   * The syntax to ask: the one chosen when the value offers it; an engine table's
   * own (its first) otherwise; else the server's default (null).
   */
  private _syntaxAsked(): CodeSyntax | null {
    const engine = this._engineChoices();
    const chosen = this._chosen;
    if (engine) {
      return chosen && engine.includes(chosen) ? chosen : engine[0];
    }
    return chosen && MEMORY_SYNTAXES.includes(chosen) ? chosen : null;
  }

  private _sync(): void {
    const trans = this._trans;
    const engine = this._engineChoices();
    const own = engine ? engine[0] : this._own;
    const choices = engine ?? (own ? syntaxChoices(own) : []);
    const current = this._code?.syntax ?? this._syntaxAsked() ?? own ?? '';
    if (choices.join() !== this._listed) {
      this._listed = choices.join();
      this._syntax.replaceChildren(
        ...choices.map(syntax =>
          option(
            syntax,
            syntax !== own
              ? syntax
              : this._fixed
                ? syntax
                : engine
                  ? trans.__('%1 (its engine)', syntax)
                  : trans.__('%1 (its library)', syntax)
          )
        )
      );
    }
    this._syntax.value = current;
    this._syntax.disabled = choices.length < 2;
    this._pre.textContent = this._code
      ? this._code.code
      : this._loading
        ? trans.__('Asking the kernel…')
        : (this._error ?? '');
    this._pre.classList.toggle('jp-mod-error', !this._code && !!this._error);
    this._copyButton.disabled = !this._code || this._loading;
    this._insertButton.disabled = !this._code || this._loading;
    if (this._loading || this._error) {
      this._status.textContent = '';
    }
  }

  private _model: RowsDataModel;
  private _fetch: (query: ICodeQuery) => Promise<IViewCode>;
  private _insert: (code: string) => Promise<string | null>;
  private _fixed: CodeSyntax[] | null;
  private _copy: (text: string) => void;
  private _trans: TranslationBundle;
  private _syntax = element('select', {
    testId: 'kernel-state-explorer-code-syntax'
  });
  private _copyButton: HTMLButtonElement;
  private _insertButton: HTMLButtonElement;
  private _status = element('span', {
    className: 'jp-KernelState-explorerCodeStatus',
    role: 'status',
    testId: 'kernel-state-explorer-code-status'
  });
  private _pre = element('pre', {
    className: 'jp-KernelState-explorerCodeText',
    testId: 'kernel-state-explorer-code-text'
  });
  private _code: IViewCode | null = null;
  private _error: string | null = null;
  private _own: CodeSyntax | null = null;
  private _chosen: CodeSyntax | null = null;
  private _listed = '';
  private _key: string | null = null;
  private _loading = false;
  private _ticket = 0;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}

/**
 * Wait after a change of the view before asking its code (a burst shares one).
 */
const VIEW_DELAY_MS = 250;

export namespace CodePanel {
  export interface IOptions {
    model: RowsDataModel;
    /**
     * `IKernelStateService.code` bound to a kernel and a name.
     */
    fetch: (query: ICodeQuery) => Promise<IViewCode>;
    /**
     * Insert code below the active cell of the notebook of the kernel: resolves with
     * where (the notebook's path), or null when no open notebook runs the kernel.
     */
    insert: (code: string) => Promise<string | null>;
    trans: TranslationBundle;
    /**
     * Copy text (default: the system clipboard).
     */
    copy?: (text: string) => void;
    /**
     * The close button was pressed (default: hide).
     */
    onClose?: () => void;
    /**
     * The syntaxes offered whatever the engine, the first the default (a file's
     * loading code); default: the value's library's or its engine's.
     */
    syntaxes?: readonly CodeSyntax[];
  }
}
