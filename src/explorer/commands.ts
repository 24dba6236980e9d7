/**
 * The commands of the current explorer tab: its grid's context menu (filter to or
 * exclude a value, sort, pin, hide, copy) and its views (summary, code, go to
 * column), on the tab the tracker holds current.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  ICommandPalette,
  InputDialog,
  MainAreaWidget,
  WidgetTracker
} from '@jupyterlab/apputils';
import { ITranslator } from '@jupyterlab/translation';

import { CommandIDs } from '../commands';
import { DataExplorer } from './widget';

/**
 * A value in a menu label: at most 30 characters.
 */
function short(value: string): string {
  return value.length > 30 ? `${value.slice(0, 29)}…` : value;
}

/**
 * The commands of the current explorer tab: its grid's context menu and its views.
 */
export function addExplorerCommands(
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
