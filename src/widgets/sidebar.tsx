/**
 * The Kernel State sidebar: renders the service's model, the inspector's model and the
 * section models (image strip, assistant view), and keeps what only the view needs
 * (the typed filter, folded sections). It tells the service and the section models
 * when they are seen, so no request is made while the panel is hidden or a section is
 * folded.
 */
import { Clipboard, Dialog, showDialog } from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { ImageView, imageTitle } from '../components/ImageStrip';
import { KernelStatePanel } from '../components/KernelStatePanel';
import { DEFAULT_SHOW_PREVIEW } from '../defaults';
import { IImageItem, ImageStripModel } from '../models/images';
import { InspectorModel } from '../models/inspector';
import { PromptModel } from '../models/prompt';
import {
  IKernelStateService,
  IncludeGroup,
  IPromptQuery,
  SnapshotSort
} from '../tokens';
import { InspectorView, SidebarSections } from './views';

export const SIDEBAR_ID = 'jp-kernel-state-sidebar';
// Typing pauses this long before the filter goes to the server.
const FILTER_DEBOUNCE_MS = 250;

export class KernelStateSidebar extends ReactWidget {
  constructor(options: KernelStateSidebar.IOptions) {
    super();
    this._service = options.service;
    this._trans = (options.translator ?? nullTranslator).load(
      'jupyter_kernel_state'
    );
    this._onOptionsChange = options.onOptionsChange;
    this._openImageView =
      options.openImage ?? (item => this._showImageDialog(item));
    this._copy = options.copy ?? (text => Clipboard.copyToSystem(text));
    this.images =
      options.imageModel ?? new ImageStripModel({ service: this._service });
    this.prompt =
      options.promptModel ??
      new PromptModel({ service: this._service, query: options.promptQuery });
    this.inspector =
      options.inspectorModel ?? new InspectorModel({ service: this._service });
    this.id = SIDEBAR_ID;
    this.addClass('jp-KernelState-sidebar');
    this.title.caption = this._trans.__(
      'Kernel State: the variables of the active kernel'
    );
    this._service.changed.connect(this._onServiceChanged, this);
    this.images.changed.connect(this._onSectionChanged, this);
    this.prompt.changed.connect(this._onSectionChanged, this);
    this.inspector.changed.connect(this._onSectionChanged, this);
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
    window.clearTimeout(this._filterTimer);
    this._setShown(false);
    this.images.dispose();
    this.prompt.dispose();
    this.inspector.dispose();
    super.dispose();
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

  protected render(): JSX.Element {
    const model = this._service.model;
    const options = this._service.options;
    return (
      <KernelStatePanel
        status={model.status}
        kernel={model.kernel}
        snapshot={model.snapshot}
        error={model.error}
        isBusy={model.isBusy}
        restarted={model.restarted}
        filter={this._filter}
        onFilter={this._setFilter}
        sort={options.sort}
        onSort={this._setSort}
        include={options.include}
        onToggleInclude={this._toggleInclude}
        selected={this.inspector.selected}
        onSelect={this._select}
        onRefresh={this._refresh}
        showPreview={this._showPreview}
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
        trans={this._trans}
      />
    );
  }

  private _renderInspector(): JSX.Element | null {
    return this.inspector.selected ? (
      <InspectorView model={this.inspector} trans={this._trans} />
    ) : null;
  }

  private _showImageDialog(item: IImageItem): void {
    void showDialog({
      title: imageTitle(item.image, this._trans),
      body: <ImageView item={item} trans={this._trans} />,
      buttons: [Dialog.cancelButton({ label: this._trans.__('Close') })],
      hasClose: true
    });
  }

  private _setShown(shown: boolean): void {
    this._shown = shown;
    this._service.setVisible(shown);
    this._updateActive();
  }

  private _updateActive(): void {
    this.images.setActive(this._shown && this._imagesExpanded);
    this.prompt.setActive(this._shown && this._assistantExpanded);
  }

  private _onSectionChanged(): void {
    this.update();
  }

  private _onServiceChanged(): void {
    this.update();
  }

  private _setFilter = (filter: string): void => {
    // Filter what is loaded at once; when the kernel holds more than one page, also ask
    // the server (debounced) so matches beyond the page are found.
    this._filter = filter;
    this.update();
    const snapshot = this._service.model.snapshot;
    const partial = !!snapshot && snapshot.total > snapshot.variables.length;
    if (!partial && !this._service.options.filter) {
      return;
    }
    window.clearTimeout(this._filterTimer);
    this._filterTimer = window.setTimeout(() => {
      this._service.setOptions({ filter: this._filter || undefined });
    }, FILTER_DEBOUNCE_MS);
  };

  private _setSort = (sort: SnapshotSort): void => {
    this._changeOptions({ sort });
  };

  private _toggleInclude = (group: IncludeGroup): void => {
    const include = this._service.options.include;
    const next = include.includes(group)
      ? include.filter(g => g !== group)
      : [...include, group];
    this._changeOptions({ include: next });
  };

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

  private _select = (name: string): void => {
    void this.inspector.select(name);
  };

  private _refresh = (): void => {
    void this._service.refresh();
    void this.images.refresh();
    void this.prompt.refresh();
  };

  private _service: IKernelStateService;
  private _trans: TranslationBundle;
  private _openImageView: (item: IImageItem) => void;
  private _copy: (text: string) => void;
  private _shown = false;
  private _imagesExpanded = true;
  private _assistantExpanded = false;
  private _onOptionsChange?: KernelStateSidebar.IOptions['onOptionsChange'];
  private _showPreview = DEFAULT_SHOW_PREVIEW;
  private _filter = '';
  private _filterTimer = 0;
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
    }) => void;
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
  }
}
