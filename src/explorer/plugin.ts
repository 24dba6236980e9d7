/**
 * The data explorer plugin: the command `kernel-state:open-explorer` ({name, kernelId?})
 * that opens one variable of a kernel (the followed one by default) in a main-area tab,
 * or activates the tab already showing it; "Open in Data Explorer" on a notebook cell
 * whose result is a table; the commands of the explorer's grid (its context menu:
 * filter to or exclude a value, sort, pin, hide, copy) and views (summary, code, go to
 * column); the settings of `schema/explorer.json`. Rows, statistics and code come
 * through the service (`IKernelStateService.rows`, `.count`, `.profile`, `.code` on
 * the tab's kernel).
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
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs } from '../commands';
import { kernelStateIcon } from '../icon';
import { IKernelStateService } from '../tokens';
import { RowsDataModel } from './model';
import { insertCodeBelow, notebookOfKernel, tableNameOfCell } from './notebook';
import { VariableWatch } from './watch';
import {
  createExplorer,
  DataExplorer,
  DEFAULT_EXPLORER_SETTINGS,
  IExplorerSettings
} from './widget';

/**
 * The arguments of `kernel-state:open-explorer`.
 */
export interface IOpenExplorerArgs {
  name?: string;
  kernelId?: string;
}

const PLUGIN_ID = 'jupyter-kernel-state:explorer';

/**
 * The explorer settings of a settings object (`schema/explorer.json`).
 */
export function readSettings(
  composite: Partial<Record<string, unknown>>
): IExplorerSettings {
  const digits = Number(composite.significantDigits);
  return {
    summaryPosition: composite.summaryPosition === 'right' ? 'right' : 'left',
    showSummary: composite.showSummary !== false,
    numberFormat: {
      digits: Number.isFinite(digits)
        ? Math.min(17, Math.max(1, Math.round(digits)))
        : DEFAULT_EXPLORER_SETTINGS.numberFormat.digits,
      grouping: composite.thousandsSeparator !== false
    }
  };
}

/**
 * A value in a menu label: at most 30 characters.
 */
