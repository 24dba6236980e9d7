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
   * Open a variable in the Data Explorer: `{name, kernelId?}`.
   */
  export const openExplorer = 'kernel-state:open-explorer';

  // The variable list's row menu: `{name}`.
  export const listOpenExplorer = 'kernel-state:list-open-explorer';
  export const listInspect = 'kernel-state:list-inspect';
  export const listCopyName = 'kernel-state:list-copy-name';
  export const listCopyValue = 'kernel-state:list-copy-value';
  export const listCopyCode = 'kernel-state:list-copy-code';
  export const listDelete = 'kernel-state:list-delete';
}
