/**
 * The summary panel beside the grid: one row per column — a type badge, the share of
 * missing values, a sparkline — that expands to the column's statistics and a larger
 * chart; a search over the column names; a click on a row shows that column in the
 * grid. Statistics arrive a few columns at a time (`ProfileLoader`), the rows listed
 * are asked, never the whole table; the grid never waits for them.
 *
 * Keyboard: every row is two buttons (expand, show in grid) in the tab order; Enter
 * or Space expands; Up/Down move between rows. Text from the kernel is text content.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { ColumnFamily, IColumnProfile } from '../tokens';
import { barChart, largeChart, sparkBars, statText } from './charts';
import { RowsDataModel } from './model';
import { INumberFormat } from './numbers';
import { CUT, ProfileLoader } from './profile';
import { familyOf } from './query';

/**
 * Rows listed at first, and added by "Show more".
 */
export const SUMMARY_PAGE = 100;
/**
 * Rows listed for a search.
 */
export const MAX_SEARCH_RESULTS = 500;

/**
 * A family's badge text (a glyph, not a word: the badge's label is translated).
 */
const BADGES: Record<ColumnFamily, string> = {
  number: '#',
  string: 'Aa',
  category: '◆',
  boolean: '◐',
  datetime: '◷',
  other: '?'
};

export function familyLabel(
  family: ColumnFamily,
  trans: TranslationBundle
): string {
  switch (family) {
    case 'number':
      return trans.__('Numbers');
    case 'string':
      return trans.__('Text');
    case 'category':
      return trans.__('Categories');
    case 'boolean':
      return trans.__('True or false');
    case 'datetime':
      return trans.__('Dates and times');
    default:
      return trans.__('Other values');
  }
}

/**
 * The column positions whose names contain `query` (case-insensitive), in order.
 */
export function searchColumns(
  names: { name: string; position: number }[],
  query: string,
  limit = MAX_SEARCH_RESULTS
): number[] {
  const needle = query.trim().toLowerCase();
  const found: number[] = [];
  for (const { name, position } of names) {
    if (found.length >= limit) {
      break;
    }
    if (name.toLowerCase().includes(needle)) {
      found.push(position);
    }
  }
  return found;
}

export class SummaryPanel extends Widget {
  constructor(options: SummaryPanel.IOptions) {
    super();
    this._model = options.model;
    this._loader = options.loader;
    this._trans = options.trans;
    this._onGoTo = options.onGoTo;
    this._format = options.numberFormat;
    this.addClass('jp-KernelState-summary');
    this.node.dataset.testId = 'kernel-state-explorer-summary';
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', this._trans.__('Column summary'));
    this._build();
    this._model.columnsChanged.connect(this._schedule, this);
    this._model.stateChanged.connect(this._onModelState, this);
    this._loader.changed.connect(this._onProfiles, this);
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
    const header = document.createElement('div');
    header.className = 'jp-KernelState-summaryHeader';
    const title = document.createElement('span');
    title.className = 'jp-KernelState-summaryTitle';
    title.textContent = trans.__('Columns');
    this._count.className = 'jp-KernelState-summaryCount';
    this._count.dataset.testId = 'kernel-state-explorer-summary-count';
    header.append(title, this._count);

    this._search.type = 'search';
    this._search.placeholder = trans.__('Search columns');
    this._search.setAttribute('aria-label', trans.__('Search columns'));
    this._search.dataset.testId = 'kernel-state-explorer-summary-search';
    this._search.className = 'jp-KernelState-summarySearch';
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

    this._note.className = 'jp-KernelState-summaryNote';
    this._note.dataset.testId = 'kernel-state-explorer-summary-note';
    this._note.setAttribute('role', 'status');

    this._list.className = 'jp-KernelState-summaryList';
    this._list.setAttribute('role', 'list');
    this._list.setAttribute('aria-label', trans.__('Columns'));
    this._list.addEventListener('keydown', event => this._onKey(event));

    this._more.type = 'button';
    this._more.className = 'jp-Button jp-mod-styled jp-mod-reject';
    this._more.dataset.testId = 'kernel-state-explorer-summary-more';
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
      const empty = document.createElement('div');
      empty.className = 'jp-KernelState-summaryEmpty';
      empty.textContent =
        info && this._model.knownColumns().length < info.columnsTotal
          ? trans.__('Looking for “%1” among the column names…', query)
          : trans.__('No column name contains “%1”', query);
      this._list.append(empty);
    }
    this._renderNote();
    if (this.isVisible) {
      this._loader.want(positions);
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
    const node = document.createElement('div');
    node.className = 'jp-KernelState-summaryRow';
    node.setAttribute('role', 'listitem');
    node.dataset.testId = 'kernel-state-explorer-summary-row';
    node.dataset.position = String(position);
    const line = document.createElement('div');
    line.className = 'jp-KernelState-summaryLine';
    const toggle = document.createElement('button');
    toggle.type = 'button';
    toggle.className = 'jp-KernelState-summaryToggle';
    toggle.dataset.testId = 'kernel-state-explorer-summary-toggle';
    const detailsId = `${this.id || 'kernel-state-summary'}-${position}-${Private.next()}`;
    toggle.setAttribute('aria-controls', detailsId);
    toggle.addEventListener('click', () => this.toggle(position));
    const go = document.createElement('button');
    go.type = 'button';
    go.className = 'jp-KernelState-summaryGo';
    go.dataset.testId = 'kernel-state-explorer-summary-go';
    go.addEventListener('click', () => this._onGoTo(position));
    const badge = document.createElement('span');
    badge.className = 'jp-KernelState-summaryBadge';
    badge.setAttribute('role', 'img');
    const name = document.createElement('span');
    name.className = 'jp-KernelState-summaryName';
    const missing = document.createElement('span');
    missing.className = 'jp-KernelState-summaryMissing';
    missing.setAttribute('role', 'meter');
    missing.setAttribute('aria-valuemin', '0');
    missing.setAttribute('aria-valuemax', '100');
    missing.dataset.testId = 'kernel-state-explorer-summary-missing';
    const fill = document.createElement('span');
    missing.append(fill);
    const spark = document.createElement('span');
    spark.className = 'jp-KernelState-summarySpark';
    spark.dataset.testId = 'kernel-state-explorer-summary-spark';
    go.append(badge, name, missing, spark);
    line.append(toggle, go);
    const details = document.createElement('div');
    details.id = detailsId;
    details.className = 'jp-KernelState-summaryDetails';
    details.setAttribute('role', 'region');
    details.dataset.testId = 'kernel-state-explorer-summary-details';
    details.hidden = true;
    node.append(line, details);
    return {
      node,
      toggle,
      go,
      badge,
      name,
      missing,
      fill,
      spark,
      details,
      profile: undefined,
      failure: undefined,
      expanded: false
    };
  }