function short(value: string): string {
  return value.length > 30 ? `${value.slice(0, 29)}…` : value;
}

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
    ISettingRegistry
  ],
  activate: (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    translator: ITranslator | null,
    themes: IThemeManager | null,
    notebooks: INotebookTracker | null,
    settingRegistry: ISettingRegistry | null
  ): void => {
    const translation = translator ?? nullTranslator;
    const trans = translation.load('jupyter_kernel_state');
    const tracker = new WidgetTracker<MainAreaWidget<DataExplorer>>({
      namespace: 'kernel-state-explorer'
    });
    let settings = DEFAULT_EXPLORER_SETTINGS;

    const open = (kernelId: string, name: string) => {
      const existing = tracker.find(
        widget =>
          widget.content.kernelId === kernelId && widget.content.name === name
      );
      if (existing) {
        app.shell.activateById(existing.id);
        return existing;
      }
      const model = new RowsDataModel({
        fetch: query => service.rows(name, query, kernelId),
        count: query => service.count(name, query, kernelId),
        translator: translation
      });
      const widget = createExplorer({
        name,
        kernelId,
        model,
        translator: translation,
        settings,
        profile: query => service.profile(name, query, kernelId),
        code: query => service.code(name, query, kernelId),
        insertCode: async code => {
          const panel = notebookOfKernel(notebooks, kernelId);
          if (!panel) {
            return null;
          }
          insertCodeBelow(panel.content, code);
          return panel.context.path;
        }
      });
      widget.title.icon = kernelStateIcon;
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
        !!(args.kernelId as string) || service.kernelId !== null,
      execute: async args => {
        const { kernelId: given, name: givenName } = args as IOpenExplorerArgs;
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

    addExplorerCommands(app, tracker, trans, palette);

    if (restorer) {
      void restorer.restore(tracker, {
        command: CommandIDs.openExplorer,
        args: widget => ({
          name: widget.content.name,
          kernelId: widget.content.kernelId
        }),
        name: widget => `${widget.content.kernelId}:${widget.content.name}`
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

/**
 * The commands of the current explorer tab: its grid's context menu and its views.
 */
function addExplorerCommands(
  app: JupyterFrontEnd,
  tracker: WidgetTracker<MainAreaWidget<DataExplorer>>,
  trans: ReturnType<ITranslator['load']>,
  palette: ICommandPalette | null
): void {
  const current = () => tracker.currentWidget?.content ?? null;
  const hit = () => current()?.grid.contextHit ?? null;
  const value = () => current()?.valueAt(hit());
  const column = () => {
    const explorer = current();
    return explorer?.model.column(explorer.positionOf(hit())) ?? null;
  };
  const position = () => current()?.positionOf(hit()) ?? -1;
  const valueText = () => {
    const cell = value();
    return cell === null ? trans.__('missing') : `“${short(cell ?? '')}”`;
  };

  app.commands.addCommand(CommandIDs.explorerFilterToValue, {
    label: () => trans.__('Filter to %1', valueText()),
    caption: trans.__('Keep the rows where this column holds this value'),
    isVisible: () => value() !== undefined && column() !== null,
    execute: () => current()?.filterByCell(hit(), false)
  });
  app.commands.addCommand(CommandIDs.explorerExcludeValue, {
    label: () => trans.__('Exclude %1', valueText()),
    caption: trans.__(
      'Keep the rows where this column holds another value, or none'
    ),
    isVisible: () => value() !== undefined && column() !== null,
    execute: () => current()?.filterByCell(hit(), true)
  });
  app.commands.addCommand(CommandIDs.explorerSortAscending, {
    label: () => trans.__('Sort by %1 ascending', column()?.name ?? ''),
    isVisible: () => column() !== null,
    execute: () => current()?.sortByColumn(hit(), 'asc')
  });
  app.commands.addCommand(CommandIDs.explorerSortDescending, {
    label: () => trans.__('Sort by %1 descending', column()?.name ?? ''),
    isVisible: () => column() !== null,
    execute: () => current()?.sortByColumn(hit(), 'desc')
  });
  app.commands.addCommand(CommandIDs.explorerPinColumn, {
    label: () => trans.__('Pin %1', column()?.name ?? ''),
    caption: trans.__('Keep this column beside the row labels'),
    isVisible: () =>
      column() !== null && !current()!.model.layout.isPinned(position()),
    execute: () => current()?.model.pinColumn(position())
  });
  app.commands.addCommand(CommandIDs.explorerUnpinColumn, {
    label: () => trans.__('Unpin %1', column()?.name ?? ''),
    isVisible: () =>
      column() !== null && current()!.model.layout.isPinned(position()),
    execute: () => current()?.model.unpinColumn(position())
  });
  app.commands.addCommand(CommandIDs.explorerHideColumn, {
    label: () => trans.__('Hide %1', column()?.name ?? ''),
    isVisible: () => column() !== null,
    execute: () => current()?.model.hideColumn(position())
  });
  app.commands.addCommand(CommandIDs.explorerShowAllColumns, {
    label: trans.__('Show All Columns'),
    isVisible: () => (current()?.model.layout.hiddenCount ?? 0) > 0,
    execute: () => current()?.model.showAllColumns()
  });
  app.commands.addCommand(CommandIDs.explorerCopy, {
    label: trans.__('Copy'),
    caption: trans.__('Copy the selected cells, their full values'),
    isEnabled: () => current() !== null,
    execute: () => current()?.copySelection(false)
  });
  app.commands.addCommand(CommandIDs.explorerCopyWithHeaders, {
    label: trans.__('Copy with Headers'),
    caption: trans.__(
      'Copy the selected cells with the column names and row labels'
    ),
    isEnabled: () => current() !== null,
    execute: () => current()?.copySelection(true)
  });
  app.commands.addCommand(CommandIDs.explorerToggleSummary, {
    label: trans.__('Show Column Summary'),
    caption: trans.__('Show or hide the statistics of the columns'),
    isEnabled: () => current() !== null,
    isToggled: () => current()?.summary.isVisible ?? false,
    execute: () => current()?.toggleSummary()
  });
  app.commands.addCommand(CommandIDs.explorerShowCode, {
    label: trans.__('Convert View to Code'),
    caption: trans.__(
      'Show the code that gives the rows, order and columns shown'
    ),
    isEnabled: () => current() !== null,
    execute: () => current()?.toggleCode(true)
  });
  app.commands.addCommand(CommandIDs.explorerGoToColumn, {
    label: trans.__('Go to Column…'),
    isEnabled: () => current() !== null,
    execute: async args => {
      const explorer = current();
      if (!explorer) {
        return false;
      }
      let name = typeof args.name === 'string' ? args.name : '';
      if (!name) {
        const answer = await InputDialog.getText({
          title: trans.__('Go to Column'),
          label: trans.__('Column name (or part of it)')
        });
        if (!answer.button.accept || !answer.value) {
          return false;
        }
        name = answer.value;
      }
      return explorer.goToColumnNamed(name);
    }
  });
  for (const command of [
    CommandIDs.explorerToggleSummary,
    CommandIDs.explorerShowCode,
    CommandIDs.explorerGoToColumn,
    CommandIDs.explorerShowAllColumns
  ]) {
    palette?.addItem({ command, category: trans.__('Kernel State') });
  }
}
