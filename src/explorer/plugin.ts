/**
 * The data explorer plugin: the command `kernel-state:open-explorer` ({name, kernelId?})
 * that opens one variable of a kernel (the followed one by default) in a main-area tab,
 * or activates the tab already showing it; "Open in Data Explorer" on a notebook cell
 * whose result is a table; the tab's own commands (`commands.ts`); the settings of
 * `schema/explorer.json` (`settings.ts`), applied to every tab. Rows, statistics and
 * code come through the service (`IKernelStateService.rows`, `.count`, `.profile`,
 * `.code` on the tab's kernel); "Compare with…" (`compare/`) compares its table with
 * another of the kernel, or with a version of it kept by "Keep this version" (`.keep`),
 * in a tab of its own (`.compare`). A table a notebook cell returns is shown as the
 * grid in place (`output/`), read by the result's handle (`_<n>`).
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  ICommandPalette,
  InputDialog,
  IThemeManager,
  MainAreaWidget,
  WidgetTracker
} from '@jupyterlab/apputils';
import { IFileBrowserFactory } from '@jupyterlab/filebrowser';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs } from '../commands';
import { kernelStateIcon } from '../icon';
import { IKernelStateService } from '../tokens';
import { addExplorerCommands } from './commands';
import { keepButton } from './compare/keep';
import { addCompareCommand, compareButton } from './compare/open';
import { RowsDataModel } from './data/model';
import { VariableWatch } from './data/watch';
import { addFileCommands } from './files/commands';
import { insertCodeBelow, notebookOfKernel, tableNameOfCell } from './notebook';
import { OutputGrids } from './output/watch';
import { DEFAULT_EXPLORER_SETTINGS, readSettings } from './settings';
import { createExplorer, DataExplorer } from './widget';

/**
 * The arguments of `kernel-state:open-explorer`.
 */
export interface IOpenExplorerArgs {
  name?: string;
  kernelId?: string;
  /**
   * A table file to open instead of a variable (its API path).
   */
  path?: string;
}

const PLUGIN_ID = 'jupyter-kernel-state:explorer';

