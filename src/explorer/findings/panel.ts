/**
 * The Findings list: the data-quality findings of the rows the explorer shows, one
 * line each — its severity (a marker of its own shape and colour), the kernel's
 * message, a mark when it was counted on a sample or estimated — with two actions:
 * **Show rows** applies the finding's filter to the grid (the filter bar shows it)
 * and **Insert fix** inserts its fix code below the active cell of the notebook, as
 * Convert to Code inserts; each disabled, with the kernel's reason as its tooltip,
 * when the finding has none. The fixes are in the value's syntax or another it takes.
 * One muted line says what was not listed, not checked or failed.
 *
 * After Show rows the findings are those of the rows shown: the finding shown stays
 * above the list, with its fix and a way back to the rows shown before. After a fix
 * runs, the variable changes and the findings are read again (`FindingsLoader`).
 * Text from the kernel is text content.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { FilterNode, IFinding, ITableFindings } from '../../tokens';
import { RowsDataModel } from '../data/model';
import { filterKey } from '../data/query';
import { button, element, option } from '../dom';
import { describeError } from '../errors';
import { FindingsLoader } from './model';
import {
  findingsNote,
  FixSyntax,
  fixSyntaxChoices,
  severitiesText,
  severityLabel,
  severityMarker
} from './text';

/**
 * A finding's action: disabled with why (`missing`) when the finding has none.
 */
function action(
  text: string,
  testId: string,
  missing: string | null,
  title: string,
  onClick: () => void
): HTMLButtonElement {
  const node = button(text, testId, { title: missing ?? title });
  node.disabled = missing !== null;
  node.addEventListener('click', onClick);
  return node;
}

/**
 * A finding shown in the grid (Show rows), and the filter before it.
 */
interface IShown {
  finding: IFinding;
  reply: ITableFindings | null;
  filter: FilterNode;
  before: FilterNode | null;
}

export class FindingsPanel extends Widget {
  constructor(options: FindingsPanel.IOptions) {
    super();
    this._model = options.model;
    this._loader = options.loader;
    this._trans = options.trans;
    this._showRows = options.showRows;
    this._insert = options.insert;
    const trans = this._trans;
    this.addClass('jp-KernelState-findings');
    this.node.dataset.testId = 'kernel-state-findings';
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', trans.__('Findings'));

    const bar = element('div', { className: 'jp-KernelState-findingsBar' });
    const title = element('span', {
      className: 'jp-KernelState-findingsTitle',
      text: trans.__('Findings')
    });
    this._syntax.setAttribute('aria-label', trans.__('Fix code in'));
    this._syntax.title = trans.__('The language of the fix code');
    this._syntax.addEventListener('change', () => {
      const chosen = this._syntax.value as FixSyntax;
      this._loader.setSyntax(chosen === this._loader.ownSyntax ? null : chosen);
    });
    const again = button(
      trans.__('Check again'),
      'kernel-state-findings-again',
      {
        title: trans.__('Read the findings from the kernel again')
      }
    );
    again.addEventListener('click', () => this._loader.reload());
    const close = button('×', 'kernel-state-findings-close', {
      title: trans.__('Close the findings')
    });
    close.addEventListener('click', () =>
      options.onClose ? options.onClose() : this.hide()
    );
    bar.append(title, this._counts, this._syntax, again, this._status, close);
    this._list.setAttribute('aria-label', trans.__('Findings'));
    this.node.append(bar, this._shownLine, this._list, this._note);
    this._loader.changed.connect(this._onFindings, this);
    this._model.stateChanged.connect(this._onView, this);
    this._render();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._loader.changed.disconnect(this._onFindings, this);
    this._model.stateChanged.disconnect(this._onView, this);
    super.dispose();
  }

  protected onAfterShow(): void {
    this._want();
    this._render();
  }

  /**
   * Ask the findings when shown, once the value is read (never before its rows).
   */
  private _want(): void {
    if (this.isVisible && this._model.info) {
      this._loader.want();
    }
  }

