/**
 * Thumbnails of the images the kernel displayed, newest first, each labelled with the
 * execution count that produced it; a click opens the larger view.
 *
 * Images are shown through `<img src=blob:…>` only — never as HTML — so an SVG from a
 * kernel cannot run scripts.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { downloadIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes } from '../format';
import { IImageItem, imageFileName } from '../models/images';
import { IImage } from '../tokens';

export interface IImageStripProps {
  items: readonly IImageItem[];
  dropped: number;
  rejected: number;
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
          {items.map(item => (
            <li key={item.image.id} className="jp-KernelState-thumb">
              <button
                className="jp-KernelState-thumbButton"
                data-test-id="kernel-state-image"
                data-execution-count={item.image.execution_count ?? ''}
                data-image-id={item.image.id}
                title={imageTitle(item.image, trans)}
                aria-label={trans.__('Open %1', imageTitle(item.image, trans))}
                onClick={() => props.onOpen(item)}
              >
                {item.url ? (
                  <img
                    src={item.url}
                    alt={imageAlt(item.image, trans)}
                    draggable={false}
                  />
                ) : (
                  <span className="jp-KernelState-thumbPlaceholder">
                    {item.error ? trans.__('unavailable') : '…'}
                  </span>
                )}
              </button>
              <span className="jp-KernelState-thumbLabel">
                {executionLabel(item.image)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {(props.dropped > 0 || props.rejected > 0) && (
        <div
          className="jp-KernelState-dim jp-KernelState-imageCounters"
          data-test-id="kernel-state-image-counters"
        >
          {countersText(props.dropped, props.rejected, trans)}
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
          {[executionLabel(image), image.mime, size, formatBytes(image.bytes)]
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

export function imageTitle(image: IImage, trans: TranslationBundle): string {
  return image.execution_count === null
    ? trans.__('image (%1)', image.mime)
    : trans.__(
        'image from execution %1 (%2)',
        image.execution_count,
        image.mime
      );
}

function imageAlt(image: IImage, trans: TranslationBundle): string {
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

function countersText(
  dropped: number,
  rejected: number,
  trans: TranslationBundle
): string {
  const parts: string[] = [];
  if (dropped > 0) {
    parts.push(
      trans._n('%1 older image dropped', '%1 older images dropped', dropped)
    );
  }
  if (rejected > 0) {
    parts.push(trans._n('%1 image rejected', '%1 images rejected', rejected));
  }
  return parts.join(' · ');
}
