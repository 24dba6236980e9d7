/**
 * Main-area tabs of the sidebar's sections: the image gallery (every image held, large,
 * with its ordinal, execution and cell code) and the assistant view (the whole text an
 * assistant gets, with what it leaves out). Each has a model of its own that loads only
 * while its tab is seen, and follows the kernel the service follows. Their commands
 * open one tab of each (activated again when open).
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import {
  Clipboard,
  Dialog,
  ICommandPalette,
  MainAreaWidget,
  showDialog
} from '@jupyterlab/apputils';
import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';
import { imageIcon, ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { CommandIDs } from '../commands';
import { AssistantDocument } from '../components/AssistantDocument';
import { ImageGallery } from '../components/ImageGallery';
import { ImageView, imageTitle } from '../components/ImageStrip';
import { DEFAULT_PROMPT_BUDGET } from '../defaults';
import { kernelStateIcon } from '../icon';
import { IImageItem, ImageStripModel } from '../models/images';
import { PromptModel } from '../models/prompt';
import { KernelSectionModel } from '../models/section';
import { IKernelStateService, IPromptQuery } from '../tokens';

/**
 * The larger view of one image, in a dialog with a download link.
 */
export function showImageDialog(
  item: IImageItem,
  trans: TranslationBundle
): void {
  void showDialog({
    title: imageTitle(item.image, trans),
    body: <ImageView item={item} trans={trans} />,
    buttons: [Dialog.cancelButton({ label: trans.__('Close') })],
    hasClose: true
  });
}

/**
 * A tab's content rendering a section model of its own, active while it is seen.
 */
abstract class SectionTab<M extends KernelSectionModel> extends ReactWidget {
  constructor(
    protected readonly service: IKernelStateService,
    readonly model: M,
    translator?: ITranslator
  ) {
    super();
    this.trans = (translator ?? nullTranslator).load('jupyter_kernel_state');
    this.model.changed.connect(this._update, this);
    this.service.changed.connect(this._update, this);
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this.service.changed.disconnect(this._update, this);
    this.model.dispose();
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.model.setActive(true);
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      this.model.setActive(true);
    }
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this.model.setActive(false);
  }

  protected onBeforeDetach(msg: Message): void {
    this.model.setActive(false);
    super.onBeforeDetach(msg);
  }

  /**
   * The notebook or console followed, or null.
   */
  protected get source(): string | null {
    return this.service.model.kernel?.source ?? null;
  }

  protected readonly trans: TranslationBundle;

  private _update(): void {
    this.update();
  }
}

/**
 * The image gallery's content.
 */
export class ImageGalleryPanel extends SectionTab<ImageStripModel> {
  constructor(options: ImageGalleryPanel.IOptions) {
    super(
      options.service,
      options.model ?? new ImageStripModel({ service: options.service }),
      options.translator
    );
    this._openImage =
      options.openImage ?? (item => showImageDialog(item, this.trans));
    this.addClass('jp-KernelState-galleryPanel');
  }

  protected render(): JSX.Element {
    const model = this.model;
    return (
      <ImageGallery
        source={this.source}
        items={model.items}
        dropped={model.dropped}
        rejected={model.rejected}
        kept={model.kept}
        loading={model.loading}
        error={model.error}
        onOpen={this._openImage}
        onRefresh={() => void model.refresh()}
        trans={this.trans}
      />
    );
  }

  private _openImage: (item: IImageItem) => void;
}

export namespace ImageGalleryPanel {
  export interface IOptions {
    service: IKernelStateService;
    translator?: ITranslator;
    model?: ImageStripModel;
    /**
     * Open the larger view of an image (default: a dialog).
     */
    openImage?: (item: IImageItem) => void;
  }
}

/**
 * The assistant view's content in a tab.
 */
export class AssistantPanel extends SectionTab<PromptModel> {
  constructor(options: AssistantPanel.IOptions) {
    super(
      options.service,
      options.model ??
        new PromptModel({ service: options.service, query: options.query }),
      options.translator
    );
    this._copy = options.copy ?? (text => Clipboard.copyToSystem(text));
    this.addClass('jp-KernelState-assistantPanel');
  }