export const explorerPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'The data explorer: a table, series or array of a kernel in a grid, read in windows.',
  autoStart: true,
  requires: [IKernelStateService],
  optional: [
    ICommandPalette,
    ILayoutRestorer,
    ITranslator,
    IThemeManager,
    INotebookTracker,
    ISettingRegistry,
    IFileBrowserFactory
  ],
  activate: (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    translator: ITranslator | null,
    themes: IThemeManager | null,
    notebooks: INotebookTracker | null,
    settingRegistry: ISettingRegistry | null,
    browsers: IFileBrowserFactory | null
  ): void => {
    const translation = translator ?? nullTranslator;
    const trans = translation.load('jupyter_kernel_state');
    const tracker = new WidgetTracker<MainAreaWidget<DataExplorer>>({
      namespace: 'kernel-state-explorer'
    });
    let settings = DEFAULT_EXPLORER_SETTINGS;

    // Code inserted below the active cell of a notebook of the kernel: its path.
    const insertInto = async (kernelId: string, code: string) => {
      const panel = notebookOfKernel(notebooks, kernelId);
      if (!panel) {
        return null;
      }
      insertCodeBelow(panel.content, code);
      return panel.context.path;
    };

    // Table files, read by the server (no kernel): `files/commands.ts`.
    const openFile = addFileCommands(app, {
      requests: service,
      tracker,
      translator: translation,
      trans,
      settings: () => settings,
      notebooks,
      browsers,
      palette
    });

    // The explorer's parts on one variable (or result handle) of a kernel.
    const explorerOptions = (
      kernelId: string,
      name: string
    ): DataExplorer.IOptions => ({
      name,
      kernelId,
      model: new RowsDataModel({
        fetch: query => service.rows(name, query, kernelId),
        count: query => service.count(name, query, kernelId),
        translator: translation
      }),
      translator: translation,
      settings,
      profile: query => service.profile(name, query, kernelId),
      findings: query => service.findings(name, query, kernelId),
      code: query => service.code(name, query, kernelId),
      insertCode: code => insertInto(kernelId, code)
    });

    const open = (kernelId: string, name: string) => {
      const existing = tracker.find(
        widget =>
          widget.content.kernelId === kernelId && widget.content.name === name
      );
      if (existing) {
        app.shell.activateById(existing.id);
        return existing;
      }
      const options = explorerOptions(kernelId, name);
      const model = options.model;
      const widget = createExplorer(options);
      widget.title.icon = kernelStateIcon;
      widget.toolbar.addItem(
        'keep',
        keepButton(app.commands, trans, { kernelId, name })
      );
      widget.toolbar.addItem(
        'compare',
        compareButton(app.commands, trans, { kernelId, name })
      );
      const watch = new VariableWatch({ service, kernelId, name, model });
      widget.disposed.connect(() => watch.dispose());
      void tracker.add(widget);
      app.shell.add(widget, 'main');
      app.shell.activateById(widget.id);
      void model.load();
      return widget;
    };

    // The grid paints on a canvas: give it the new theme's colours.
    themes?.themeChanged.connect(() => {
      requestAnimationFrame(() =>
        tracker.forEach(widget => widget.content.grid.applyTheme())
      );
    });

    app.commands.addCommand(CommandIDs.openExplorer, {
      label: trans.__('Open in Data Explorer'),
      caption: trans.__(
        'Show a table, series or array of the kernel in a grid, every row reachable'
      ),
      icon: args => (args.isPalette ? undefined : kernelStateIcon),
      isEnabled: args =>
        !!(args.kernelId as string) ||
        !!(args.path as string) ||
        service.kernelId !== null,
      execute: async args => {
        const {
          kernelId: given,
          name: givenName,
          path
        } = args as IOpenExplorerArgs;
        if (typeof path === 'string' && path) {
          return openFile(path);
        }
        const kernelId = given ?? service.kernelId;
        if (!kernelId) {
          return null;
        }
        let name = typeof givenName === 'string' ? givenName : '';
        if (!name) {
          const answer = await InputDialog.getText({
            title: trans.__('Open in Data Explorer'),
            label: trans.__('Variable name'),
            placeholder: 'df'
          });
          if (!answer.button.accept || !answer.value?.trim()) {
            return null;
          }
          name = answer.value.trim();
        }
        return open(kernelId, name);
      }
    });
    palette?.addItem({
      command: CommandIDs.openExplorer,
      category: trans.__('Kernel State')
    });

    // A notebook cell whose result is a table: its context menu.
    const cellTable = () => {
      const panel = notebooks?.currentWidget;
      const kernelId = panel?.sessionContext.session?.kernel?.id;
      const name = tableNameOfCell(notebooks?.activeCell?.model);
      return kernelId && name ? { kernelId, name } : null;
    };
    app.commands.addCommand(CommandIDs.openExplorerFromCell, {
      label: () => {
        const table = cellTable();
        return table
          ? trans.__('Open %1 in Data Explorer', table.name)
          : trans.__('Open in Data Explorer');
      },
      caption: trans.__(
        "Show the table this cell's last expression names in the Data Explorer"
      ),
      icon: kernelStateIcon,
      isVisible: () => cellTable() !== null,
      execute: () => {
        const table = cellTable();
        return table ? open(table.kernelId, table.name) : null;
      }
    });

    // Table outputs of notebooks as grids, in place (`output/`).
    if (notebooks) {
      new OutputGrids({
        notebooks,
        settings: () => settings,
        createExplorer: (kernelId, handle) =>
          new DataExplorer({
            ...explorerOptions(kernelId, handle),
            // A frame of fixed height: the summary waits for its button.
            settings: { ...settings, showSummary: false }
          }),
        openInTab: (kernelId, handle) => void open(kernelId, handle),
        trans
      });
    }

    addExplorerCommands(app, tracker, trans, palette);
    addCompareCommand(app, tracker, service, trans, palette, insertInto);

    if (restorer) {
      void restorer.restore(tracker, {
        command: CommandIDs.openExplorer,
        args: widget =>
          widget.content.path !== null
            ? { path: widget.content.path }
            : { name: widget.content.name, kernelId: widget.content.kernelId },
        name: widget =>
          widget.content.path !== null
            ? `file:${widget.content.path}`
            : `${widget.content.kernelId}:${widget.content.name}`
      });
    }

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then(loaded => {
          const apply = () => {
            settings = readSettings(loaded.composite);
            tracker.forEach(widget => {
              widget.content.settings = settings;
            });
          };
          loaded.changed.connect(apply);
          apply();
        })
        .catch(reason => {
          console.error(
            'jupyter-kernel-state: cannot load the explorer settings',
            reason
          );
        });
    }
  }
};
