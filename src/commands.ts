/**
 * Every command id of the extension, in one namespace: each starts with
 * `COMMAND_PREFIX`. The application's commands (palette, menus, settings, keyboard
 * shortcuts) and the variable list's row menu (a registry of its own) alike.
 */

export const COMMAND_PREFIX = 'kernel-state:';

export namespace CommandIDs {
  /**
   * Show the Kernel State sidebar.
   */
  export const open = 'kernel-state:open';
  /**
   * Read the followed kernel's variables again.
   */
  export const refresh = 'kernel-state:refresh';
  /**
   * Copy the text an assistant would get about the followed kernel.
   */
  export const copyPrompt = 'kernel-state:copy-prompt';
  /**
   * Inspect the variable named by the selection or at the cursor.
   */
  export const inspectSelected = 'kernel-state:inspect-selected';
  /**
   * Open the followed kernel's images in a main-area tab (the gallery).
   */
  export const openGallery = 'kernel-state:open-gallery';
  /**
   * Open the assistant view (the whole text an assistant gets) in a main-area tab.
   */
  export const openAssistant = 'kernel-state:open-assistant';
  /**
   * Open a variable in the Data Explorer: `{name, kernelId?}`.
   */
  export const openExplorer = 'kernel-state:open-explorer';

  /**
   * Open the variable a notebook cell shows as a table (its last expression) in the
   * Data Explorer: the notebook cell's context menu.
   */
  export const openExplorerFromCell = 'kernel-state:open-explorer-from-cell';

  /**
   * Open a table file (`{path}`, else the file browser's selected file) in the Data
   * Explorer, read by the server: the file browser's context menu.
   */
  export const openFileExplorer = 'kernel-state:open-file-explorer';

  /**
   * Insert the code that loads a table file (`{path, syntax?}`, with its explorer
   * tab's view) below the active cell of the active notebook.
   */
  export const loadFileIntoKernel = 'kernel-state:load-file-into-kernel';

  // The Data Explorer's commands, on the current explorer tab (its grid's context
  // menu, the palette, keyboard shortcuts).
  export const explorerFilterToValue = 'kernel-state:explorer-filter-to-value';
  export const explorerExcludeValue = 'kernel-state:explorer-exclude-value';
  export const explorerSortAscending = 'kernel-state:explorer-sort-ascending';
  export const explorerSortDescending = 'kernel-state:explorer-sort-descending';
  export const explorerPinColumn = 'kernel-state:explorer-pin-column';
  export const explorerUnpinColumn = 'kernel-state:explorer-unpin-column';
  export const explorerHideColumn = 'kernel-state:explorer-hide-column';
  export const explorerShowAllColumns =
    'kernel-state:explorer-show-all-columns';
  export const explorerCompareWith = 'kernel-state:explorer-compare-with';
  export const explorerKeepVersion = 'kernel-state:explorer-keep-version';
  export const explorerCopy = 'kernel-state:explorer-copy';
  export const explorerCopyWithHeaders =
    'kernel-state:explorer-copy-with-headers';
  export const explorerToggleSummary = 'kernel-state:explorer-toggle-summary';
  export const explorerShowCode = 'kernel-state:explorer-show-code';
  export const explorerGoToColumn = 'kernel-state:explorer-go-to-column';

  // The variable list's row menu: `{name}`.
  export const listOpenExplorer = 'kernel-state:list-open-explorer';
  export const listInspect = 'kernel-state:list-inspect';
  export const listCopyName = 'kernel-state:list-copy-name';
  export const listCopyValue = 'kernel-state:list-copy-value';
  export const listCopyCode = 'kernel-state:list-copy-code';
  export const listDelete = 'kernel-state:list-delete';
}
