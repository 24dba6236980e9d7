/**
 * The explorer and notebooks: the notebook a kernel's variables live in, inserting
 * code as a new cell below its active cell (as JupyterLab's own "Insert Cell Below"
 * does, `NotebookActions.insertBelow`), and the variable a cell shows as a DataFrame
 * (its last expression, when that is a bare name and its result a table).
 */
import type { ICellModel } from '@jupyterlab/cells';
import type { IOutput } from '@jupyterlab/nbformat';
import {
  INotebookTracker,
  Notebook,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';

/**
 * The open notebook running `kernelId`: the current one when it does, else the first.
 */
export function notebookOfKernel(
  tracker: INotebookTracker | null,
  kernelId: string
): NotebookPanel | null {
  if (!tracker) {
    return null;
  }
  const runs = (panel: NotebookPanel | null) =>
    !!panel && panel.sessionContext.session?.kernel?.id === kernelId;
  if (runs(tracker.currentWidget)) {
    return tracker.currentWidget;
  }
  return tracker.find(panel => runs(panel)) ?? null;
}

/**
 * Put `code` in a new code cell below the active cell of `notebook` (the new cell
 * becomes the active one); returns its index.
 */
export function insertCodeBelow(notebook: Notebook, code: string): number {
  if (!notebook.model) {
    throw new Error('The notebook has no model');
  }
  NotebookActions.insertBelow(notebook);
  const cell = notebook.activeCell;
  if (!cell) {
    throw new Error('No cell was inserted');
  }
  if (cell.model.type !== 'code') {
    NotebookActions.changeCellType(notebook, 'code');
  }
  notebook.activeCell!.model.sharedModel.setSource(code);
  return notebook.activeCellIndex;
}

/**
 * A bare name: Python identifiers, and R names (dots allowed).
 */
const BARE_NAME = /^[A-Za-z_.][A-Za-z0-9_.]*$/;

/**
 * The name a cell's last line is, when it is only a name: `df`, `df  # the sales`.
 */
export function lastExpressionName(source: string): string | null {
  const lines = source
    .split('\n')
    .map(line => line.replace(/\s+#.*$/, '').replace(/^#.*$/, ''))
    .filter(line => line.trim() !== '');
  const last = lines[lines.length - 1];
  if (last === undefined || /^\s/.test(last)) {
    return null; // inside a block: not the cell's result
  }
  const name = last.trim();
  return BARE_NAME.test(name) && !/^\d/.test(name) && !KEYWORDS.has(name)
    ? name
    : null;
}

const KEYWORDS = new Set([
  'None',
  'True',
  'False',
  'pass',
  'break',
  'continue',
  'return',
  'NULL',
  'NA',
  'TRUE',
  'FALSE',
  'Inf',
  'NaN'
]);

/**
 * Whether an output is a table's rich display: pandas, polars and IRkernel write
 * `<table class="dataframe">`; some write a data resource.
 */
export function isTableOutput(output: IOutput): boolean {
  if (output.output_type !== 'execute_result') {
    return false;
  }
  const data = (output.data ?? {}) as Record<string, unknown>;
  if ('application/vnd.dataresource+json' in data) {
    return true;
  }
  const html = data['text/html'];
  const text = Array.isArray(html) ? html.join('') : html;
  return (
    typeof text === 'string' &&
    /<table[^>]*class="[^"]*\bdataframe\b/.test(text)
  );
}

/**
 * The variable a code cell shows as a table — its last expression, a bare name,
 * whose result is a table — or null.
 */
export function tableNameOfCell(
  model: ICellModel | null | undefined
): string | null {
  if (!model || model.type !== 'code') {
    return null;
  }
  const outputs = (model as ICellModel & { outputs?: { toJSON(): IOutput[] } })
    .outputs;
  if (!outputs || !outputs.toJSON().some(isTableOutput)) {
    return null;
  }
  return lastExpressionName(model.sharedModel.getSource());
}