  private _onFindings(): void {
    this._want(); // after a reset: a new filter, a new value
    this._render();
  }

  /**
   * The value read may be the first; the finding shown stays above the list while
   * its rows are the grid's.
   */
  private _onView(): void {
    this._want();
    const shown = this._shown;
    if (shown && filterKey(this._model.filter) !== filterKey(shown.filter)) {
      this._shown = null;
      this._renderShown();
    }
  }

  private _render(): void {
    const trans = this._trans;
    const loader = this._loader;
    const reply = loader.findings;
    this._renderSyntax();
    this._counts.textContent = reply
      ? severitiesText(reply.severities, trans)
      : '';
    let empty: string | null = null;
    if (loader.error !== null) {
      empty = loader.error;
    } else if (!reply) {
      empty = loader.loading ? trans.__('Checking the table…') : '';
    } else if (reply.findings.length === 0) {
      empty = trans.__('No findings in the rows checked');
    }
    if (empty !== null) {
      const line = element('div', {
        className: 'jp-KernelState-findingsEmpty',
        text: empty
      });
      line.classList.toggle('jp-mod-error', loader.error !== null);
      this._list.replaceChildren(line);
    } else if (reply) {
      this._list.replaceChildren(
        ...reply.findings.map(finding => this._line(finding, reply, false))
      );
    }
    const note = reply ? findingsNote(reply, trans) : { text: '', title: '' };
    this._note.textContent = note.text;
    this._note.title = note.title;
    this._note.hidden = note.text === '';
    this._renderShown();
  }

  private _renderSyntax(): void {
    const trans = this._trans;
    const own = this._loader.ownSyntax;
    const choices = fixSyntaxChoices(own);
    if (choices.join() !== this._listed) {
      this._listed = choices.join();
      this._syntax.replaceChildren(
        ...choices.map(syntax =>
          option(
            syntax,
            syntax === own ? trans.__('%1 (its own)', syntax) : syntax
          )
        )
      );
    }
    this._syntax.value = this._loader.syntax ?? own ?? '';
    this._syntax.disabled = choices.length < 2 || this._loader.loading;
    this._syntax.hidden = choices.length === 0;
  }

  private _renderShown(): void {
    const shown = this._shown;
    this._shownLine.hidden = shown === null;
    if (!shown) {
      this._shownLine.replaceChildren();
      return;
    }
    const trans = this._trans;
    const label = element('span', {
      className: 'jp-KernelState-findingsShownLabel',
      text: trans.__('Rows shown:')
    });
    const back = button(
      trans.__('Show the rows before'),
      'kernel-state-findings-back',
      { title: trans.__('Filter the grid as before Show rows') }
    );
    back.addEventListener('click', () => {
      this._shown = null;
      void this._showRows(shown.before);
      this._renderShown();
    });
    this._shownLine.replaceChildren(
      label,
      this._line(shown.finding, shown.reply, true),
      back
    );
  }

  /**
   * One finding's line: its marker, message, marks and actions.
   */
  private _line(
    finding: IFinding,
    reply: ITableFindings | null,
    shown: boolean
  ): HTMLElement {
    const trans = this._trans;
    const line = element('div', {
      className: 'jp-KernelState-finding',
      role: shown ? undefined : 'listitem',
      testId: shown
        ? 'kernel-state-findings-shown-finding'
        : 'kernel-state-finding'
    });
    line.dataset.severity = finding.severity;
    line.dataset.kind = finding.kind;
    const marker = element('span', {
      className: 'jp-KernelState-findingMarker',
      role: 'img',
      text: severityMarker(finding.severity, trans),
      label: severityLabel(finding.severity, trans),
      title: severityLabel(finding.severity, trans)
    });
    const message = element('span', {
      className: 'jp-KernelState-findingMessage',
      text: finding.message,
      title: finding.message
    });
    line.append(marker, message);
    if (finding.approximate) {
      line.append(this._mark(reply?.sampled ?? false, reply));
    }
    const show = action(
      trans.__('Show rows'),
      'kernel-state-finding-show-rows',
      finding.filter === null
        ? (finding.filter_note ?? trans.__('No filter says these rows'))
        : null,
      trans.__('Filter the grid to the rows of this finding'),
      () => void this._onShowRows(finding)
    );
    show.disabled ||= shown;
    const fix = action(
      trans.__('Insert fix'),
      'kernel-state-finding-insert-fix',
      finding.fix === null
        ? (finding.fix_note ?? trans.__('No fix is written for this'))
        : null,
      trans.__(
        'Insert the code that fixes this as a new cell below the active cell of the notebook'
      ),
      () => void this._onInsert(finding)
    );
    line.append(show, fix);
    return line;
  }

