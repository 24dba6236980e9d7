/**
 * Plugins of jupyter_kernel_state: the service (provides IKernelStateService), the
 * sidebar with its commands and settings, the data explorer, and `@var:`/`@kernel` in
 * jupyterlab-chat.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { Clipboard, ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IConsoleTracker } from '@jupyterlab/console';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import { CommandIDs } from './commands';
import { sizeText } from './components/AssistantView';
import {
  DEFAULT_INCLUDE,
  DEFAULT_LIMIT,
  DEFAULT_PROMPT_BUDGET,
  DEFAULT_PROMPT_HISTORY,
  DEFAULT_SHOW_PREVIEW,
  DEFAULT_SORT
} from './defaults';
import { identifierAt } from './format';
import { kernelStateIcon } from './icon';
import { ISessionWidgetTracker } from './kernelFollower';
import { followActiveCell, goToCell } from './notebookCells';
import { KernelStateService } from './service';
import {
  IKernelStateOptions,
  IKernelStateService,
  IncludeGroup,
  SnapshotSort
} from './tokens';
import { KernelStateSidebar } from './widgets/sidebar';
import { addTabCommands } from './widgets/tabs';
import { explorerPlugin } from './explorer/plugin';
import { chatPlugin } from './chat/plugin';

export * from './tokens';
export { KernelStateModel } from './models/kernel';
export { KernelStateService } from './service';
export { CommandIDs } from './commands';
export { ImageStripModel } from './models/images';
export { PromptModel } from './models/prompt';
export { InspectorModel } from './models/inspector';

const SETTINGS_PLUGIN_ID = 'jupyter-kernel-state:plugin';

/**
 * The service that follows the active notebook or console kernel.
 */
const servicePlugin: JupyterFrontEndPlugin<IKernelStateService> = {
  id: 'jupyter-kernel-state:service',
  description:
    'Follows the active notebook or console kernel and keeps its variables current.',
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
  optional: [
    ISettingRegistry,
    ITranslator,
    ICommandPalette,
    ILayoutRestorer,
    INotebookTracker,
    IConsoleTracker
  ],
  activate: (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null,
    palette: ICommandPalette | null,
    restorer: ILayoutRestorer | null,
    notebooks: INotebookTracker | null,
    consoles: IConsoleTracker | null
  ): void => {
    const trans = (translator ?? nullTranslator).load('jupyter_kernel_state');
    let settings: ISettingRegistry.ISettings | null = null;

    const sidebar = new KernelStateSidebar({
      service,
      translator: translator ?? nullTranslator,
      commands: app.commands,
      goToCell: notebooks ? cellId => goToCell(notebooks, cellId) : undefined,
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
    if (notebooks) {
      // the list's "used by the active cell" view follows the active cell
      followActiveCell(notebooks, cellId => sidebar.list.setActiveCell(cellId));
    }
    sidebar.title.icon = kernelStateIcon;
    app.shell.add(sidebar, 'left', { rank: 600 });
    restorer?.add(sidebar, sidebar.id);

    app.commands.addCommand(CommandIDs.open, {
      label: trans.__('Show Kernel State'),
      caption: trans.__('Show the variables of the active kernel'),
      icon: args => (args.isPalette ? undefined : kernelStateIcon),
      execute: async () => {
        app.shell.activateById(sidebar.id);
        await sidebar.focusContent(); // the keyboard follows into the panel
      }
    });
    addTabCommands(app, {
      service,
      translator: translator ?? nullTranslator,
      palette,
      promptQuery: () => sidebar.prompt.query,
      promptModel: sidebar.prompt
    });
    app.commands.addCommand(CommandIDs.refresh, {
      label: trans.__('Refresh Kernel State'),
      caption: trans.__('Read the active kernel’s variables again'),
      isEnabled: () => service.kernelId !== null,
      execute: () => service.refresh()
    });
    app.commands.addCommand(CommandIDs.copyPrompt, {
      label: trans.__('Copy Kernel State for an Assistant'),
      caption: trans.__(
        'Copy the text an assistant would get about the active kernel (the assistant view)'
      ),
      isEnabled: () => service.kernelId !== null,
      execute: async () => {
        try {
          const result = await service.prompt(sidebar.prompt.query);
          Clipboard.copyToSystem(result.text);
          Notification.success(
            trans.__(
              'Copied the kernel state for an assistant: %1',
              sizeText(result, trans)
            ),
            { autoClose: 3000 }
          );
        } catch (reason) {
          Notification.error(
            trans.__(
              'Cannot read the kernel state: %1',
              reason instanceof Error ? reason.message : String(reason)
            ),
            { autoClose: 5000 }
          );
        }
      }
    });

    /**
     * The selected text of the active cell (notebook or console), else the
     * identifier at the cursor, when it is a valid name.
     */
    const selectedName = (): string | null => {
      const current = app.shell.currentWidget;
      const console = consoles?.currentWidget;
      const editor =
        console && console === current
          ? console.console.promptCell?.editor
          : notebooks?.activeCell?.editor;
      if (!editor) {
        return null;
      }
      const source = editor.model.sharedModel.getSource();
      const { start, end } = editor.getSelection();
      const from = editor.getOffsetAt(start);
      const to = editor.getOffsetAt(end);
      return identifierAt(source, Math.min(from, to), Math.max(from, to));
    };
    app.commands.addCommand(CommandIDs.inspectSelected, {
      label: args => {
        const name = args.isPalette ? null : selectedName();
        return name
          ? trans.__('Inspect “%1” in Kernel State', name)
          : trans.__('Inspect Selected Variable in Kernel State');
      },
      caption: trans.__(
        'Show the variable named by the selection (or the name at the cursor) in the Kernel State inspector'
      ),
      icon: args => (args.isPalette ? undefined : kernelStateIcon),
      isEnabled: () => service.kernelId !== null,
      execute: () => {
        app.shell.activateById(sidebar.id);
        const name = selectedName();
        if (name) {
          sidebar.inspect(name);
        }
      }
    });

    service.changed.connect(() => {
      app.commands.notifyCommandChanged(CommandIDs.refresh);
      app.commands.notifyCommandChanged(CommandIDs.copyPrompt);
      app.commands.notifyCommandChanged(CommandIDs.inspectSelected);
    });
    if (palette) {
      const category = trans.__('Kernel State');
      for (const command of [
        CommandIDs.open,
        CommandIDs.refresh,
        CommandIDs.copyPrompt,
        CommandIDs.inspectSelected
      ]) {
        palette.addItem({ command, category });
      }
    }

    if (settingRegistry) {
      const apply = (loaded: ISettingRegistry.ISettings) => {
        const composite = loaded.composite as Record<string, unknown>;
        const options: Partial<IKernelStateOptions> = {
          include: (composite.include as IncludeGroup[]) ?? [
            ...DEFAULT_INCLUDE
          ],
          sort: (composite.sort as SnapshotSort) ?? DEFAULT_SORT,
          limit: (composite.limit as number) ?? DEFAULT_LIMIT
        };
        service.setOptions(options);
        sidebar.showPreview =
          (composite.showPreview as boolean) ?? DEFAULT_SHOW_PREVIEW;
        sidebar.columnWidths = composite.columnWidths;
        sidebar.setPromptQuery({
          budget: (composite.promptBudget as number) ?? DEFAULT_PROMPT_BUDGET,
          history: (composite.promptHistory as number) ?? DEFAULT_PROMPT_HISTORY
        });
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

const plugins: JupyterFrontEndPlugin<unknown>[] = [
  servicePlugin,
  sidebarPlugin,
  explorerPlugin,
  chatPlugin
];

export default plugins;
