/**
 * The data explorer plugin: the command `kernel-state:open-explorer` ({name, kernelId?})
 * that opens one variable of a kernel (the followed one by default) in a main-area tab,
 * or activates the tab already showing it. Its rows come through the service
 * (`IKernelStateService.rows` on the tab's kernel).
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
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs } from '../commands';
import { kernelStateIcon } from '../icon';
import { IKernelStateService } from '../tokens';
import { RowsDataModel } from './model';
import { VariableWatch } from './watch';
import { createExplorer, DataExplorer } from './widget';

/**
 * The arguments of `kernel-state:open-explorer`.
 */
export interface IOpenExplorerArgs {
  name?: string;
  kernelId?: string;
}

export const explorerPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-kernel-state:explorer',
  description:
    'The data explorer: a table, series or array of a kernel in a grid, read in windows.',
  autoStart: true,
  requires: [IKernelStateService],
  optional: [ICommandPalette, ILayoutRestorer, ITranslator, IThemeManager],
  activate: (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    translator: ITranslator | null,
    themes: IThemeManager | null
  ): void => {
    const translation = translator ?? nullTranslator;
    const trans = translation.load('jupyter_kernel_state');
    const tracker = new WidgetTracker<MainAreaWidget<DataExplorer>>({
      namespace: 'kernel-state-explorer'
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
      const model = new RowsDataModel({
        fetch: query => service.rows(name, query, kernelId),
        translator: translation
      });
      const widget = createExplorer({
        name,
        kernelId,
        model,
        translator: translation
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
  }
};
