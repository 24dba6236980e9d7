/**
 * How the explorer's grid paints: a cell's text (numbers at a readable precision,
 * missing values by dtype, "…" while loading), its renderers, and its colours and
 * fonts read from JupyterLab's theme variables (the grid paints on a canvas, which
 * does not follow CSS by itself); text measured in those fonts.
 */
import {
  CellRenderer,
  DataGrid,
  RendererMap,
  TextRenderer
} from '@lumino/datagrid';

import { isNumericDtype } from '../dtypes';
import { formatCell, INumberFormat } from './numbers';
import { ICellMetadata } from './query';

/**
 * The text of a cell not loaded yet.
 */
export const PLACEHOLDER = '…';

/**
 * The text of a missing value, by dtype.
 */
export function nullText(dtype: string | null | undefined): string {
  if (!dtype) {
    return 'null';
  }
  if (/^(float|complex)/i.test(dtype)) {
    return 'NaN';
  }
  if (/^(datetime|timedelta|date|duration)/i.test(dtype)) {
    return 'NaT';
  }
  return 'null';
}

/**
 * The grid's colours and fonts.
 */
export interface ITheme {
  style: DataGrid.Style;
  font: string;
  headerFont: string;
  text: string;
  muted: string;
}

/**
 * The grid's colours and fonts from JupyterLab's CSS variables (light or dark theme).
 */
export function readTheme(): ITheme {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) =>
    css.getPropertyValue(name).trim() || fallback;
  const size = read('--jp-ui-font-size1', '13px');
  const font = `${size} ${read('--jp-code-font-family', 'monospace')}`;
  const headerFont = `${size} ${read('--jp-ui-font-family', 'sans-serif')}`;
  const border = read('--jp-border-color2', '#e0e0e0');
  return {
    font,
    headerFont,
    text: read('--jp-ui-font-color0', '#000'),
    muted: read('--jp-ui-font-color3', '#9e9e9e'),
    style: {
      ...DataGrid.defaultStyle,
      voidColor: read('--jp-layout-color0', '#fff'),
      backgroundColor: read('--jp-layout-color0', '#fff'),
      headerBackgroundColor: read('--jp-layout-color2', '#eee'),
      gridLineColor: border,
      headerGridLineColor: read('--jp-border-color1', '#bdbdbd'),
      selectionFillColor: 'rgba(33, 150, 243, 0.15)',
      selectionBorderColor: read('--jp-brand-color1', '#1976d2'),
      cursorBorderColor: read('--jp-brand-color1', '#1976d2'),
      headerSelectionFillColor: 'rgba(33, 150, 243, 0.1)',
      headerSelectionBorderColor: read('--jp-brand-color1', '#1976d2'),
      rowBackgroundColor: i =>
        i % 2 === 0 ? 'rgba(0, 0, 0, 0)' : 'rgba(128, 128, 128, 0.06)'
    }
  };
}

/**
 * The text a cell paints: numbers formatted, missing values by dtype, "…" while
 * loading.
 */
export function cellText(
  value: unknown,
  dtype: string | null | undefined,
  format: INumberFormat
): string {
  if (value === undefined) {
    return PLACEHOLDER;
  }
  if (value === null) {
    return nullText(dtype);
  }
  return formatCell(String(value), dtype, format);
}

/**
 * The renderers of the grid's regions: the body (numbers right-aligned, missing
 * values in italics), the headers, the row labels and the index's name.
 */
export function makeRenderers(
  theme: ITheme,
  numberFormat: () => INumberFormat
): RendererMap {
  const missing = (config: CellRenderer.CellConfig) =>
    config.value === null || config.value === undefined;
  const dtype = (config: CellRenderer.CellConfig) =>
    (config.metadata as ICellMetadata).dtype;
  const body = new TextRenderer({
    font: config => (missing(config) ? `italic ${theme.font}` : theme.font),
    textColor: config => (missing(config) ? theme.muted : theme.text),
    horizontalAlignment: config =>
      isNumericDtype(dtype(config)) ? 'right' : 'left',
    format: config => cellText(config.value, dtype(config), numberFormat())
  });
  const placeholderOr = (config: CellRenderer.CellConfig) =>
    config.value === undefined
      ? PLACEHOLDER
      : config.value === null
        ? 'null'
        : String(config.value);
  const columnHeader = new TextRenderer({
    font: config =>
      config.row === 0 ? `bold ${theme.headerFont}` : theme.headerFont,
    textColor: config =>
      config.row === 0 && config.value !== undefined ? theme.text : theme.muted,
    format: placeholderOr
  });
  const rowLabel = new TextRenderer({
    font: theme.font,
    textColor: config =>
      config.value === undefined ? theme.muted : theme.text,
    horizontalAlignment: 'right',
    format: placeholderOr
  });
  const indexName = new TextRenderer({
    font: `italic ${theme.headerFont}`,
    textColor: theme.muted,
    format: placeholderOr
  });
  return new RendererMap({
    body,
    // Column 0: the row labels; 1…: the pinned columns.
    'column-header': columnHeader,
    'row-header': config => (config.column === 0 ? rowLabel : body),
    'corner-header': config => (config.column === 0 ? indexName : columnHeader)
  });
}

let measuring: CanvasRenderingContext2D | null | undefined;

/**
 * A context to measure text with (null without a canvas).
 */
export function measuringContext(): CanvasRenderingContext2D | null {
  if (measuring === undefined) {
    measuring = document.createElement('canvas').getContext('2d');
  }
  return measuring;
}