  /**
   * Put a column's name, badge, missing share, sparkline and (expanded) statistics
   * in its row.
   */
  private _fill(row: IRow, position: number): void {
    const trans = this._trans;
    const profile = this._loader.profile(position) ?? null;
    const failure = this._loader.failure(position);
    const column = this._model.column(position);
    const name =
      profile?.name ?? column?.name ?? trans.__('column %1', position);
    const dtype = profile?.dtype ?? column?.dtype ?? null;
    const family = profile?.family ?? familyOf(dtype);
    const expanded = this._expanded.has(position);
    row.node.dataset.name = name;
    row.node.dataset.family = family;
    row.name.textContent = name;
    row.badge.textContent = trans._p('type badge', BADGES[family]);
    row.badge.dataset.family = family;
    row.badge.setAttribute('aria-label', familyLabel(family, trans));
    row.badge.title = dtype
      ? trans.__('%1 · %2', familyLabel(family, trans), dtype)
      : familyLabel(family, trans);
    row.go.title = trans.__('Show %1 in the grid', name);
    row.toggle.textContent = expanded ? '▾' : '▸';
    row.toggle.setAttribute('aria-expanded', String(expanded));
    row.toggle.setAttribute('aria-label', trans.__('Statistics of %1', name));
    row.details.setAttribute('aria-label', trans.__('Statistics of %1', name));
    row.node.classList.toggle('jp-mod-loading', !profile && !failure);

    const share = profile ? this._missingShare(profile) : null;
    row.missing.style.visibility = share === null ? 'hidden' : '';
    if (share !== null) {
      const percent = share * 100;
      row.fill.style.width = `${percent.toFixed(1)}%`;
      row.missing.setAttribute('aria-valuenow', percent.toFixed(1));
      const text = trans.__('%1% missing', percentText(percent));
      row.missing.setAttribute('aria-valuetext', text);
      row.missing.setAttribute('aria-label', trans.__('Missing values'));
      row.missing.title = text;
    }
    if (
      row.profile !== profile ||
      row.failure !== failure ||
      row.spark.childElementCount === 0
    ) {
      row.spark.replaceChildren();
      const bars = profile ? sparkBars(profile, trans, this._format) : null;
      if (bars) {
        row.spark.append(
          barChart(bars, 60, 16, trans.__('Distribution of %1', name))
        );
      } else if (profile?.family === 'datetime') {
        row.spark.textContent = '';
      } else if (failure) {
        row.spark.textContent = '!';
        row.spark.title =
          failure === CUT
            ? trans.__('Not profiled within the time budget')
            : failure;
      }
    }
    if (
      expanded !== row.expanded ||
      row.profile !== profile ||
      row.failure !== failure
    ) {
      row.details.hidden = !expanded;
      if (expanded) {
        row.details.replaceChildren(...this._details(profile, failure, dtype));
      } else {
        row.details.replaceChildren();
      }
    }
    row.profile = profile;
    row.failure = failure;
    row.expanded = expanded;
  }

