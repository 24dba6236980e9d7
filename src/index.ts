/**
 * Plugins of jupyter_kernel_state: the service (provides IKernelStateService) and the
 * sidebar with its commands and settings.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IConsoleTracker } from '@jupyterlab/console';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { kernelStateIcon } from './icon';
import { ISessionWidgetTracker, KernelStateService } from './service';
import {
  IKernelStateOptions,
  IKernelStateService,
  IncludeGroup,
  SnapshotSort
} from './tokens';
import { KernelStateSidebar } from './widgets/sidebar';

export * from './tokens';
export { KernelStateModel } from './model';
export { KernelStateService } from './service';
export * as restapi from './restapi';

namespace CommandIDs {
  export const open = 'kernel-state:open';
  export const refresh = 'kernel-state:refresh';
}

const SETTINGS_PLUGIN_ID = 'jupyter-kernel-state:plugin';

/**
 * The service that follows the active notebook or console kernel.
 */
const servicePlugin: JupyterFrontEndPlugin<IKernelStateService> = {
  id: 'jupyter-kernel-state:service',
  description: 'Follows the active notebook or console kernel and keeps its variables current.',
  autoStart: true,
  provides: IKernelStateService,
  optional: [INotebookTracker, IConsoleTracker, ILabShell],
  activate: (
    app: JupyterFrontEnd,
    notebooks: INotebookTracker | null,
    consoles: IConsoleTracker | null,
    labShell: ILabShell | null
  ): IKernelStateService => {
    const trackers = [notebooks, consoles].filter(
      tracker => tracker !== null
    ) as unknown as ISessionWidgetTracker[];
    return new KernelStateService({
      serverSettings: app.serviceManager.serverSettings,
      trackers,
      shell: labShell ?? app.shell
    });
  }
};

/**
 * The sidebar, its commands and settings.
 */
const sidebarPlugin: JupyterFrontEndPlugin<void> = {
  id: SETTINGS_PLUGIN_ID,
  description: 'The Kernel State sidebar: the variables of the active kernel.',
  autoStart: true,
  requires: [IKernelStateService],
  optional: [ISettingRegistry, ITranslator, ICommandPalette, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_kernel_state');
    let settings: ISettingRegistry.ISettings | null = null;

    const sidebar = new KernelStateSidebar({
      service,
      translator: translator ?? nullTranslator,
      onOptionsChange: options => {
        if (!settings) {
          service.setOptions(options);
          return;
        }
        for (const [key, value] of Object.entries(options)) {
          void settings.set(key, value as string | string[]);
        }
      }
    });
    sidebar.title.icon = kernelStateIcon;
    app.shell.add(sidebar, 'left', { rank: 600 });
    restorer?.add(sidebar, sidebar.id);

    app.commands.addCommand(CommandIDs.open, {
      label: trans.__('Show Kernel State'),
      caption: trans.__('Show the variables of the active kernel'),
      icon: args => (args.isPalette ? undefined : kernelStateIcon),
      execute: () => app.shell.activateById(sidebar.id)
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: trans.__('Refresh Kernel State'),
      caption: trans.__('Read the active kernel’s variables again'),
      isEnabled: () => service.kernelId !== null,
      execute: () => service.refresh()
    });
    service.changed.connect(() => app.commands.notifyCommandChanged(CommandIDs.refresh));
    if (palette) {
      const category = trans.__('Kernel State');
      palette.addItem({ command: CommandIDs.open, category });
      palette.addItem({ command: CommandIDs.refresh, category });
    }

    if (settingRegistry) {
      const apply = (loaded: ISettingRegistry.ISettings) => {
        const composite = loaded.composite as Record<string, unknown>;
        const options: Partial<IKernelStateOptions> = {
          include: (composite.include as IncludeGroup[]) ?? [],
          sort: (composite.sort as SnapshotSort) ?? 'name',
          limit: (composite.limit as number) ?? 2000
        };
        service.setOptions(options);
        sidebar.showPreview = composite.showPreview !== false;
      };
      settingRegistry
        .load(SETTINGS_PLUGIN_ID)
        .then(loaded => {
          settings = loaded;
          apply(loaded);
          loaded.changed.connect(apply);
        })
        .catch(reason => {
          console.error('jupyter-kernel-state: cannot load settings', reason);
        });
    }
  }
};

const plugins: JupyterFrontEndPlugin<unknown>[] = [servicePlugin, sidebarPlugin];

export default plugins;
