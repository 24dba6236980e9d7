/**
 * The statistics of an expanded column in the summary panel, by family (numbers:
 * range, mean, median, spread and percentiles; text and categories: distinct, empty
 * and other values; booleans: true against false), its missing share, and its larger
 * chart. Statistics an engine estimated or a sample gave are marked ≈.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { IColumnProfile } from '../../tokens';
import { INumberFormat } from '../data/numbers';
import { element } from '../dom';
import { largeChart, statText } from './charts';
import { CUT, IProfileRows } from './profile';

/**
 * The share of a column's values that are missing (0…1), out of the rows profiled;
 * null when not known.
 */
export function missingShare(
  profile: IColumnProfile,
  rows: IProfileRows | null
): number | null {
  if (profile.null_count === null) {
    return null;
  }
  const total =
    rows?.filteredRows ??
    rows?.totalRows ??
    (profile.count ?? 0) + profile.null_count;
  return total > 0 ? Math.min(1, profile.null_count / total) : null;
}

/**
 * A percentage as the panel shows it: `<0.1`, `4.2`, `37`.
 */
export function percentText(percent: number): string {
  return percent > 0 && percent < 0.1
    ? '<0.1'
    : percent.toFixed(percent < 10 ? 1 : 0);
}

/**
 * Why a column has no statistics, as the panel says it.
 */
export function failureText(failure: string, trans: TranslationBundle): string {
  return failure === CUT
    ? trans.__('Not profiled within the time budget')
    : failure;
}

/**
 * The statistics of an expanded column, by family; "Computing…" (or why not) while
 * it has no profile.
 */
export function statsNodes(
  profile: IColumnProfile | null,
  failure: string | undefined,
  dtype: string | null,
  share: number | null,
  trans: TranslationBundle,
  format: INumberFormat
): HTMLElement[] {
  if (!profile) {
    return [
      element('div', {
        className: 'jp-KernelState-summaryEmpty',
        text: failure ? failureText(failure, trans) : trans.__('Computing…')
      })
    ];
  }
  const list = element('dl', { className: 'jp-KernelState-summaryStats' });
  const add = (term: string, value: string) => {
    list.append(element('dt', { text: term }), element('dd', { text: value }));
  };
  const mark = profile.approximate ? '≈ ' : '';
  if (dtype) {
    add(trans.__('dtype'), dtype);
  }
  add(trans.__('values'), statText(profile.count, format));
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
  const stat = (term: string, value: IColumnProfile[keyof IColumnProfile]) => {
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
    nodes.push(
      element('div', {
        className: 'jp-KernelState-summaryEmpty jp-mod-error',
        text: profile.error
      })
    );
  }
  const chart = largeChart(profile, trans, format);
  if (chart) {
    nodes.push(chart);
  }
  return nodes;
}
