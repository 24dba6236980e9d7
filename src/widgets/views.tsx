/**
 * The sidebar's views of its models: the inspector and the folding sections (image
 * strip, assistant view). They read a model, render components and call the model's
 * actions; they hold no state of their own.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { launchIcon, refreshIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { AnnotationEditor } from '../components/AnnotationEditor';
import {
  AssistantView,
  shortSizeText,
  sizeText
} from '../components/AssistantView';
import { CollapsibleSection } from '../components/CollapsibleSection';
import { ImageStrip } from '../components/ImageStrip';
import { VariableInspector } from '../components/VariableInspector';
import { DEFAULT_PROMPT_BUDGET } from '../defaults';
import { IImageItem, ImageStripModel } from '../models/images';
import { InspectorModel } from '../models/inspector';
import { PromptModel } from '../models/prompt';

export interface IInspectorViewProps {
  model: InspectorModel;
  /**
   * Open a variable in the Data Explorer, when that command exists.
   */
  onOpenExplorer?: (name: string) => void;
  /**
   * Scroll to a notebook cell by its id (the lineage's entries), when possible.
   */
  onGoToCell?: (cellId: string) => boolean;
  trans: TranslationBundle;
}

/**
 * The inspector of the selected variable, with the note editor at the top level.
 */
export function InspectorView(props: IInspectorViewProps): JSX.Element {
  const { model, trans } = props;
  const detail = model.detail;
  return (
    <VariableInspector
      crumbs={model.crumbs}
      detail={detail}
      loading={model.loading}
      error={model.error}
      onCrumb={depth => void model.crumb(depth)}
      onDrill={child => void model.drill(child)}
      onClose={() => model.close()}
      annotation={
        model.atTop && detail ? (
          <AnnotationEditor
            key={detail.name}
            name={detail.name}
            description={detail.description}
            constraints={detail.constraints}
            hidden={detail.hidden_from_prompt}
            onSave={annotation => model.annotate(annotation)}
            onClear={() => model.clearAnnotation()}
            trans={trans}
          />
        ) : undefined
      }
      annotated={model.annotated}
      revealed={model.revealed}
      onReveal={model.canReveal ? () => void model.reveal() : undefined}
      timeline={model.atTop ? model.timeline : null}
      timelineError={model.timelineError}
      onGoToCell={props.onGoToCell}
      onOpenExplorer={
        props.onOpenExplorer && model.atTop && detail
          ? () => props.onOpenExplorer?.(detail.name)
          : undefined
      }
      showMethods={model.showMethods}
      onToggleMethods={() => model.toggleMethods()}
      trans={trans}
    />
  );
}

export interface ISidebarSectionsProps {
  images: ImageStripModel;
  prompt: PromptModel;
  imagesExpanded: boolean;
  onToggleImages: () => void;
  assistantExpanded: boolean;
  onToggleAssistant: () => void;
  onOpenImage: (item: IImageItem) => void;
  onCopy: (text: string) => void;
  /**
   * Open the images in the gallery tab, when that command exists.
   */
  onOpenGallery?: () => void;
  /**
   * Open the assistant view in a tab, when that command exists.
   */
  onOpenAssistant?: () => void;
  trans: TranslationBundle;
}

/**
 * The folding sections below the variable list: images, then the assistant view.
 */
export function SidebarSections(props: ISidebarSectionsProps): JSX.Element {
  const { images, prompt, trans } = props;
  const count = images.items.length;
  return (
    <>
      <CollapsibleSection
        testId="kernel-state-images"
        className="jp-KernelState-imagesSection"
        title={trans.__('Images')}
        aside={count > 0 ? String(count) : undefined}
        expanded={props.imagesExpanded}
        onToggle={props.onToggleImages}
        actions={
          props.onOpenGallery && (
            <button
              className="jp-KernelState-iconButton"
              onClick={props.onOpenGallery}
              title={trans.__('Open the images in a tab (the gallery)')}
              aria-label={trans.__('Open the images in a tab (the gallery)')}
              data-test-id="kernel-state-open-gallery"
            >
              <launchIcon.react tag="span" />
            </button>
          )
        }
      >
        <ImageStrip
          items={images.items}
          dropped={images.dropped}
          rejected={images.rejected}
          kept={images.kept}
          error={images.error}
          onOpen={props.onOpenImage}
          trans={trans}
        />
      </CollapsibleSection>
      <CollapsibleSection
        testId="kernel-state-assistant"
        className="jp-KernelState-assistantSection"
        title={trans.__('Assistant view')}
        aside={
          prompt.result && !props.assistantExpanded ? (
            <span title={sizeText(prompt.result, trans)}>
              {shortSizeText(prompt.result, trans)}
            </span>
          ) : undefined
        }
        expanded={props.assistantExpanded}
        onToggle={props.onToggleAssistant}
        actions={
          <>
            {props.onOpenAssistant && (
              <button
                className="jp-KernelState-iconButton"
                onClick={props.onOpenAssistant}
                title={trans.__('Open the assistant view in a tab')}
                aria-label={trans.__('Open the assistant view in a tab')}
                data-test-id="kernel-state-open-assistant"
              >
                <launchIcon.react tag="span" />
              </button>
            )}
            <button
              className="jp-KernelState-iconButton"
              onClick={() => void prompt.refresh()}
              title={trans.__('Refresh the assistant view')}
              aria-label={trans.__('Refresh the assistant view')}
            >
              <refreshIcon.react tag="span" />
            </button>
          </>
        }
      >
        <AssistantView
          result={prompt.result}
          error={prompt.error}
          loading={prompt.loading}
          budget={prompt.query.budget ?? DEFAULT_PROMPT_BUDGET}
          onCopy={props.onCopy}
          onOpenTab={props.onOpenAssistant}
          trans={trans}
        />
      </CollapsibleSection>
    </>
  );
}
