/**
 * Table files in the Data Explorer (issue 30): "Open in Data Explorer" on a .csv,
 * .tsv, .parquet, .jsonl, .ndjson or .xlsx file of the file browser opens it in an
 * explorer tab read by the server (`source.ts`: no kernel needed) — the same grid,
 * sort, filters, summary, findings and code as a variable; what needs a kernel (Keep
 * this version, Compare with…, the stale banner) is left out. "Load into kernel"
 * inserts the code that loads the file with the tab's view (its filter, sort and
 * columns) below the active cell of the active notebook, in the notebook kernel's
 * language: pandas for Python (polars and DuckDB through the code panel's choice),
 * dplyr for R; the file's path written from the notebook's directory.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  ICommandPalette,
  MainAreaWidget,
  Notification,
  WidgetTracker
} from '@jupyterlab/apputils';
import { IFileBrowserFactory } from '@jupyterlab/filebrowser';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ITranslator, TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { CommandIDs } from '../../commands';
import { kernelStateIcon } from '../../icon';
import { CodeSyntax, ICodeQuery, IKernelStateRequests } from '../../tokens';
import { codeQuery } from '../code/syntaxes';
import { RowsDataModel } from '../data/model';
import { button } from '../dom';
import { describeError } from '../errors';
import { insertCodeBelow } from '../notebook';
import { IExplorerSettings } from '../settings';
import { createExplorer, DataExplorer } from '../widget';
import {
  directoryOf,
  FILE_SYNTAXES,
  FileSource,
  isTableFile,
  syntaxForLanguage
} from './source';

/**
 * What the file commands need of the explorer plugin.
 */
export interface IFileCommandsOptions {
  /**
   * The server's requests (`IKernelStateService`): the files routes.
   */
  requests: IKernelStateRequests;
  tracker: WidgetTracker<MainAreaWidget<DataExplorer>>;
  translator: ITranslator;
  trans: TranslationBundle;
  settings: () => IExplorerSettings;
  notebooks: INotebookTracker | null;
  browsers: IFileBrowserFactory | null;
  palette: ICommandPalette | null;
}

/**
 * The code of a file loaded with a view, inserted below the active cell of the active
 * notebook: the notebook's path, or null when no notebook is open.
 */
export async function loadIntoNotebook(
  notebooks: INotebookTracker | null,
  source: FileSource,
  query: ICodeQuery,
  syntax: CodeSyntax | null = null
): Promise<string | null> {
  const panel = notebooks?.currentWidget ?? null;
  if (!panel) {
    return null;
  }
  const chosen = syntax ?? syntaxForLanguage(await kernelLanguage(panel));
  const code = await source.code(
    { ...query, syntax: chosen },
    directoryOf(panel.context.path)
  );
  insertCodeBelow(panel.content, code.code);
  return panel.context.path;
}

/**
 * The language of a notebook's kernel (its kernel's info, else the notebook's
 * metadata), or null.
 */
async function kernelLanguage(panel: NotebookPanel): Promise<string | null> {
  const kernel = panel.sessionContext.session?.kernel;
  if (kernel) {
    try {
      return (await kernel.info).language_info.name;
    } catch {
      // the notebook's own word below
    }
  }
  return panel.model?.defaultKernelLanguage || null;
}

