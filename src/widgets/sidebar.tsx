/**
 * The Kernel State sidebar: renders the service's model, the inspector's model and the
 * section models (image strip, assistant view), and keeps what only the view needs
 * (the typed name pattern, folded sections): it is the panel's view
 * (`KernelStatePanel.IView`). It tells the service and the section models when they
 * are seen, so no request is made while the panel is hidden or a section is folded.
 * Every request goes through the service.
 */
import { Clipboard, showErrorMessage } from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import { CommandRegistry } from '@lumino/commands';
import { Message, MessageLoop } from '@lumino/messaging';
import { Menu, Widget } from '@lumino/widgets';
import * as React from 'react';

import { CommandIDs } from '../commands';
import { KernelStatePanel } from '../components/KernelStatePanel';
import { DEFAULT_SHOW_PREVIEW } from '../defaults';
import { describeError } from '../explorer/errors';
import { isExplorable } from '../format';
import { IImageItem, ImageStripModel } from '../models/images';
import { InspectorModel } from '../models/inspector';
import { VariableListModel } from '../models/list/model';
import { ColumnWidths } from '../models/list/widths';
import { PromptModel } from '../models/prompt';
import {
  IKernelStateOptions,
  IKernelStateService,
  IncludeGroup,
  IPromptQuery,
  IVariable,
  SnapshotSort
} from '../tokens';
import {
  confirmDeleteDialog,
  createVariableMenu,
  openVariableMenu
} from './variableActions';
import { showImageDialog } from './tabs';
import { InspectorView, SidebarSections } from './views';

export const SIDEBAR_ID = 'jp-kernel-state-sidebar';
// Typing pauses this long before the name pattern goes to the server.
const PATTERN_DEBOUNCE_MS = 250;
/**
 * A delete answered "try again" (503) is sent at most this many times, each after its
 * Retry-After (at most DELETE_RETRY_MAX_S seconds).
 */
const DELETE_ATTEMPTS = 4;
const DELETE_RETRY_MAX_S = 3;

