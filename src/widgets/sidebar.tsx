/**
 * The Kernel State sidebar: renders the service's model and the section models (image
 * strip, assistant view) and owns the view state (filter, selection, inspector path,
 * folded sections). It tells the service and the section models when they are seen, so
 * no request is made while the panel is hidden or a section is folded.
 */
import { Clipboard, Dialog, showDialog } from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { ReactWidget, refreshIcon } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { AnnotationEditor } from '../components/AnnotationEditor';
import { AssistantView, sizeText } from '../components/AssistantView';
import { CollapsibleSection } from '../components/CollapsibleSection';
import { ImageStrip, ImageView, imageTitle } from '../components/ImageStrip';
import { KernelStatePanel } from '../components/KernelStatePanel';
import { VariableInspector } from '../components/VariableInspector';
import { DEFAULT_PROMPT_BUDGET, DEFAULT_SHOW_PREVIEW } from '../defaults';
import { IImageItem, ImageStripModel } from '../models/images';
import { PromptModel } from '../models/prompt';
import {
  AccessKey,
  IAnnotationUpdate,
  IChild,
  IKernelStateService,
  IncludeGroup,
  IPromptQuery,
  IVariableDetail,
  SnapshotSort
} from '../tokens';

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
    this.id = SIDEBAR_ID;
    this.addClass('jp-KernelState-sidebar');
    this.title.caption = this._trans.__(
      'Kernel State: the variables of the active kernel'
    );
    this._service.changed.connect(this._onServiceChanged, this);
    this.images.changed.connect(this._onSectionChanged, this);
    this.prompt.changed.connect(this._onSectionChanged, this);
  }

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
    this._select(name);
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
        selected={this._selected}
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
    const trans = this._trans;
    const images = this.images;
    const prompt = this.prompt;
    const count = images.items.length;
    return (
      <>
        <CollapsibleSection
          testId="kernel-state-images"
          className="jp-KernelState-imagesSection"
          title={trans.__('Images')}
          summary={count > 0 ? String(count) : undefined}
          expanded={this._imagesExpanded}
          onToggle={() => (this.imagesExpanded = !this._imagesExpanded)}
        >
          <ImageStrip
            items={images.items}
            dropped={images.dropped}
            rejected={images.rejected}
            error={images.error}
            onOpen={this._openImageView}
            trans={trans}
          />
        </CollapsibleSection>
        <CollapsibleSection
          testId="kernel-state-assistant"
          className="jp-KernelState-assistantSection"
          title={trans.__('Assistant view')}
          summary={
            prompt.result && !this._assistantExpanded
              ? sizeText(prompt.result, trans)
              : undefined
          }
          expanded={this._assistantExpanded}
          onToggle={() => (this.assistantExpanded = !this._assistantExpanded)}
          actions={
            <button
              className="jp-KernelState-iconButton"
              onClick={() => void prompt.refresh()}
              title={trans.__('Refresh the assistant view')}
              aria-label={trans.__('Refresh the assistant view')}
            >
              <refreshIcon.react tag="span" />
            </button>
          }
        >
          <AssistantView
            result={prompt.result}
            error={prompt.error}
            loading={prompt.loading}
            budget={prompt.query.budget ?? DEFAULT_PROMPT_BUDGET}
            onCopy={this._copy}
            trans={trans}
          />
        </CollapsibleSection>
      </>
    );
  }

  private _renderInspector(): JSX.Element | null {
    if (!this._selected) {
      return null;
    }
    const detail = this._detail;
    const top = this._path.length === 0 && detail !== null;
    return (
      <VariableInspector
        crumbs={[this._selected, ...this._path.map(step => step.label)]}
        detail={detail}
        loading={this._loading}
        error={this._detailError}
        onCrumb={this._crumb}
        onDrill={this._drill}
        onClose={this._close}
        annotation={
          top ? (
            <AnnotationEditor
              key={detail.name}
              name={detail.name}
              description={detail.description}
              constraints={detail.constraints}
              hidden={detail.hidden_from_prompt}
              onSave={this._annotate}
              onClear={this._clearAnnotation}
              trans={this._trans}
            />
          ) : undefined
        }
        annotated={
          top &&
          (!!detail.description ||
            !!detail.constraints ||
            detail.hidden_from_prompt)
        }
        trans={this._trans}
      />
    );
  }

  private _annotate = async (annotation: IAnnotationUpdate): Promise<void> => {
    const name = this._selected;
    if (!name) {
      return;
    }
    const note = await this._service.annotate(name, annotation);
    this._setNote(name, note);
  };

  private _clearAnnotation = async (): Promise<void> => {
    const name = this._selected;
    if (!name) {
      return;
    }
    await this._service.clearAnnotation(name);
    this._setNote(name, {
      description: null,
      constraints: null,
      hidden_from_prompt: false
    });
  };

  /**
   * Show the stored note at once; the snapshot refresh brings it to the list.
   */
  private _setNote(
    name: string,
    note: {
      description: string | null;
      constraints: string | null;
      hidden_from_prompt: boolean;
    }
  ): void {
    if (this._detail && this._detail.name === name && this._selected === name) {
      this._detail = {
        ...this._detail,
        description: note.description,
        constraints: note.constraints,
        hidden_from_prompt: note.hidden_from_prompt
      };
      this.update();
    }
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
    const snapshot = this._service.snapshot;
    const generation = snapshot
      ? `${snapshot.kernel_id}:${snapshot.epoch}:${snapshot.generation}`
      : '';
    if (this._selected && generation !== this._generation) {
      const row = snapshot?.variables.find(v => v.name === this._selected);
      const complete = snapshot && snapshot.variables.length >= snapshot.total;
      if (!snapshot || (!row && complete)) {
        this._close();
      } else if (row && row.change !== 'unchanged') {
        void this._load();
      }
    }
    this._generation = generation;
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
    if (name === this._selected && !this._path.length) {
      return;
    }
    this._selected = name;
    this._path = [];
    void this._load();
  };

  private _refresh = (): void => {
    void this._service.refresh();
    void this.images.refresh();
    void this.prompt.refresh();
  };

  private _crumb = (depth: number): void => {
    this._path = this._path.slice(0, depth);
    void this._load();
  };

  private _drill = (child: IChild): void => {
    this._path = [...this._path, { key: child.access_key, label: child.label }];
    void this._load();
  };

  private _close = (): void => {
    this._selected = null;
    this._path = [];
    this._detail = null;
    this._detailError = null;
    this._loading = false;
    this._request++;
    this.update();
  };

  private async _load(): Promise<void> {
    const name = this._selected;
    if (!name) {
      return;
    }
    const request = ++this._request;
    this._loading = true;
    this._detailError = null;
    this.update();
    try {
      const detail = await this._service.inspect(
        name,
        this._path.map(step => step.key)
      );
      if (request === this._request) {
        this._detail = detail;
      }
    } catch (error) {
      if (request === this._request) {
        this._detail = null;
        this._detailError =
          error instanceof Error ? error.message : String(error);
      }
    } finally {
      if (request === this._request) {
        this._loading = false;
        this.update();
      }
    }
  }

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
  private _selected: string | null = null;
  private _path: { key: AccessKey; label: string }[] = [];
  private _detail: IVariableDetail | null = null;
  private _detailError: string | null = null;
  private _loading = false;
  private _request = 0;
  private _generation = '';
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