  /**
   * "≈ sampled" (counted on the sample of a large table) or "≈ approximate" (an
   * engine's estimate).
   */
  private _mark(sampled: boolean, reply: ITableFindings | null): HTMLElement {
    const trans = this._trans;
    return element('span', {
      className: 'jp-KernelState-findingMark',
      text: sampled ? trans.__('≈ sampled') : trans.__('≈ approximate'),
      title:
        sampled && reply?.sample_rows
          ? trans.__(
              'Counted on a sample of %1 rows: the whole table may have more',
              reply.sample_rows
            )
          : trans.__('Estimated, not counted exactly')
    });
  }

  private async _onShowRows(finding: IFinding): Promise<void> {
    if (finding.filter === null) {
      return;
    }
    const before = this._shown?.before ?? this._model.filter;
    this._shown = {
      finding,
      reply: this._loader.findings,
      filter: finding.filter,
      before
    };
    this._status.textContent = '';
    const applied = await this._showRows(finding.filter);
    if (!applied) {
      this._shown = null;
      this._status.textContent = this._trans.__(
        'The kernel refused the rows of this finding: %1',
        this._model.filterError ?? ''
      );
    }
    this._renderShown();
  }

  private async _onInsert(finding: IFinding): Promise<void> {
    if (finding.fix === null) {
      return;
    }
    const trans = this._trans;
    try {
      const where = await this._insert(finding.fix);
      this._status.textContent =
        where === null
          ? trans.__('No open notebook runs this kernel')
          : trans.__(
              'Inserted in %1: run it, and the findings are read again',
              where
            );
    } catch (error) {
      this._status.textContent = describeError(error).message;
    }
  }

  private _model: RowsDataModel;
  private _loader: FindingsLoader;
  private _trans: TranslationBundle;
  private _showRows: (filter: FilterNode | null) => Promise<boolean>;
  private _insert: (code: string) => Promise<string | null>;
  private _shown: IShown | null = null;
  private _listed = '';
  private _counts = element('span', {
    className: 'jp-KernelState-findingsCounts',
    testId: 'kernel-state-findings-counts'
  });
  private _syntax = element('select', {
    testId: 'kernel-state-findings-syntax'
  });
  private _status = element('span', {
    className: 'jp-KernelState-findingsStatus',
    role: 'status',
    testId: 'kernel-state-findings-status'
  });
  private _shownLine = element('div', {
    className: 'jp-KernelState-findingsShown',
    testId: 'kernel-state-findings-shown'
  });
  private _list = element('div', {
    className: 'jp-KernelState-findingsList',
    role: 'list'
  });
  private _note = element('div', {
    className: 'jp-KernelState-findingsNote',
    testId: 'kernel-state-findings-note'
  });
}

export namespace FindingsPanel {
  export interface IOptions {
    model: RowsDataModel;
    loader: FindingsLoader;
    trans: TranslationBundle;
    /**
     * Filter the grid (the filter bar showing it): resolves false when the kernel
     * refused the filter.
     */
    showRows: (filter: FilterNode | null) => Promise<boolean>;
    /**
     * Insert code below the active cell of the notebook of the kernel: resolves with
     * where (the notebook's path), or null when no open notebook runs the kernel.
     */
    insert: (code: string) => Promise<string | null>;
    /**
     * The close button was pressed (default: hide).
     */
    onClose?: () => void;
  }
}
