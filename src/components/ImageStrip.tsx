/**
 * Thumbnails of the images the kernel displayed, newest first, each labelled with its
 * ordinal in the kernel (`#12`) and the execution count that produced it (`[13]`), with
 * a mark where the server dropped images in between; a click opens the larger view, and
 * the gallery tab shows them large with their cells' code.
 *
 * Images are shown through `<img src=blob:…>` only — never as HTML — so an SVG from a
 * kernel cannot run scripts. Their code is a text node.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { downloadIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes } from '../format';
import { IImageItem, imageFileName, withGaps } from '../models/images';
import { IImage } from '../tokens';

export interface IImageStripProps {
  items: readonly IImageItem[];
  dropped: number;
  rejected: number;
  /**
   * What the server keeps: its first and latest images (null: not said).
   */
  kept?: { first: number; last: number } | null;
  error: string | null;
  onOpen: (item: IImageItem) => void;
  trans: TranslationBundle;
}

export function ImageStrip(props: IImageStripProps): JSX.Element {
  const { items, trans } = props;
  return (
    <div className="jp-KernelState-images">
      {props.error && (
        <div className="jp-KernelState-error" role="alert">
          {props.error}
        </div>
      )}
      {items.length === 0 ? (
        <div
          className="jp-KernelState-note"
          data-test-id="kernel-state-images-empty"
        >
          {trans.__('No images yet — plots the kernel displays appear here')}
        </div>
      ) : (
        <ul
          className="jp-KernelState-strip"
          aria-label={trans.__('Images, newest first')}
        >
          {withGaps(items).map(entry =>
            'gap' in entry ? (
              <li
                key={`gap-${entry.gap.from}`}
                className="jp-KernelState-thumbGap"
                data-test-id="kernel-state-image-gap"
                title={gapText(entry.gap, trans)}
              >
                {gapText(entry.gap, trans)}
              </li>
            ) : (
              <li key={entry.item.image.id} className="jp-KernelState-thumb">
                <button
                  className="jp-KernelState-thumbButton"
                  data-test-id="kernel-state-image"
                  data-execution-count={entry.item.image.execution_count ?? ''}
                  data-seq={entry.item.image.seq}
                  data-image-id={entry.item.image.id}
                  title={imageTitle(entry.item.image, trans)}
                  aria-label={trans.__(
                    'Open %1',
                    imageTitle(entry.item.image, trans)
                  )}
                  onClick={() => props.onOpen(entry.item)}
                >
                  {entry.item.url ? (
                    <img
                      src={entry.item.url}
                      alt={imageAlt(entry.item.image, trans)}
                      draggable={false}
                    />
                  ) : (
                    <span className="jp-KernelState-thumbPlaceholder">
                      {entry.item.error ? trans.__('unavailable') : '…'}
                    </span>
                  )}
                </button>
                <span className="jp-KernelState-thumbLabel">
                  {imageLabel(entry.item.image)}
                </span>
              </li>
            )
          )}
        </ul>
      )}
      {(props.dropped > 0 || props.rejected > 0) && (
        <div
          className="jp-KernelState-dim jp-KernelState-imageCounters"
          data-test-id="kernel-state-image-counters"
        >
          {countersText(props.dropped, props.rejected, trans, props.kept)}
        </div>
      )}
    </div>
  );
}

export interface IImageViewProps {
  item: IImageItem;
  trans: TranslationBundle;
}

/**
 * The larger view of one image (the body of a dialog), with a download link.
 */
export function ImageView(props: IImageViewProps): JSX.Element {
  const { item, trans } = props;
  const { image } = item;
  const size =
    image.width && image.height ? `${image.width}×${image.height}` : '';
  return (
    <div
      className="jp-KernelState-imageView"
      data-test-id="kernel-state-image-view"
    >
      <div className="jp-KernelState-imageFrame">
        {item.url ? (
          <img src={item.url} alt={imageAlt(image, trans)} />
        ) : (
          <span className="jp-KernelState-dim">
            {item.error ?? trans.__('Loading…')}
          </span>
        )}
      </div>
      <div className="jp-KernelState-imageMeta">
        <span className="jp-KernelState-dim">
          {[imageLabel(image), image.mime, size, formatBytes(image.bytes)]
            .filter(Boolean)
            .join(' · ')}
        </span>
        {item.url && (
          <a
            className="jp-KernelState-download"
            href={item.url}
            download={imageFileName(image)}
            data-test-id="kernel-state-image-download"
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
    </div>
  );
}

/**
 * `[3]`, or `[?]` when the image came from no known execution.
 */
export function executionLabel(image: IImage): string {
  return `[${image.execution_count ?? '?'}]`;
}

/**
 * `#12 [13]`: the image's ordinal in its kernel and the execution that drew it.
 */
export function imageLabel(image: IImage): string {
  return `#${image.seq} ${executionLabel(image)}`;
}

export function imageTitle(image: IImage, trans: TranslationBundle): string {
  return image.execution_count === null
    ? trans.__('image #%1 (%2)', image.seq, image.mime)
    : trans.__(
        'image #%1 from execution %2 (%3)',
        image.seq,
        image.execution_count,
        image.mime
      );
}

/**
 * `#11–#22 not kept`: ordinals between two images the server no longer holds.
 */
export function gapText(
  gap: { from: number; to: number },
  trans: TranslationBundle
): string {
  return gap.from === gap.to
    ? trans.__('#%1 not kept', gap.from)
    : trans.__('#%1–#%2 not kept', gap.from, gap.to);
}

export function imageAlt(image: IImage, trans: TranslationBundle): string {
  const size =
    image.width && image.height ? ` ${image.width}×${image.height}` : '';
  return image.execution_count === null
    ? trans.__('Image, %1%2', image.mime, size)
    : trans.__(
        'Image from execution %1, %2%3',
        image.execution_count,
        image.mime,
        size
      );
}

export function countersText(
  dropped: number,
  rejected: number,
  trans: TranslationBundle,
  kept?: { first: number; last: number } | null
): string {
  const parts: string[] = [];
  if (dropped > 0) {
    parts.push(
      kept
        ? trans._n(
            '%1 image dropped (the first %2 and the latest %3 are kept)',
            '%1 images dropped (the first %2 and the latest %3 are kept)',
            dropped,
            kept.first,
            kept.last
          )
        : trans._n('%1 older image dropped', '%1 older images dropped', dropped)
    );
  }
  if (rejected > 0) {
    parts.push(trans._n('%1 image rejected', '%1 images rejected', rejected));
  }
  return parts.join(' · ');
}
