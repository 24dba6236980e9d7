/**
 * "Compare with…": from an explorer tab, pick another table of the same kernel (the
 * before; the tab's variable is the after) and, optionally, the key's columns, then
 * open a tab comparing them (`ComparisonView`), or activate the one already open. The
 * command (`COMPARE_COMMAND`, on the current explorer tab or on `{kernelId, name,
 * other, key}`), its toolbar button and its palette item.
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
  const listing = await service.listVariables(
    { detail: 'names', limit: MAX_LISTED },
    kernelId
  );
  const tables = listing.variables
    .filter(v => v.kind === 'dataframe' && v.name !== name)
    .map(v => v.name);
  const title = trans.__('Compare %1 with…', name);
  if (!tables.length) {
    await showDialog({
      title,
      body: trans.__(
        'This kernel has no other table to compare %1 with.',
        name
      ),
      buttons: [Dialog.okButton()]
    });
    return null;
  }
  const chosen = await InputDialog.getItem({
    title,
    label: trans.__('The table before (%1 is the after)', name),
    items: tables
  });
  if (!chosen.button.accept || !chosen.value) {
    return null;
  }
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
  return { other: chosen.value, key: splitKey(key.value ?? '') };
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
    widget.id = id;
    widget.title.label = trans.__('%1 vs %2', name, other);
    widget.title.caption = trans.__('%1 compared with %2', name, other);
    widget.title.closable = true;
    widget.disposed.connect(() => model.dispose());
    void tracker.add(widget);
    app.shell.add(widget, 'main');
    app.shell.activateById(widget.id);
    void model.load();
    return widget;
  };
  app.commands.addCommand(CommandIDs.explorerCompareWith, {
    label: trans.__('Compare with…'),
    caption: trans.__(
      'Compare this table with another of the kernel, row by row: rows added, removed and changed'
    ),
    isEnabled: args =>
      !!(args as ICompareArgs).name || explorers.currentWidget !== null,
    execute: async args => {
      const given = args as ICompareArgs;
      const explorer = explorers.currentWidget?.content ?? null;
      const kernelId = given.kernelId ?? explorer?.kernelId;
      const name = given.name ?? explorer?.name;
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
