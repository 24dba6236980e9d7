/**
 * One column's row in the summary panel: a button that expands its statistics and a
 * button that shows the column in the grid, holding the family's badge, the name,
 * its findings' badge, the share of missing values (a meter) and the sparkline;
 * below, the statistics. A row is made once and filled again as its profile (or its
 * findings) arrive.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ColumnFamily, IColumnProfile, IFinding } from '../../tokens';
import { INumberFormat } from '../data/numbers';
import { element } from '../dom';
import { fillFindingBadge, makeFindingBadge } from '../findings/badge';
import { barChart, sparkBars } from './charts';
import { failureText, percentText, statsNodes } from './stats';

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
 * A row's nodes, and what they show now.
 */
export interface IRow {
  node: HTMLElement;
  toggle: HTMLButtonElement;
  go: HTMLButtonElement;
  badge: HTMLElement;
  name: HTMLElement;
  findings: HTMLElement;
  missing: HTMLElement;
  fill: HTMLElement;
  spark: HTMLElement;
  details: HTMLElement;
  profile: IColumnProfile | null | undefined;
  failure: string | undefined;
  expanded: boolean;
}

/**
 * What a row shows of its column.
 */
export interface IRowState {
  profile: IColumnProfile | null;
  failure: string | undefined;
  name: string;
  dtype: string | null;
  family: ColumnFamily;
  expanded: boolean;
  /**
   * The share of missing values (0…1), null when not known.
   */
  share: number | null;
  /**
   * The findings about the column (none when not checked).
   */
  findings?: readonly IFinding[];
}

/**
 * The empty row of the column at `position`; its details have the id `detailsId`.
 */
export function makeRow(
  position: number,
  detailsId: string,
  onToggle: () => void,
  onGoTo: () => void
): IRow {
  const node = element('div', {
    className: 'jp-KernelState-summaryRow',
    role: 'listitem',
    testId: 'kernel-state-explorer-summary-row'
  });
  node.dataset.position = String(position);
  const line = element('div', { className: 'jp-KernelState-summaryLine' });
  const toggle = element('button', {
    className: 'jp-KernelState-summaryToggle',
    testId: 'kernel-state-explorer-summary-toggle'
  });
  toggle.type = 'button';
  toggle.setAttribute('aria-controls', detailsId);
  toggle.addEventListener('click', onToggle);
  const go = element('button', {
    className: 'jp-KernelState-summaryGo',
    testId: 'kernel-state-explorer-summary-go'
  });
  go.type = 'button';
  go.addEventListener('click', onGoTo);
  const badge = element('span', {
    className: 'jp-KernelState-summaryBadge',
    role: 'img'
  });
  const name = element('span', { className: 'jp-KernelState-summaryName' });
  const missing = element('span', {
    className: 'jp-KernelState-summaryMissing',
    role: 'meter',
    testId: 'kernel-state-explorer-summary-missing'
  });
  missing.setAttribute('aria-valuemin', '0');
  missing.setAttribute('aria-valuemax', '100');
  const fill = document.createElement('span');
  missing.append(fill);
  const spark = element('span', {
    className: 'jp-KernelState-summarySpark',
    testId: 'kernel-state-explorer-summary-spark'
  });
  const findings = makeFindingBadge();
  go.append(badge, name, findings, missing, spark);
  line.append(toggle, go);
  const details = element('div', {
    className: 'jp-KernelState-summaryDetails',
    role: 'region',
    testId: 'kernel-state-explorer-summary-details'
  });
  details.id = detailsId;
  details.hidden = true;
  node.append(line, details);
  return {
    node,
    toggle,
    go,
    badge,
    name,
    findings,
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
 * in its row; the sparkline and statistics only when what they show changed.
 */
export function fillRow(
  row: IRow,
  state: IRowState,
  trans: TranslationBundle,
  format: INumberFormat
): void {
  const { profile, failure, name, dtype, family, expanded, share } = state;
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
  fillFindingBadge(row.findings, state.findings ?? [], trans);

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
    const bars = profile ? sparkBars(profile, trans, format) : null;
    if (bars) {
      row.spark.append(
        barChart(bars, 60, 16, trans.__('Distribution of %1', name))
      );
    } else if (profile?.family === 'datetime') {
      row.spark.textContent = '';
    } else if (failure) {
      row.spark.textContent = '!';
      row.spark.title = failureText(failure, trans);
    }
  }
  if (
    expanded !== row.expanded ||
    row.profile !== profile ||
    row.failure !== failure
  ) {
    row.details.hidden = !expanded;
    if (expanded) {
      row.details.replaceChildren(
        ...statsNodes(profile, failure, dtype, share, trans, format)
      );
    } else {
      row.details.replaceChildren();
    }
  }
  row.profile = profile;
  row.failure = failure;
  row.expanded = expanded;
}
