/**
 * "Compare with…": from an explorer tab, pick another table of the same kernel, or a
 * version of this one kept earlier ("Keep this version": `sales as of [12]`, sent as
 * `@12`) — the before; the tab's variable is the after — and, optionally, the key's
 * columns, then open a tab comparing them (`ComparisonView`), or activate the one
 * already open. The commands (`COMPARE_COMMAND`, on the current explorer tab or on
 * `{kernelId, name, other, key}`; *Keep This Version*), their toolbar buttons and palette
 * items.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  InputDialog,
  MainAreaWidget,
  showDialog,
  WidgetTracker
} from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Widget } from '@lumino/widgets';

import { IKernelStateService } from '../../tokens';
import { button } from '../dom';
import { DataExplorer } from '../widget';
import { keepVersion, keptWith, withLabel } from './keep';
import { ComparisonModel } from './model';
import { ComparisonView } from './view';
import { CommandIDs } from '../../commands';

export const COMPARE_COMMAND = CommandIDs.explorerCompareWith;

/**
 * Variables listed when picking the other table.
 */
const MAX_LISTED = 1000;

/**
 * What `COMPARE_COMMAND` takes (none: the current explorer tab's variable, the rest
 * asked).
 */
export interface ICompareArgs {
  kernelId?: string;
  name?: string;
  other?: string;
  key?: string[];
}

/**
 * The other table and the key's columns, asked of the user; null when cancelled or
 * when the kernel has no other table.
 */
export async function pickOther(
  service: IKernelStateService,
  kernelId: string,
  name: string,
  trans: TranslationBundle
): Promise<{ other: string; key: string[] } | null> {
  const [listing, kept] = await Promise.all([
    service.listVariables({ detail: 'names', limit: MAX_LISTED }, kernelId),
    // None kept, or a kernel that keeps none (R): no versions to list.
    service.keptVersions(name, kernelId).catch(() => null)
  ]);
  const choices = new Map<string, string>(); // label -> `with`
  for (const version of [...(kept?.versions ?? [])].reverse()) {
    const other = keptWith(version.execution_count);
    choices.set(withLabel(trans, name, other), other);
  }
  for (const v of listing.variables) {
    if (v.kind === 'dataframe' && v.name !== name) {
      choices.set(v.name, v.name);
    }
  }
  const title = trans.__('Compare %1 with…', name);
  if (!choices.size) {
    await showDialog({
      title,
      body: trans.__(
        'This kernel has no other table to compare %1 with, and no version of it is kept (Keep this version keeps one to compare with after later cells).',
        name
      ),
      buttons: [Dialog.okButton()]
    });
    return null;
  }
  const chosen = await InputDialog.getItem({
    title,
    label: trans.__(
      'The table before (%1 is the after): another table, or a version of %1 kept earlier',
      name
    ),
    items: [...choices.keys()]
  });
  if (!chosen.button.accept || !chosen.value) {
    return null;
  }
  const other = choices.get(chosen.value) ?? chosen.value;
  const key = await InputDialog.getText({
    title,
    label: trans.__(
      'Key columns, comma-separated (empty: the index when it says something, else the position)'
    ),
    placeholder: 'id'
  });
  if (!key.button.accept) {
    return null;
  }
  return { other, key: splitKey(key.value ?? '') };
}

/**
 * `region, day` as the key's columns.
 */
export function splitKey(text: string): string[] {
  return text
    .split(',')
    .map(part => part.trim())
    .filter(part => part.length > 0);
}

/**
 * Register `COMPARE_COMMAND`; `explorers` gives the current explorer tab.
 */
