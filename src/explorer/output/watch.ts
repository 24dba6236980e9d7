/**
 * Which table outputs of the open notebooks become grids (`grid.ts`), and when they
 * stop being reachable.
 *
 * Rules:
 * - Only a result this kernel session produced: the kernel's `execute_result` seen on
 *   IOPub (its execution count and plain text remembered, at most `MAX_RESULTS` per
 *   notebook); its grid is made when the kernel is next idle (the probe's turn). A saved notebook reopened keeps its static tables: its counts were never
 *   seen, or their text differs from what this session produced.
 * - The handle is IPython's `_<n>`; other languages keep the static table (IRkernel
 *   keeps no results: there is no `Out[n]` to read).
 * - A restart, a new kernel or a dead one: every grid of the notebook says its value
 *   is gone (its static table shown), and the counts seen are forgotten.
 * - The setting `outputGrid` decides whether a new grid shows itself or waits for its
 *   "Show as grid" button; each output is switched on its own afterwards.
 */
import { Cell, CodeCell } from '@jupyterlab/cells';
import type { IExecuteResult, IOutput } from '@jupyterlab/nbformat';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { KernelMessage } from '@jupyterlab/services';
import { TranslationBundle } from '@jupyterlab/translation';
import { IDisposable } from '@lumino/disposable';
import { Panel } from '@lumino/widgets';

import { isTableOutput } from '../notebook';
import { IExplorerSettings } from '../settings';
import { DataExplorer } from '../widget';
import { OutputGrid } from './grid';

/**
 * Results remembered per notebook (IPython's own output cache keeps 1000).
 */
export const MAX_RESULTS = 1000;

/**
 * Characters of a result's plain text compared with the output's.
 */
const TEXT_KEY_CHARS = 400;

interface ISeenResult {
  kernelId: string;
  text: string;
}

export class OutputGrids implements IDisposable {
  constructor(options: OutputGrids.IOptions) {
    this._options = options;
    options.notebooks.widgetAdded.connect((_, panel) => this._watch(panel));
    options.notebooks.forEach(panel => this._watch(panel));
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    this._disposed = true;
  }

  /**
   * The grids of a notebook, in no particular order.
   */
  gridsOf(panel: NotebookPanel): OutputGrid[] {
    return [...(this._grids.get(panel) ?? [])].filter(g => !g.isDisposed);
  }

  private _watch(panel: NotebookPanel): void {
    const seen = new Map<number, ISeenResult>();
    const grids = new Set<OutputGrid>();
    this._grids.set(panel, grids);
    const session = panel.sessionContext;
    const forget = () => {
      seen.clear();
      for (const grid of grids) {
        if (!grid.isDisposed) {
          grid.markGone();
        }
      }
      grids.clear();
    };
    let pending = false;
    session.iopubMessage.connect((_, msg) => {
      if (this._disposed) {
        return;
      }
      if (msg.header.msg_type === 'status') {
        const state = (msg as KernelMessage.IStatusMsg).content.execution_state;
        if (pending && state === 'idle') {
          // The probe reads a kernel between cells: the grid asks once it is idle
          // (asked while the cell runs, its first window would wait for a retry).
          pending = false;
          setTimeout(() => this._decorate(panel, seen, grids), 0);
        }
        return;
      }
      if (msg.header.msg_type !== 'execute_result') {
        return;
      }
      const kernel = session.session?.kernel;
      if (!kernel || !isPython(panel)) {
        return;
      }
      const content = (msg as KernelMessage.IExecuteResultMsg).content;
      const output: IExecuteResult = {
        output_type: 'execute_result',
        ...content
      };
      if (
        !isTableOutput(output) ||
        typeof content.execution_count !== 'number'
      ) {
        return;
      }
      if (seen.size >= MAX_RESULTS) {
        seen.delete(seen.keys().next().value as number);
      }
      seen.set(content.execution_count, {
        kernelId: kernel.id,
        text: plainText(output)
      });
      pending = true;
    });
    session.statusChanged.connect((_, status) => {
      if (
        status === 'restarting' ||
        status === 'dead' ||
        status === 'autorestarting'
      ) {
        forget();
      }
    });
    session.kernelChanged.connect(forget);
    panel.disposed.connect(() => {
      seen.clear();
      this._grids.delete(panel);
    });
  }

  /**
   * Put a grid on every table output of the notebook this session produced.
   */
  private _decorate(
    panel: NotebookPanel,
    seen: Map<number, ISeenResult>,
    grids: Set<OutputGrid>
  ): void {
    if (this._disposed || panel.isDisposed) {
      return;
    }
    for (const grid of grids) {
      if (grid.isDisposed) {
        grids.delete(grid); // its cell ran again, or was deleted
      }
    }
    for (const cell of panel.content.widgets) {
      if (!isCodeCell(cell)) {
        continue;
      }
      const area = cell.outputArea;
      area.widgets.forEach((child, index) => {
        if (index >= area.model.length || !(child instanceof Panel)) {
          return;
        }
        const output = area.model.get(index).toJSON();
        const count = output.execution_count;
        const result = typeof count === 'number' ? seen.get(count) : undefined;
        if (
          !result ||
          !isTableOutput(output) ||
          plainText(output) !== result.text ||
          child.widgets.some(w => w instanceof OutputGrid)
        ) {
          return;
        }
        const grid = this._attach(child, `_${count}`, result.kernelId);
        if (grid) {
          grids.add(grid);
        }
      });
    }
  }

  private _attach(
    child: Panel,
    handle: string,
    kernelId: string
  ): OutputGrid | null {
    const rendered = child.widgets.find(w => 'renderModel' in w);
    if (!rendered) {
      return null;
    }
    const options = this._options;
    const grid = new OutputGrid({
      handle,
      staticOutput: rendered,
      createExplorer: () => options.createExplorer(kernelId, handle),
      openInTab: name => options.openInTab(kernelId, name),
      trans: options.trans
    });
    child.addClass('jp-KernelState-outputChild');
    child.addWidget(grid);
    if (options.settings().outputGrid === 'on') {
      grid.showGrid();
    }
    return grid;
  }

  private _options: OutputGrids.IOptions;
  private _grids = new Map<NotebookPanel, Set<OutputGrid>>();
  private _disposed = false;
}

export namespace OutputGrids {
  export interface IOptions {
    notebooks: INotebookTracker;
    settings: () => IExplorerSettings;
    /**
     * The explorer on a result of a kernel, compact (no tab around it).
     */
    createExplorer: (kernelId: string, handle: string) => DataExplorer;
    /**
     * Open a result of a kernel in the Data Explorer's tab.
     */
    openInTab: (kernelId: string, handle: string) => void;
    trans: TranslationBundle;
  }
}

function isCodeCell(cell: Cell): cell is CodeCell {
  return cell.model.type === 'code' && 'outputArea' in cell;
}

function isPython(panel: NotebookPanel): boolean {
  // The notebook's language as its kernel reported it ('' before the first reply).
  const language = panel.model?.defaultKernelLanguage ?? '';
  return language === '' || language.toLowerCase() === 'python';
}

function plainText(output: IOutput): string {
  const data = (output.data ?? {}) as Record<string, unknown>;
  const text = data['text/plain'];
  const joined = Array.isArray(text) ? text.join('') : String(text ?? '');
  return joined.slice(0, TEXT_KEY_CHARS);
}
