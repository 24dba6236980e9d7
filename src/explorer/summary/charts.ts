/**
 * The summary panel's charts, as SVG built node by node (values from the kernel are
 * only ever text content, never markup): a sparkline per column — the histogram of a
 * number column, the top values of a text or category column, true against false —
 * and a larger chart with labels for an expanded column. Colours come from CSS
 * classes over JupyterLab's `--jp-*` variables, so both themes apply.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { IColumnProfile } from '../../tokens';
import { formatFloat, groupDigits, INumberFormat } from '../data/numbers';
import { element } from '../dom';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * A statistic as text: integers exact with separators, floats at the grid's
 * precision, text (dates) as it came.
 */
export function statText(
  value: number | string | boolean | null | undefined,
  format: INumberFormat
): string {
  if (value === null || value === undefined) {
    return '—';
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < 1e15
      ? format.grouping
        ? groupDigits(String(value))
        : String(value)
      : formatFloat(value, format);
  }
  return String(value);
}

/**
 * The bars of a column's sparkline: heights (counts) and what each is, or null when
 * the family has none.
 */
export function sparkBars(
  profile: IColumnProfile,
  trans: TranslationBundle,
  format: INumberFormat
): { counts: number[]; labels: string[] } | null {
  if (profile.error) {
    return null;
  }
  switch (profile.family) {
    case 'number': {
      const histogram = profile.histogram;
      if (!histogram || histogram.counts.length === 0) {
        return null;
      }
      return {
        counts: histogram.counts,
        labels: histogram.counts.map((count, i) =>
          trans.__(
            '%1 – %2: %3',
            statText(histogram.edges[i], format),
            statText(histogram.edges[i + 1], format),
            statText(count, format)
          )
        )
      };
    }
    case 'string':
    case 'category': {
      const top = profile.top ?? [];
      if (top.length === 0) {
        return null;
      }
      return {
        counts: top.map(item => item.count),
        labels: top.map(item =>
          trans.__(
            '%1: %2',
            item.value === null ? 'null' : String(item.value),
            statText(item.count, format)
          )
        )
      };
    }
    case 'boolean':
      return {
        counts: [profile.true ?? 0, profile.false ?? 0],
        labels: [
          trans.__('true: %1', statText(profile.true ?? 0, format)),
          trans.__('false: %1', statText(profile.false ?? 0, format))
        ]
      };
    default:
      return null;
  }
}

/**
 * A bar chart `width` × `height`: one bar a count, each with its label as a tooltip.
 */
export function barChart(
  bars: { counts: number[]; labels: string[] },
  width: number,
  height: number,
  label: string
): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.classList.add('jp-KernelState-chart');
  const max = Math.max(1, ...bars.counts);
  const step = width / Math.max(1, bars.counts.length);
  const gap = step > 3 ? 1 : 0;
  bars.counts.forEach((count, i) => {
    const barHeight = count > 0 ? Math.max(1, (count / max) * height) : 0;
    const rect = document.createElementNS(SVG, 'rect');
    rect.setAttribute('x', (i * step).toFixed(2));
    rect.setAttribute('y', (height - barHeight).toFixed(2));
    rect.setAttribute('width', Math.max(0.5, step - gap).toFixed(2));
    rect.setAttribute('height', barHeight.toFixed(2));
    rect.classList.add('jp-KernelState-chartBar');
    const title = document.createElementNS(SVG, 'title');
    title.textContent = bars.labels[i] ?? '';
    rect.append(title);
    svg.append(rect);
  });
  return svg;
}

/**
 * The larger chart of an expanded column: a histogram with its range below, or the
 * top values as labelled bars (HTML: the values are long text), or null.
 */
export function largeChart(
  profile: IColumnProfile,
  trans: TranslationBundle,
  format: INumberFormat
): HTMLElement | null {
  const bars = sparkBars(profile, trans, format);
  if (!bars) {
    return null;
  }
  const node = element('div', { className: 'jp-KernelState-summaryChart' });
  if (profile.family === 'number') {
    node.append(
      barChart(bars, 240, 64, trans.__('Histogram of %1', profile.name))
    );
    const edges = profile.histogram!.edges;
    const axis = element('div', { className: 'jp-KernelState-summaryAxis' });
    axis.append(
      element('span', { text: statText(edges[0], format) }),
      element('span', { text: statText(edges[edges.length - 1], format) })
    );
    node.append(axis);
    return node;
  }
  const total = bars.counts.reduce((sum, count) => sum + count, 0);
  const max = Math.max(1, ...bars.counts);
  const list = element('ul', {
    className: 'jp-KernelState-summaryTop',
    label:
      profile.family === 'boolean'
        ? trans.__('True and false')
        : trans.__('Most frequent values')
  });
  const names =
    profile.family === 'boolean'
      ? ['true', 'false']
      : (profile.top ?? []).map(item =>
          item.value === null ? 'null' : String(item.value)
        );
  bars.counts.forEach((count, i) => {
    const item = document.createElement('li');
    const name = element('span', {
      className: 'jp-KernelState-summaryTopValue',
      text: names[i],
      title: names[i]
    });
    const bar = element('span', { className: 'jp-KernelState-summaryTopBar' });
    const fill = document.createElement('span');
    fill.style.width = `${((count / max) * 100).toFixed(1)}%`;
    bar.append(fill);
    const text = statText(count, format);
    const amount = element('span', {
      className: 'jp-KernelState-summaryTopCount',
      text,
      title: total > 0 ? `${((count / total) * 100).toFixed(1)}%` : text
    });
    item.append(name, bar, amount);
    list.append(item);
  });
  node.append(list);
  return node;
}