  protected render(): JSX.Element {
    const model = this.model;
    return (
      <AssistantDocument
        source={this.source}
        result={model.result}
        error={model.error}
        loading={model.loading}
        budget={model.query.budget ?? DEFAULT_PROMPT_BUDGET}
        onCopy={this._copy}
        onRefresh={() => void model.refresh()}
        trans={this.trans}
      />
    );
  }

  private _copy: (text: string) => void;
}

export namespace AssistantPanel {
  export interface IOptions {
    service: IKernelStateService;
    translator?: ITranslator;
    /**
     * Budget and history of the text (the sidebar's assistant view's).
     */
    query?: IPromptQuery;
    model?: PromptModel;
    copy?: (text: string) => void;
  }
}

/**
 * Register the commands opening the gallery and the assistant view in tabs.
 * `promptQuery` gives the assistant view's budget and history (the sidebar's, from
 * the settings); `promptQueryChanged` tells when it changes.
 */
export function addTabCommands(
  app: JupyterFrontEnd,
  options: {
    service: IKernelStateService;
    translator?: ITranslator;
    palette?: ICommandPalette | null;
    promptQuery: () => IPromptQuery;
    promptModel?: PromptModel;
  }
): void {
  const { service } = options;
  const translator = options.translator ?? nullTranslator;
  const trans = translator.load('jupyter_kernel_state');
  let gallery: MainAreaWidget<ImageGalleryPanel> | null = null;
  let assistant: MainAreaWidget<AssistantPanel> | null = null;

  const retitle = () => {
    const source = service.model.kernel?.source;
    if (gallery && !gallery.isDisposed) {
      gallery.title.label = source
        ? trans.__('Images — %1', source)
        : trans.__('Images');
    }
    if (assistant && !assistant.isDisposed) {
      assistant.title.label = source
        ? trans.__('Assistant view — %1', source)
        : trans.__('Assistant view');
    }
  };
  service.changed.connect(retitle);
  options.promptModel?.changed.connect(() => {
    if (assistant && !assistant.isDisposed) {
      assistant.content.model.setQuery(options.promptQuery());
    }
  });

  app.commands.addCommand(CommandIDs.openGallery, {
    label: trans.__('Open Kernel Images in a Tab'),
    caption: trans.__(
      'Show every image the active kernel displayed, large, with its number, execution and the code of its cell'
    ),
    icon: args => (args.isPalette ? undefined : imageIcon),
    execute: () => {
      if (!gallery || gallery.isDisposed) {
        const content = new ImageGalleryPanel({ service, translator });
        gallery = new MainAreaWidget({ content });
        gallery.id = 'jp-kernel-state-gallery';
        gallery.title.icon = imageIcon;
        gallery.title.closable = true;
        retitle();
        app.shell.add(gallery, 'main');
      }
      app.shell.activateById(gallery.id);
    }
  });
  app.commands.addCommand(CommandIDs.openAssistant, {
    label: trans.__('Open the Assistant View in a Tab'),
    caption: trans.__(
      'Show the whole text an assistant gets about the active kernel, and what it leaves out'
    ),
    icon: args => (args.isPalette ? undefined : kernelStateIcon),
    execute: () => {
      if (!assistant || assistant.isDisposed) {
        const content = new AssistantPanel({
          service,
          translator,
          query: options.promptQuery()
        });
        assistant = new MainAreaWidget({ content });
        assistant.id = 'jp-kernel-state-assistant';
        assistant.title.icon = kernelStateIcon;
        assistant.title.closable = true;
        retitle();
        app.shell.add(assistant, 'main');
      }
      app.shell.activateById(assistant.id);
    }
  });
  if (options.palette) {
    const category = trans.__('Kernel State');
    for (const command of [CommandIDs.openGallery, CommandIDs.openAssistant]) {
      options.palette.addItem({ command, category });
    }
  }
}