  private _missingShare(profile: IColumnProfile): number | null {
    if (profile.null_count === null) {
      return null;
    }
    const rows = this._loader.rows;
    const total =
      rows?.filteredRows ??
      rows?.totalRows ??
      (profile.count ?? 0) + profile.null_count;
    return total > 0 ? Math.min(1, profile.null_count / total) : null;
  }

  /**
   * The statistics of an expanded column, by family.
   */
  private _details(
    profile: IColumnProfile | null,
    failure: string | undefined,
    dtype: string | null
  ): HTMLElement[] {
    const trans = this._trans;
    const format = this._format;
    if (!profile) {
      const waiting = document.createElement('div');
      waiting.className = 'jp-KernelState-summaryEmpty';
      waiting.textContent = failure
        ? failure === CUT
          ? trans.__('Not profiled within the time budget')
          : failure
        : trans.__('Computing…');
      return [waiting];
    }
    const list = document.createElement('dl');
    list.className = 'jp-KernelState-summaryStats';
    const add = (term: string, value: string) => {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      list.append(dt, dd);
    };
    const mark = profile.approximate ? '≈ ' : '';
    if (dtype) {
      add(trans.__('dtype'), dtype);
    }
    add(trans.__('values'), statText(profile.count, format));
    const share = this._missingShare(profile);
    add(
      trans.__('missing'),
      share === null
        ? statText(profile.null_count, format)
        : trans.__(
            '%1 (%2%)',
            statText(profile.null_count, format),
            percentText(share * 100)
          )
    );
    const stat = (
      term: string,
      value: IColumnProfile[keyof IColumnProfile]
    ) => {
      if (value !== undefined) {
        add(term, mark + statText(value as number | string | null, format));
      }
    };
    switch (profile.family) {
      case 'number':
        stat(trans.__('min'), profile.min);
        stat(trans.__('max'), profile.max);
        stat(trans.__('mean'), profile.mean);
        stat(trans.__('median'), profile.median);
        stat(trans.__('std'), profile.std);
        for (const key of ['5', '25', '75', '95']) {
          if (profile.quantiles && key in profile.quantiles) {
            stat(trans.__('%1th percentile', key), profile.quantiles[key]);
          }
        }
        break;
      case 'datetime':
        stat(trans.__('min'), profile.min);
        stat(trans.__('max'), profile.max);
        stat(trans.__('median'), profile.median);
        break;
      case 'string':
      case 'category':
        stat(trans.__('distinct'), profile.distinct);
        stat(trans.__('empty'), profile.empty);
        stat(trans.__('other values'), profile.other);
        break;
      case 'boolean':
        stat(trans.__('true'), profile.true);
        stat(trans.__('false'), profile.false);
        break;
      default:
        stat(trans.__('distinct'), profile.distinct);
        break;
    }
    const nodes: HTMLElement[] = [list];
    if (profile.error) {
      const error = document.createElement('div');
      error.className = 'jp-KernelState-summaryEmpty jp-mod-error';
      error.textContent = profile.error;
      nodes.push(error);
    }
    const chart = largeChart(profile, trans, format);
    if (chart) {
      nodes.push(chart);
    }
    return nodes;
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
  private _trans: TranslationBundle;
  private _onGoTo: (position: number) => void;
  private _format: INumberFormat;
  private _count = document.createElement('span');
  private _search = document.createElement('input');
  private _note = document.createElement('div');
  private _list = document.createElement('div');
  private _more = document.createElement('button');
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
  }
}

interface IRow {
  node: HTMLElement;
  toggle: HTMLButtonElement;
  go: HTMLButtonElement;
  badge: HTMLElement;
  name: HTMLElement;
  missing: HTMLElement;
  fill: HTMLElement;
  spark: HTMLElement;
  details: HTMLElement;
  profile: IColumnProfile | null | undefined;
  failure: string | undefined;
  expanded: boolean;
}

function percentText(percent: number): string {
  return percent > 0 && percent < 0.1
    ? '<0.1'
    : percent.toFixed(percent < 10 ? 1 : 0);
}

namespace Private {
  let counter = 0;
  export function next(): number {
    return ++counter;
  }
}