export function addCompareCommand(
  app: JupyterFrontEnd,
  explorers: WidgetTracker<MainAreaWidget<DataExplorer>>,
  service: IKernelStateService,
  trans: TranslationBundle,
  palette: ICommandPalette | null,
  insert: (kernelId: string, code: string) => Promise<string | null>
): WidgetTracker<MainAreaWidget<ComparisonView>> {
  const tracker = new WidgetTracker<MainAreaWidget<ComparisonView>>({
    namespace: 'kernel-state-compare'
  });
  const open = (
    kernelId: string,
    name: string,
    other: string,
    key: string[]
  ) => {
    const id = `kernel-state-compare-${kernelId}-${encodeURIComponent(
      name
    )}-${encodeURIComponent(other)}-${encodeURIComponent(key.join(','))}`;
    const existing = tracker.find(widget => widget.id === id);
    if (existing) {
      app.shell.activateById(id);
      return existing;
    }
    const model = new ComparisonModel({
      name,
      other,
      key,
      fetch: query => service.compare(name, query, kernelId)
    });
    const content = new ComparisonView({
      model,
      trans,
      insert: code => insert(kernelId, code)
    });
    const widget = new MainAreaWidget({ content });
    const before = withLabel(trans, name, other);
    widget.id = id;
    widget.title.label = trans.__('%1 vs %2', name, before);
    widget.title.caption = trans.__('%1 compared with %2', name, before);
    widget.title.closable = true;
    widget.disposed.connect(() => model.dispose());
    void tracker.add(widget);
    app.shell.add(widget, 'main');
    app.shell.activateById(widget.id);
    void model.load();
    return widget;
  };
  // The table a command acts on: the one its arguments name, else the current explorer's.
  const target = (given: ICompareArgs) => {
    const explorer = explorers.currentWidget?.content ?? null;
    return {
      kernelId: given.kernelId ?? explorer?.kernelId,
      name: given.name ?? explorer?.name
    };
  };
  app.commands.addCommand(CommandIDs.explorerCompareWith, {
    label: trans.__('Compare with…'),
    caption: trans.__(
      'Compare this table with another of the kernel, or with a version of it kept earlier, row by row: rows added, removed and changed'
    ),
    isEnabled: args =>
      !!(args as ICompareArgs).name ||
      !!explorers.currentWidget?.content.kernelId, // not a file's tab
    execute: async args => {
      const given = args as ICompareArgs;
      const { kernelId, name } = target(given);
      if (!kernelId || !name) {
        return null;
      }
      const picked = given.other
        ? { other: given.other, key: given.key ?? [] }
        : await pickOther(service, kernelId, name, trans);
      if (picked === null) {
        return null;
      }
      return open(kernelId, name, picked.other, picked.key);
    }
  });
  palette?.addItem({
    command: CommandIDs.explorerCompareWith,
    category: trans.__('Kernel State')
  });
  app.commands.addCommand(CommandIDs.explorerKeepVersion, {
    label: trans.__('Keep This Version'),
    caption: trans.__(
      'Keep a copy of this table as it is now, to compare it with after later cells'
    ),
    isEnabled: args =>
      !!(args as ICompareArgs).name ||
      !!explorers.currentWidget?.content.kernelId, // not a file's tab
    execute: async args => {
      const { kernelId, name } = target(args as ICompareArgs);
      if (!kernelId || !name) {
        return null;
      }
      return keepVersion(service, kernelId, name, trans);
    }
  });
  palette?.addItem({
    command: CommandIDs.explorerKeepVersion,
    category: trans.__('Kernel State')
  });
  return tracker;
}

/**
 * The explorer toolbar's "Compare with…" button, for the tab of `name`.
 */
export function compareButton(
  commands: CommandRegistry,
  trans: TranslationBundle,
  args: ICompareArgs
): Widget {
  const node = button(
    trans.__('Compare with…'),
    'kernel-state-explorer-compare',
    {
      title: trans.__(
        'Compare %1 with another table of the kernel',
        args.name ?? ''
      )
    }
  );
  const payload: ReadonlyPartialJSONObject = {
    kernelId: args.kernelId,
    name: args.name
  };
  node.addEventListener('click', () => {
    void commands.execute(CommandIDs.explorerCompareWith, payload);
  });
  const item = new Widget({ node });
  item.addClass('jp-KernelState-explorerCompare');
  return item;
}
