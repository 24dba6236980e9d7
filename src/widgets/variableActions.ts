/**
 * The actions on one variable of the sidebar's list: the row context menu (open in
 * the Data Explorer, inspect, copy the name, the value as text or as code, delete)
 * and the dialog that confirms a deletion.
 */
import { Dialog, showDialog, showErrorMessage } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { Menu } from '@lumino/widgets';

import { CommandIDs } from '../commands';
import { copyAsCode } from '../format';
import { InspectorModel } from '../models/inspector';
import { IKernelStateService, IVariable } from '../tokens';

/**
 * What the menu's commands act through (the sidebar).
 */
export interface IVariableActionsHost {
  trans: TranslationBundle;
  service: IKernelStateService;
  inspector: InspectorModel;
  /**
   * The sidebar's node: the list there gets the keyboard back when the menu closes.
   */
  node: HTMLElement;
  /**
   * The listed (not removed) variable of a name.
   */
  variable(name: string): IVariable | undefined;
  canExplore(
    variable: Pick<IVariable, 'kind' | 'type' | 'preview'> | undefined
  ): boolean;
  openExplorer(name: string): void;
  deleteVariable(name: string): Promise<boolean>;
  copy(text: string): void;
}

export function createVariableMenu(host: IVariableActionsHost): Menu {
  const trans = host.trans;
  const commands = new CommandRegistry();
  const name = (args: { name?: unknown }) => String(args.name ?? '');
  const present = (args: { name?: unknown }) => !!host.variable(name(args));
  commands.addCommand(CommandIDs.listOpenExplorer, {
    label: trans.__('Open in Data Explorer'),
    isEnabled: args => host.canExplore(host.variable(name(args))),
    execute: args => host.openExplorer(name(args))
  });
  commands.addCommand(CommandIDs.listInspect, {
    label: trans.__('Inspect'),
    isEnabled: present,
    execute: args => void host.inspector.select(name(args))
  });
  commands.addCommand(CommandIDs.listCopyName, {
    label: trans.__('Copy Name'),
    execute: args => host.copy(name(args))
  });
  commands.addCommand(CommandIDs.listCopyValue, {
    label: trans.__('Copy Value as Text'),
    isEnabled: present,
    execute: async args => {
      try {
        // A masked secret copies as masked: only Reveal shows the value.
        const detail = await host.service.inspect(name(args));
        host.copy(detail.repr);
      } catch (reason) {
        void showErrorMessage(
          trans.__('Cannot copy %1', name(args)),
          reason instanceof Error ? reason.message : String(reason)
        );
      }
    }
  });
  commands.addCommand(CommandIDs.listCopyCode, {
    label: trans.__('Copy as Code'),
    caption: trans.__(
      'Copy `name = value` (numbers, strings, and small lists and dicts shown whole)'
    ),
    isEnabled: args => {
      const variable = host.variable(name(args));
      return !!variable && copyAsCode(variable) !== null;
    },
    execute: args => {
      const variable = host.variable(name(args));
      const code = variable ? copyAsCode(variable) : null;
      if (code !== null) {
        host.copy(code);
      }
    }
  });
  commands.addCommand(CommandIDs.listDelete, {
    label: trans.__('Delete…'),
    isEnabled: present,
    execute: args => void host.deleteVariable(name(args))
  });
  const menu = new Menu({ commands });
  menu.addClass('jp-KernelState-menu');
  menu.node.dataset.testId = 'kernel-state-menu';
  menu.aboutToClose.connect(() => {
    // Give the keyboard back to the list.
    requestAnimationFrame(() =>
      host.node.querySelector<HTMLElement>('[role="grid"]')?.focus()
    );
  });
  return menu;
}

/**
 * Fill `menu` with the row commands of `name` and open it at client coordinates.
 */
export function openVariableMenu(
  menu: Menu,
  name: string,
  x: number,
  y: number
): void {
  menu.clearItems();
  const args = { name };
  for (const command of MENU_COMMANDS) {
    if (command === 'separator') {
      menu.addItem({ type: 'separator' });
    } else {
      menu.addItem({ command, args });
    }
  }
  menu.open(x, y);
}

export async function confirmDeleteDialog(
  trans: TranslationBundle,
  name: string
): Promise<boolean> {
  const result = await showDialog({
    title: trans.__('Delete %1?', name),
    body: trans.__(
      'Delete the variable “%1” from the kernel (like `del %1`)? Its value is lost unless another name refers to it.',
      name
    ),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Cancel') }),
      Dialog.warnButton({ label: trans.__('Delete') })
    ]
  });
  return result.button.accept;
}

/**
 * The row context menu, in order.
 */
const MENU_COMMANDS = [
  CommandIDs.listOpenExplorer,
  CommandIDs.listInspect,
  'separator',
  CommandIDs.listCopyName,
  CommandIDs.listCopyValue,
  CommandIDs.listCopyCode,
  'separator',
  CommandIDs.listDelete
];
