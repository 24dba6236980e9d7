/**
 * The image gallery (a main-area tab): every image the server holds for the followed
 * kernel, newest first, large, each with its ordinal (`#12`), the execution that drew
 * it (`[13]`), its format and size, and the code of that cell; marks where images were
 * dropped in between, and the counters of dropped and rejected images.
 *
 * Images are shown through `<img src=blob:…>` only and code as a text node: nothing
 * from the kernel is ever HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { downloadIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes } from '../format';
import { IImageItem, imageFileName, withGaps } from '../models/images';
import {
  countersText,
  gapText,
  imageAlt,
  imageLabel,
  imageTitle
} from './ImageStrip';

export interface IImageGalleryProps {
  /**
   * The notebook or console whose kernel the images come from (null: none followed).
   */
  source: string | null;
  items: readonly IImageItem[];
  dropped: number;
  rejected: number;
  kept: { first: number; last: number } | null;
  loading: boolean;
  error: string | null;
  onOpen: (item: IImageItem) => void;
  onRefresh: () => void;
  trans: TranslationBundle;
}

export function ImageGallery(props: IImageGalleryProps): JSX.Element {
  const { items, trans } = props;
  return (
    <div className="jp-KernelState-gallery" data-test-id="kernel-state-gallery">
      <div className="jp-KernelState-galleryHeader">
        <h2 className="jp-KernelState-galleryTitle">
          {props.source
            ? trans.__('Images of %1', props.source)
            : trans.__('Images')}
        </h2>
        <span
          className="jp-KernelState-dim"
          data-test-id="kernel-state-gallery-counts"
          role="status"
        >
          {[
            trans._n('%1 image kept', '%1 images kept', items.length),
            countersText(props.dropped, props.rejected, trans, props.kept)
          ]
            .filter(Boolean)
            .join(' · ')}
        </span>
        <button
          className="jp-KernelState-button"
          onClick={props.onRefresh}
          disabled={props.loading}
        >
          {props.loading ? trans.__('Loading…') : trans.__('Refresh')}
        </button>
      </div>
      {props.error && (
        <div
          className="jp-KernelState-error jp-KernelState-banner"
          role="alert"
        >
          {props.error}
        </div>
      )}
      {!props.source ? (
        <div className="jp-KernelState-message">
          {trans.__(
            'Open a notebook or console with a running kernel to see its images.'
          )}
        </div>
      ) : items.length === 0 ? (
        <div
          className="jp-KernelState-message"
          data-test-id="kernel-state-gallery-empty"
        >
          {props.loading
            ? trans.__('Loading…')
            : trans.__('No images yet — plots the kernel displays appear here')}
        </div>
      ) : (
        <ul
          className="jp-KernelState-galleryGrid"
          aria-label={trans.__('Images, newest first')}
        >
          {withGaps(items).map(entry =>
            'gap' in entry ? (
              <li
                key={`gap-${entry.gap.from}`}
                className="jp-KernelState-galleryGap"
                data-test-id="kernel-state-gallery-gap"
              >
                {gapText(entry.gap, trans)}
              </li>
            ) : (
              <GalleryCard
                key={entry.item.image.id}
                item={entry.item}
                onOpen={props.onOpen}
                trans={trans}
              />
            )
          )}
        </ul>
      )}
    </div>
  );
}

function GalleryCard(props: {
  item: IImageItem;
  onOpen: (item: IImageItem) => void;
  trans: TranslationBundle;
}): JSX.Element {
  const { item, trans } = props;
  const { image } = item;
  const size =
    image.width && image.height ? `${image.width}×${image.height}` : '';
  return (
    <li
      className="jp-KernelState-galleryItem"
      data-test-id="kernel-state-gallery-item"
      data-seq={image.seq}
      data-execution-count={image.execution_count ?? ''}
    >
      <button
        className="jp-KernelState-galleryImage"
        title={imageTitle(image, trans)}
        aria-label={trans.__('Open %1', imageTitle(image, trans))}
        onClick={() => props.onOpen(item)}
      >
        {item.url ? (
          <img src={item.url} alt={imageAlt(image, trans)} draggable={false} />
        ) : (
          <span className="jp-KernelState-thumbPlaceholder">
            {item.error ? trans.__('unavailable') : '…'}
          </span>
        )}
      </button>
      <div className="jp-KernelState-galleryMeta">
        <span
          className="jp-KernelState-galleryLabel"
          data-test-id="kernel-state-gallery-label"
        >
          {imageLabel(image)}
        </span>
        <span className="jp-KernelState-dim">
          {[image.mime, size, formatBytes(image.bytes)]
            .filter(Boolean)
            .join(' · ')}
        </span>
        {item.url && (
          <a
            className="jp-KernelState-download"
            href={item.url}
            download={imageFileName(image)}
            title={trans.__('Download %1', imageFileName(image))}
          >
            <downloadIcon.react
              tag="span"
              className="jp-KernelState-buttonIcon"
            />
            {trans.__('Download')}
          </a>
        )}
      </div>
      {image.code ? (
        <pre
          className="jp-KernelState-code jp-KernelState-galleryCode"
          data-test-id="kernel-state-gallery-code"
          tabIndex={0}
          aria-label={trans.__(
            'Code of execution %1',
            image.execution_count ?? '?'
          )}
        >
          {image.code}
          {image.code_truncated ? `\n${trans.__('… (code cut)')}` : ''}
        </pre>
      ) : (
        <div className="jp-KernelState-dim jp-KernelState-galleryNoCode">
          {trans.__('The code of its cell is not known')}
        </div>
      )}
    </li>
  );
}
