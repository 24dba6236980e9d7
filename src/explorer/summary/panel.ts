/**
 * The summary panel beside the grid: one row per column — a type badge, a badge of
 * its data-quality findings, the share of missing values, a sparkline — that expands
 * to the column's statistics and a larger chart; a search over the column names; a
 * click on a row shows that column in the grid. Statistics arrive a few columns at a
 * time (`ProfileLoader`), the rows listed are asked, never the whole table; the grid
 * never waits for them. Findings (`FindingsLoader`) come after the statistics shown.
 *
 * Keyboard: every row is two buttons (expand, show in grid) in the tab order; Enter
 * or Space expands; Up/Down move between rows. Text from the kernel is text content.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { searchColumns } from '../data/columns';
import { RowsDataModel } from '../data/model';
import { INumberFormat } from '../data/numbers';
import { BUTTON_CLASS, element } from '../dom';
import { familyOf } from '../dtypes';
import { FindingsLoader } from '../findings/model';
import { statText } from './charts';
import { ProfileLoader } from './profile';
import { fillRow, IRow, makeRow } from './row';
import { missingShare } from './stats';

/**
 * Rows listed at first, and added by "Show more".
 */
export const SUMMARY_PAGE = 100;

export class SummaryPanel extends Widget {
  constructor(options: SummaryPanel.IOptions) {
    super();
    this._model = options.model;
    this._loader = options.loader;
    this._trans = options.trans;
    this._onGoTo = options.onGoTo;
    this._format = options.numberFormat;
    this._findings = options.findings ?? null;
    this.addClass('jp-KernelState-summary');
    this.node.dataset.testId = 'kernel-state-explorer-summary';
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', this._trans.__('Column summary'));
    this._build();
    this._model.columnsChanged.connect(this._schedule, this);
    this._model.stateChanged.connect(this._onModelState, this);
    this._loader.changed.connect(this._onProfiles, this);
    this._findings?.changed.connect(this._onFindings, this);
    this._render();
  }

  /**
   * Numbers of the statistics at another precision.
   */
  set numberFormat(format: INumberFormat) {
    this._format = format;
    this._rows.clear();
    this._render();
  }

  /**
   * The positions listed now (for tests and the visible-first order).
   */
  get listed(): readonly number[] {
    return this._listed;
  }