export class KernelStateSidebar
  extends ReactWidget
  implements KernelStatePanel.IView
{
  constructor(options: KernelStateSidebar.IOptions) {
    super();
    this._service = options.service;
    this._trans = (options.translator ?? nullTranslator).load(
      'jupyter_kernel_state'
    );
    this._onOptionsChange = options.onOptionsChange;
    this._openImageView =
      options.openImage ?? (item => showImageDialog(item, this._trans));
    this._copy = options.copy ?? (text => Clipboard.copyToSystem(text));
    this._goToCell = options.goToCell ?? null;
    this._commands = options.commands ?? null;
    this._confirmDelete =
      options.confirmDelete ?? (name => confirmDeleteDialog(this._trans, name));
    this.list =
      options.listModel ?? new VariableListModel({ service: this._service });
    this.images =
      options.imageModel ?? new ImageStripModel({ service: this._service });
    this.prompt =
      options.promptModel ??
      new PromptModel({ service: this._service, query: options.promptQuery });
    this.inspector =
      options.inspectorModel ?? new InspectorModel({ service: this._service });
    this._menu = createVariableMenu({
      trans: this._trans,
      service: this._service,
      inspector: this.inspector,
      node: this.node,
      variable: name => this._variable(name),
      canExplore: variable => this.canExplore(variable),
      openExplorer: name => this.openExplorer(name),
      deleteVariable: name => this.deleteVariable(name),
      copy: text => this._copy(text)
    });
    this.id = SIDEBAR_ID;
    this.addClass('jp-KernelState-sidebar');
    this.title.caption = this._trans.__(
      'Kernel State: the variables of the active kernel'
    );
    this._service.changed.connect(this._onServiceChanged, this);
    this.images.changed.connect(this._onSectionChanged, this);
    this.prompt.changed.connect(this._onSectionChanged, this);
    this.inspector.changed.connect(this._onSectionChanged, this);
    this.list.changed.connect(this._onSectionChanged, this);
    this.list.widthsChanged.connect(this._onWidthsChanged, this);
  }

  /**
   * The variable list's model (rows, removed variables, column widths).
   */
  readonly list: VariableListModel;

  /**
   * The row context menu (a Lumino menu, opened at a row).
   */
  get menu(): Menu {
    return this._menu;
  }

  /**
   * Column widths of the list (from the settings).
   */
  set columnWidths(value: unknown) {
    this.list.setWidths(value);
  }

  /**
   * Move the focus into the panel (when "Show Kernel State" shows it): to the variable
   * list, else the name pattern's input, else the panel itself (the list takes it from the panel
   * when it appears), once it is rendered.
   */
  async focusContent(): Promise<void> {
    MessageLoop.sendMessage(this, Widget.Msg.UpdateRequest); // render now
    await this.renderPromise;
    const node = this.node;
    const panel = node.querySelector<HTMLElement>('.jp-KernelState-panel');
    const target =
      this._grid() ??
      node.querySelector<HTMLElement>('.jp-KernelState-filter') ??
      panel;
    target?.focus();
    // A panel shown for the first time is still reading the variables: the list
    // takes the focus when it appears, unless the focus has moved on meanwhile.
    this._focusPending = !!target && target === panel;
  }

  /**
   * Open a variable in the Data Explorer, when its command is registered.
   */
  openExplorer(name: string): void {
    const commands = this._commands;
    if (commands && commands.hasCommand(CommandIDs.openExplorer)) {
      void commands.execute(CommandIDs.openExplorer, { name });
    }
  }

  /**
   * Whether `variable` can be opened in the Data Explorer.
   */
  canExplore(
    variable: Pick<IVariable, 'kind' | 'type' | 'preview'> | undefined
  ): boolean {
    return (
      !!variable &&
      isExplorable(variable) &&
      !!this._commands?.hasCommand(CommandIDs.openExplorer)
    );
  }

  /**
   * Open the row context menu of `name` at client coordinates.
   */
  openMenu(name: string, x: number, y: number): void {
    openVariableMenu(this._menu, name, x, y);
  }

  /**
   * Ask, then delete `name` from the kernel; the list refreshes. Returns whether it
   * was deleted.
   */
  async deleteVariable(name: string): Promise<boolean> {
    if (!(await this._confirmDelete(name))) {
      return false;
    }
    try {
      await this._deleteAgain(name);
    } catch (reason) {
      void showErrorMessage(
        this._trans.__('Cannot delete %1', name),
        reason instanceof Error ? reason.message : String(reason)
      );
      return false;
    }
    this.list.forget(name);
    if (this.inspector.selected === name) {
      this.inspector.close();
    }
    await this._service.refresh();
    return true;
  }

  /**
   * Delete `name`; a 503 that says "try again" (an earlier inspection still running in
   * the kernel, a kernel not answering yet) is tried again after its Retry-After, a few
   * times, before the user is told.
   */
  private async _deleteAgain(name: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this._service.deleteVariable(name);
        return;
      } catch (reason) {
        const seconds = describeError(reason).retryAfter;
        if (seconds === null || attempt >= DELETE_ATTEMPTS) {
          throw reason;
        }
        await new Promise(resolve =>
          setTimeout(resolve, Math.min(seconds, DELETE_RETRY_MAX_S) * 1000)
        );
      }
    }
  }

  /**
   * The inspector's model.
   */
  readonly inspector: InspectorModel;

  /**
   * The image strip's model.
   */
  readonly images: ImageStripModel;

  /**
   * The assistant view's model.
   */
  readonly prompt: PromptModel;

  get imagesExpanded(): boolean {
    return this._imagesExpanded;
  }

  set imagesExpanded(value: boolean) {
    this._imagesExpanded = value;
    this._updateActive();
    this.update();
  }

  get assistantExpanded(): boolean {
    return this._assistantExpanded;
  }

  set assistantExpanded(value: boolean) {
    this._assistantExpanded = value;
    this._updateActive();
    this.update();
  }

  /**
   * Set the budget and history of the assistant view.
   */
  setPromptQuery(query: IPromptQuery): void {
    this.prompt.setQuery(query);
  }

  /**
   * Select a variable and show it in the inspector.
   */
  inspect(name: string): void {
    void this.inspector.select(name);
  }

  get showPreview(): boolean {
    return this._showPreview;
  }

  set showPreview(value: boolean) {
    this._showPreview = value;
    this.update();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._service.changed.disconnect(this._onServiceChanged, this);
    window.clearTimeout(this._patternTimer);
    this._setShown(false);
    this._menu.dispose();
    this.list.dispose();
    this.images.dispose();
    this.prompt.dispose();
    this.inspector.dispose();
    super.dispose();
  }

  protected onUpdateRequest(msg: Message): void {
    super.onUpdateRequest(msg);
    if (this._focusPending) {
      void this.renderPromise?.then(() => this._focusListWhenShown());
    }
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._setShown(true);
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      this._setShown(true);
    }
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this._setShown(false);
  }

  protected onBeforeDetach(msg: Message): void {
    this._setShown(false);
    super.onBeforeDetach(msg);
  }

  /**
   * The name pattern typed in the panel's toolbar (`*` wildcards).
   */
  get pattern(): string {
    return this._pattern;
  }

  /**
   * The sort and include groups of the list (the service's options).
   */
  get options(): IKernelStateOptions {
    return this._service.options;
  }

  /**
   * Match the name pattern against what is loaded at once; when the kernel holds more
   * than one page, also ask the server (debounced: its `filter` option) so matches
   * beyond the page are found.
   */
  setPattern(pattern: string): void {
    this._pattern = pattern;
    this.update();
    const snapshot = this._service.model.snapshot;
    const partial = !!snapshot && snapshot.total > snapshot.variables.length;
    if (!partial && !this._service.options.filter) {
      return;
    }
    window.clearTimeout(this._patternTimer);
    this._patternTimer = window.setTimeout(() => {
      this._service.setOptions({ filter: this._pattern || undefined });
    }, PATTERN_DEBOUNCE_MS);
  }

  setSort(sort: SnapshotSort): void {
    this._changeOptions({ sort });
  }

  toggleInclude(group: IncludeGroup): void {
    const include = this._service.options.include;
    const next = include.includes(group)
      ? include.filter(g => g !== group)
      : [...include, group];
    this._changeOptions({ include: next });
  }

  /**
   * Open a listed variable: a table in the Data Explorer, anything else in the
   * inspector.
   */
  open(name: string): void {
    const variable = this._variable(name);
    if (!variable) {
      return; // removed by the last execution
    }
    if (this.canExplore(variable)) {
      this.openExplorer(name);
    } else {
      void this.inspector.select(name);
    }
  }

  /**
   * Read the kernel's variables, images and prompt again.
   */
  refresh(): void {
    void this._service.refresh();
    void this.images.refresh();
    void this.prompt.refresh();
  }

  protected render(): JSX.Element {
    return (
      <KernelStatePanel
        model={this._service.model}
        view={this}
        inspector={this._renderInspector()}
        sections={this._renderSections()}
        trans={this._trans}
      />
    );
  }

  private _renderSections(): JSX.Element {
    return (
      <SidebarSections
        images={this.images}
        prompt={this.prompt}
        imagesExpanded={this._imagesExpanded}
        onToggleImages={() => (this.imagesExpanded = !this._imagesExpanded)}
        assistantExpanded={this._assistantExpanded}
        onToggleAssistant={() =>
          (this.assistantExpanded = !this._assistantExpanded)
        }
        onOpenImage={this._openImageView}
        onCopy={this._copy}
        onOpenGallery={this._command(CommandIDs.openGallery)}
        onOpenAssistant={this._command(CommandIDs.openAssistant)}
        trans={this._trans}
      />
    );
  }

  private _renderInspector(): JSX.Element | null {
    const explorer = this._commands?.hasCommand(CommandIDs.openExplorer);
    return this.inspector.selected ? (
      <InspectorView
        model={this.inspector}
        onOpenExplorer={explorer ? name => this.openExplorer(name) : undefined}
        onGoToCell={this._goToCell ?? undefined}
        trans={this._trans}
      />
    ) : null;
  }

  private _variable(name: string): IVariable | undefined {
    return this.list.rows.find(r => r.variable.name === name && !r.removed)
      ?.variable;
  }

  /**
   * A callback running `id`, when that command is registered.
   */
  private _command(id: string): (() => void) | undefined {
    const commands = this._commands;
    return commands?.hasCommand(id)
      ? () => void commands.execute(id)
      : undefined;
  }

  private _setShown(shown: boolean): void {
    this._shown = shown;
    this._service.setVisible(shown);
    this._updateActive();
  }

  private _updateActive(): void {
    this.images.setActive(this._shown && this._imagesExpanded);
    // Folded, the assistant view still shows the prompt's size in its header: it
    // follows the kernel whenever the panel is seen.
    this.prompt.setActive(this._shown);
  }

  /**
   * The variable list's grid, when rendered.
   */
  private _grid(): HTMLElement | null {
    return this.node.querySelector<HTMLElement>(
      '[data-test-id="kernel-state-grid"]'
    );
  }

  /**
   * After a render, finish what `focusContent` could not: the focus it left on the
   * panel goes to the list once the list is there — only while the focus is still
   * on the panel itself.
   */
  private _focusListWhenShown(): void {
    if (!this._focusPending) {
      return;
    }
    const active = document.activeElement;
    if (
      !(active instanceof HTMLElement) ||
      !this.node.contains(active) ||
      !active.classList.contains('jp-KernelState-panel')
    ) {
      this._focusPending = false; // the user moved on
      return;
    }
    const grid = this._grid();
    if (grid) {
      this._focusPending = false;
      grid.focus();
    }
  }

  private _onSectionChanged(): void {
    this.update();
  }

  private _onServiceChanged(): void {
    this.update();
  }

  private _changeOptions(options: {
    sort?: SnapshotSort;
    include?: IncludeGroup[];
  }): void {
    if (this._onOptionsChange) {
      this._onOptionsChange(options);
    } else {
      this._service.setOptions(options);
    }
  }

  private _onWidthsChanged(_: VariableListModel, widths: ColumnWidths): void {
    this._onOptionsChange?.({ columnWidths: widths });
  }

  private _service: IKernelStateService;
  private _trans: TranslationBundle;
  private _openImageView: (item: IImageItem) => void;
  private _copy: (text: string) => void;
  private _goToCell: ((cellId: string) => boolean) | null;
  private _commands: CommandRegistry | null;
  private _confirmDelete: (name: string) => Promise<boolean>;
  private _menu: Menu;
  private _shown = false;
  private _focusPending = false;
  private _imagesExpanded = true;
  private _assistantExpanded = false;
  private _onOptionsChange?: KernelStateSidebar.IOptions['onOptionsChange'];
  private _showPreview = DEFAULT_SHOW_PREVIEW;
  private _pattern = '';
  private _patternTimer = 0;
}