export function addFileCommands(
  app: JupyterFrontEnd,
  options: IFileCommandsOptions
): (path: string) => MainAreaWidget<DataExplorer> {
  const { tracker, trans, notebooks, browsers, requests } = options;

  const selectedFile = (): string | null => {
    const browser = browsers?.tracker.currentWidget;
    const item = browser ? browser.selectedItems().next() : undefined;
    const model = item && !item.done ? item.value : undefined;
    return model && model.type !== 'directory' && isTableFile(model.path)
      ? model.path
      : null;
  };
  const pathOf = (args: Record<string, unknown>): string | null =>
    typeof args.path === 'string' && args.path ? args.path : selectedFile();

  const open = (path: string): MainAreaWidget<DataExplorer> => {
    const existing = tracker.find(widget => widget.content.path === path);
    if (existing) {
      app.shell.activateById(existing.id);
      return existing;
    }
    const source = new FileSource(path, requests);
    const model = new RowsDataModel({
      fetch: query => source.rows(query),
      translator: options.translator
    });
    const here = (): string | null => {
      const panel = notebooks?.currentWidget;
      return panel ? directoryOf(panel.context.path) : null;
    };
    const widget = createExplorer({
      name: path.split('/').pop() ?? path,
      kernelId: '',
      path,
      model,
      translator: options.translator,
      settings: options.settings(),
      profile: query => source.profile(query),
      findings: query => source.findings(query),
      code: query => source.code(query, here()),
      codeSyntaxes: FILE_SYNTAXES,
      insertCode: async code => {
        const panel = notebooks?.currentWidget;
        if (!panel) {
          return null;
        }
        insertCodeBelow(panel.content, code);
        return panel.context.path;
      }
    });
    widget.title.icon = kernelStateIcon;
    widget.toolbar.addItem('load', loadButton(app, trans, path));
    void tracker.add(widget);
    app.shell.add(widget, 'main');
    app.shell.activateById(widget.id);
    void model.load();
    return widget;
  };

  app.commands.addCommand(CommandIDs.openFileExplorer, {
    label: trans.__('Open in Data Explorer'),
    caption: trans.__(
      'Show this table file in a grid, read by the server (no kernel needed)'
    ),
    icon: args => (args.isPalette ? undefined : kernelStateIcon),
    isVisible: args => pathOf(args) !== null,
    execute: args => {
      const path = pathOf(args);
      return path ? open(path) : null;
    }
  });

  app.commands.addCommand(CommandIDs.loadFileIntoKernel, {
    label: trans.__('Load into kernel'),
    caption: trans.__(
      'Insert the code that loads this file (with the Data Explorer view: filter, sort, columns) below the active cell of the active notebook'
    ),
    isVisible: args => pathOf(args) !== null,
    isEnabled: () => !!notebooks?.currentWidget,
    execute: async args => {
      const path = pathOf(args);
      if (!path) {
        return null;
      }
      const tab = tracker.find(widget => widget.content.path === path);
      const view = tab ? codeQuery(tab.content.model, null) : {};
      const syntax =
        typeof args.syntax === 'string' ? (args.syntax as CodeSyntax) : null;
      try {
        const where = await loadIntoNotebook(
          notebooks,
          new FileSource(path, requests),
          'tooWide' in view ? {} : view,
          syntax
        );
        if (where === null) {
          Notification.warning(
            trans.__('Open a notebook to load %1 into its kernel', path),
            { autoClose: 5000 }
          );
        }
        return where;
      } catch (error) {
        Notification.error(describeError(error).message, { autoClose: 8000 });
        return null;
      }
    }
  });

  const selector = '.jp-DirListing-item[data-isdir="false"]';
  app.contextMenu.addItem({
    command: CommandIDs.openFileExplorer,
    selector,
    rank: 3
  });
  app.contextMenu.addItem({
    command: CommandIDs.loadFileIntoKernel,
    selector,
    rank: 3.1
  });
  return open;
}

/**
 * The file tab's "Load into kernel" button.
 */
function loadButton(
  app: JupyterFrontEnd,
  trans: TranslationBundle,
  path: string
): Widget {
  const node = button(
    trans.__('Load into kernel'),
    'kernel-state-explorer-load-file',
    {
      title: trans.__(
        'Insert the code that loads %1 with this view (filter, sort, columns) below the active cell of the active notebook',
        path
      )
    }
  );
  node.addEventListener('click', () => {
    void app.commands.execute(CommandIDs.loadFileIntoKernel, { path });
  });
  const item = new Widget({ node });
  item.addClass('jp-KernelState-explorerLoad');
  return item;
}