  /**
   * Expand or fold the statistics of a column.
   */
  toggle(position: number, expanded?: boolean): void {
    const next = expanded ?? !this._expanded.has(position);
    if (next) {
      this._expanded.add(position);
    } else {
      this._expanded.delete(position);
    }
    const row = this._rows.get(position);
    if (row) {
      this._fill(row, position);
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    if (this._timer !== null) {
      cancelAnimationFrame(this._timer);
    }
    this._model.columnsChanged.disconnect(this._schedule, this);
    this._model.stateChanged.disconnect(this._onModelState, this);
    this._loader.changed.disconnect(this._onProfiles, this);
    this._findings?.changed.disconnect(this._onFindings, this);
    super.dispose();
  }

  protected onAfterShow(): void {
    this._render();
  }

  protected onAfterAttach(): void {
    this._render();
  }

  private _build(): void {
    const trans = this._trans;
    const header = element('div', {
      className: 'jp-KernelState-summaryHeader'
    });
    const title = element('span', {
      className: 'jp-KernelState-summaryTitle',
      text: trans.__('Columns')
    });
    header.append(title, this._count);

    this._search.type = 'search';
    this._search.placeholder = trans.__('Search columns');
    this._search.setAttribute('aria-label', trans.__('Search columns'));
    this._search.addEventListener('input', () => {
      const info = this._model.info;
      if (
        this._search.value.trim() &&
        info &&
        this._model.knownColumns().length < info.columnsTotal
      ) {
        void this._model.loadNames();
      }
      this._render();
    });

    this._list.setAttribute('aria-label', trans.__('Columns'));
    this._list.addEventListener('keydown', event => this._onKey(event));

    this._more.type = 'button';
    this._more.addEventListener('click', () => {
      this._pages++;
      this._render();
    });
    this.node.append(header, this._search, this._note, this._list, this._more);
  }

  private _schedule(): void {
    if (this._timer === null) {
      this._timer = requestAnimationFrame(() => {
        this._timer = null;
        if (!this.isDisposed) {
          this._render();
        }
      });
    }
  }

  private _onModelState(): void {
    const total = this._model.info?.columnsTotal ?? -1;
    if (total !== this._total) {
      this._total = total;
      this._rows.clear();
      this._render();
    }
  }

  private _onProfiles(): void {
    if (!this.isVisible) {
      return;
    }
    for (const position of this._listed) {
      const row = this._rows.get(position);
      if (row && row.profile !== (this._loader.profile(position) ?? null)) {
        this._fill(row, position);
      } else if (row && this._loader.failure(position) !== row.failure) {
        this._fill(row, position);
      }
    }
    this._renderNote();
    // After a reset (a new filter, a refresh) the rows listed are asked again.
    this._loader.want(this._listed);
  }

  /**
   * Findings arrived or were forgotten: the badges of the rows listed, and (after a
   * reset) ask again.
   */
  private _onFindings(): void {
    if (!this.isVisible || !this._findings) {
      return;
    }
    for (const position of this._listed) {
      const row = this._rows.get(position);
      if (row) {
        this._fill(row, position);
      }
    }
    this._wantFindings();
  }

  /**
   * The findings of the value once it is read (they never go before its rows).
   */
  private _wantFindings(): void {
    if (this._model.info) {
      this._findings?.want();
    }
  }

  /**
   * List the rows for the search (or the first pages), and ask their profiles.
   */
  private _render(): void {
    if (this.isDisposed) {
      return;
    }
    const trans = this._trans;
    const info = this._model.info;
    const total = info?.columnsTotal ?? 0;
    const query = this._search.value.trim();
    let positions: number[];
    if (query) {
      positions = searchColumns(this._model.knownColumns(), query);
    } else {
      const count = Math.min(total, this._pages * SUMMARY_PAGE);
      positions = Array.from({ length: count }, (_, i) => i);
    }
    this._listed = positions;
    this._count.textContent = query
      ? trans.__('%1 of %2', positions.length, total)
      : String(total);
    const nodes = positions.map(position => {
      let row = this._rows.get(position);
      if (!row) {
        row = this._makeRow(position);
        this._rows.set(position, row);
      }
      this._fill(row, position);
      return row.node;
    });
    this._list.replaceChildren(...nodes);
    const more = !query && positions.length < total;
    this._more.style.display = more ? '' : 'none';
    this._more.textContent = trans.__(
      'Show %1 more columns',
      Math.min(SUMMARY_PAGE, total - positions.length)
    );
    if (query && positions.length === 0) {
      this._list.append(
        element('div', {
          className: 'jp-KernelState-summaryEmpty',
          text:
            info && this._model.knownColumns().length < info.columnsTotal
              ? trans.__('Looking for “%1” among the column names…', query)
              : trans.__('No column name contains “%1”', query)
        })
      );
    }
    this._renderNote();
    if (this.isVisible) {
      this._loader.want(positions);
      this._wantFindings();
    }
  }

  private _renderNote(): void {
    const trans = this._trans;
    const rows = this._loader.rows;
    let note = '';
    if (this._loader.error) {
      note = this._loader.error;
    } else if (rows?.engine && rows.sampled && rows.sampleRows !== null) {
      note = trans.__(
        'Statistics marked ≈ are approximate: %1 cancelled some full aggregates, computed on the first %2 rows instead',
        rows.engine.title,
        statText(rows.sampleRows, this._format)
      );
    } else if (rows?.engine && rows.approximate) {
      note = trans.__(
        'Statistics marked ≈ are approximate (estimated by %1)',
        rows.engine.title
      );
    } else if (rows?.sampled && rows.sampleRows !== null) {
      note = trans.__(
        'Statistics marked ≈ are from a sample of %1 rows',
        statText(rows.sampleRows, this._format)
      );
    } else if (rows && rows.filteredRows !== null) {
      note = trans.__(
        'Statistics of the %1 rows the filter keeps',
        statText(rows.filteredRows, this._format)
      );
    }
    this._note.textContent = note;
    this._note.classList.toggle('jp-mod-error', this._loader.error !== null);
  }

  private _makeRow(position: number): IRow {
    const detailsId = `${this.id || 'kernel-state-summary'}-${position}-${Private.next()}`;
    return makeRow(
      position,
      detailsId,
      () => this.toggle(position),
      () => this._onGoTo(position)
    );
  }

  private _fill(row: IRow, position: number): void {
    const profile = this._loader.profile(position) ?? null;
    const column = this._model.column(position);
    const dtype = profile?.dtype ?? column?.dtype ?? null;
    fillRow(
      row,
      {
        profile,
        failure: this._loader.failure(position),
        name:
          profile?.name ??
          column?.name ??
          this._trans.__('column %1', position),
        dtype,
        family: profile?.family ?? familyOf(dtype),
        expanded: this._expanded.has(position),
        share: profile ? missingShare(profile, this._loader.rows) : null,
        findings: this._findings?.about(position)
      },
      this._trans,
      this._format
    );
  }

  /**
   * Up and Down move between the rows (to the same button).
   */
  private _onKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') {
      return;
    }
    const target = event.target as HTMLElement;
    const row = target.closest('.jp-KernelState-summaryRow');
    if (!row) {
      return;
    }
    const sibling =
      event.key === 'ArrowDown'
        ? row.nextElementSibling
        : row.previousElementSibling;
    const selector = target.classList.contains('jp-KernelState-summaryToggle')
      ? '.jp-KernelState-summaryToggle'
      : '.jp-KernelState-summaryGo';
    const next = sibling?.querySelector<HTMLElement>(selector);
    if (next) {
      event.preventDefault();
      next.focus();
    }
  }

  private _model: RowsDataModel;
  private _loader: ProfileLoader;
  private _findings: FindingsLoader | null;
  private _trans: TranslationBundle;
  private _onGoTo: (position: number) => void;
  private _format: INumberFormat;
  private _count = element('span', {
    className: 'jp-KernelState-summaryCount',
    testId: 'kernel-state-explorer-summary-count'
  });
  private _search = element('input', {
    className: 'jp-KernelState-summarySearch',
    testId: 'kernel-state-explorer-summary-search'
  });
  private _note = element('div', {
    className: 'jp-KernelState-summaryNote',
    role: 'status',
    testId: 'kernel-state-explorer-summary-note'
  });
  private _list = element('div', {
    className: 'jp-KernelState-summaryList',
    role: 'list'
  });
  private _more = element('button', {
    className: BUTTON_CLASS,
    testId: 'kernel-state-explorer-summary-more'
  });
  private _rows = new Map<number, IRow>();
  private _expanded = new Set<number>();
  private _listed: number[] = [];
  private _pages = 1;
  private _total = -1;
  private _timer: number | null = null;
}

export namespace SummaryPanel {
  export interface IOptions {
    model: RowsDataModel;
    loader: ProfileLoader;
    trans: TranslationBundle;
    /**
     * Show the column at a table position in the grid.
     */
    onGoTo: (position: number) => void;
    numberFormat: INumberFormat;
    /**
     * The findings whose badges the rows show (none without).
     */
    findings?: FindingsLoader;
  }
}

namespace Private {
  let counter = 0;
  export function next(): number {
    return ++counter;
  }
}
