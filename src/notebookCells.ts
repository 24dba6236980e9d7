/**
 * The sidebar's link to the notebook's cells, by cell id (the id JupyterLab sends with
 * each execute request, which the kernel's lineage keeps): which cell is active, and
 * scrolling to a cell. Only the notebook tracker is read; nothing here makes requests.
 */
import { INotebookTracker } from '@jupyterlab/notebook';
import { IDisposable } from '@lumino/disposable';

/**
 * Make `cellId`'s cell of the current notebook the active one and scroll to it; false
 * when the current notebook holds no such cell.
 */
export function goToCell(notebooks: INotebookTracker, cellId: string): boolean {
  const panel = notebooks.currentWidget;
  if (!panel) {
    return false;
  }
  const notebook = panel.content;
  const index = notebook.widgets.findIndex(cell => cell.model.id === cellId);
  if (index < 0) {
    return false;
  }
  notebook.activeCellIndex = index;
  void notebook.scrollToCell(notebook.widgets[index], 'center');
  return true;
}

/**
 * Call `onChange` with the active notebook cell's id (null: none) now and whenever it
 * changes (another cell, another notebook).
 */
export function followActiveCell(
  notebooks: INotebookTracker,
  onChange: (cellId: string | null) => void
): IDisposable {
  const update = () => onChange(notebooks.activeCell?.model.id ?? null);
  notebooks.activeCellChanged.connect(update);
  notebooks.currentChanged.connect(update);
  update();
  let disposed = false;
  return {
    get isDisposed() {
      return disposed;
    },
    dispose() {
      if (!disposed) {
        disposed = true;
        notebooks.activeCellChanged.disconnect(update);
        notebooks.currentChanged.disconnect(update);
      }
    }
  };
}