export namespace KernelStateSidebar {
  export interface IOptions {
    service: IKernelStateService;
    translator?: ITranslator;
    /**
     * Called when the user changes sort or include toggles, e.g. to store them in the
     * settings; without it the service options are changed directly.
     */
    onOptionsChange?: (options: {
      sort?: SnapshotSort;
      include?: IncludeGroup[];
      columnWidths?: ColumnWidths;
    }) => void;
    /**
     * The application's commands: the Data Explorer is opened through
     * `kernel-state:open-explorer` when it is registered.
     */
    commands?: CommandRegistry;
    listModel?: VariableListModel;
    /**
     * Ask before deleting a variable (default: a dialog).
     */
    confirmDelete?: (name: string) => Promise<boolean>;
    /**
     * Budget and history of the assistant view.
     */
    promptQuery?: IPromptQuery;
    /**
     * Section models (default: built on `service`); the sidebar disposes them.
     */
    imageModel?: ImageStripModel;
    promptModel?: PromptModel;
    inspectorModel?: InspectorModel;
    /**
     * Open the larger view of an image (default: a dialog with a download link).
     */
    openImage?: (item: IImageItem) => void;
    /**
     * Copy text to the system clipboard (default: `Clipboard.copyToSystem`).
     */
    copy?: (text: string) => void;
    /**
     * Scroll to a cell of the active notebook by its id (the inspector's lineage);
     * false when it holds no such cell.
     */
    goToCell?: (cellId: string) => boolean;
  }
}
