/**
 * Images you can find again: the model lists everything the server holds again when it
 * dropped images meanwhile (never showing one it let go), the strip and the gallery
 * label each image with its ordinal and execution, mark the ordinals not kept, and the
 * gallery shows each image's cell code; the gallery tab loads only while seen.
 */
import { nullTranslator } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import { ImageGallery } from '../components/ImageGallery';
import { countersText, ImageStrip } from '../components/ImageStrip';
import { IImageItem, ImageStripModel, withGaps } from '../models/images';
import { IImageList } from '../tokens';
import { ImageGalleryPanel } from '../widgets/tabs';
import { fakeService, makeImage, until } from './helpers';
import { host, render, useReactHost } from './react';

const trans = nullTranslator.load('jupyter_kernel_state');

function listing(
  images: ReturnType<typeof makeImage>[],
  extra: Partial<IImageList> = {}
): IImageList {
  return {
    images,
    next_since: images.length ? images[images.length - 1].seq : 0,
    total: images.length,
    more: 0,
    dropped: 0,
    rejected: 0,
    keep_first: 2,
    keep_last: 3,
    ...extra
  };
}

const item = (seq: number, extra: Partial<IImageItem> = {}): IImageItem => ({
  image: makeImage(seq),
  url: `blob:${seq}`,
  error: null,
  ...extra
});

function modelSetup() {
  const service = fakeService();
  service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
  const revoked: string[] = [];
  const model = new ImageStripModel({
    service,
    debounce: 1,
    createObjectURL: blob => `blob:${(blob as Blob).size}:${Math.random()}`,
    revokeObjectURL: url => revoked.push(url)
  });
  return { service, model, revoked };
}

describe('ImageStripModel after a flood', () => {
  it('lists everything held again when images were dropped, keeping what is held', async () => {
    const { service, model, revoked } = modelSetup();
    service.images.mockResolvedValueOnce(
      listing([makeImage(1), makeImage(2), makeImage(3)])
    );
    model.setActive(true);
    await model.refresh();
    const urlOf = (seq: number) =>
      model.items.find(i => i.image.seq === seq)?.url;
    const first = urlOf(1);
    const third = urlOf(3);
    // A loop drew 4…9: the server kept 1, 2 (the first) and 7, 8, 9 (the latest).
    service.images
      .mockResolvedValueOnce(
        listing(
          [7, 8, 9].map(seq => makeImage(seq)),
          {
            total: 5,
            dropped: 4,
            next_since: 9
          }
        )
      )
      .mockResolvedValueOnce(
        listing(
          [1, 2, 7, 8, 9].map(seq => makeImage(seq)),
          {
            total: 5,
            dropped: 4,
            next_since: 9
          }
        )
      );
    await model.refresh();
    expect(service.images).toHaveBeenNthCalledWith(2, 3, 50);
    expect(service.images).toHaveBeenNthCalledWith(3, 0, 50);
    expect(model.items.map(i => i.image.seq)).toEqual([9, 8, 7, 2, 1]);
    expect(urlOf(1)).toBe(first); // bytes of an image still held are not fetched again
    expect(revoked).toContain(third); // #3 was dropped: its URL goes
    expect(model.dropped).toBe(4);
    expect(model.kept).toEqual({ first: 2, last: 3 });
    model.dispose();
  });

  it('does not list again when nothing was dropped', async () => {
    const { service, model } = modelSetup();
    service.images
      .mockResolvedValueOnce(listing([makeImage(1)]))
      .mockResolvedValueOnce(listing([makeImage(2)], { total: 2 }));
    model.setActive(true);
    await model.refresh();
    await model.refresh();
    expect(service.images).toHaveBeenCalledTimes(2);
    expect(model.items.map(i => i.image.seq)).toEqual([2, 1]);
    model.dispose();
  });
});

describe('gaps', () => {
  it('marks the ordinals between two images not kept', () => {
    const marks = withGaps([item(9), item(8), item(3), item(1)]).map(e =>
      'gap' in e ? `gap ${e.gap.from}-${e.gap.to}` : `#${e.item.image.seq}`
    );
    expect(marks).toEqual(['#9', '#8', 'gap 4-7', '#3', 'gap 2-2', '#1']);
  });

  it('says how many were dropped and what is kept', () => {
    expect(countersText(12, 1, trans, { first: 10, last: 50 })).toBe(
      '12 images dropped (the first 10 and the latest 50 are kept) · 1 image rejected'
    );
    expect(countersText(1, 0, trans, null)).toBe('1 older image dropped');
  });
});

describe('ImageStrip and ImageGallery', () => {
  useReactHost();
  const all = (id: string) =>
    [...host.querySelectorAll(`[data-test-id="${id}"]`)] as HTMLElement[];

  it('labels thumbnails #ordinal [execution] and marks the gap', () => {
    render(
      <ImageStrip
        items={[item(23), item(10)]}
        dropped={12}
        rejected={0}
        kept={{ first: 10, last: 50 }}
        error={null}
        onOpen={jest.fn()}
        trans={trans}
      />
    );
    expect(
      [...host.querySelectorAll('.jp-KernelState-thumbLabel')].map(
        l => l.textContent
      )
    ).toEqual(['#23 [23]', '#10 [10]']);
    expect(all('kernel-state-image-gap').map(g => g.textContent)).toEqual([
      '#11–#22 not kept'
    ]);
    expect(all('kernel-state-image')[0].dataset.seq).toBe('23');
  });

  it('shows each image large with its ordinal, execution and cell code', () => {
    const onOpen = jest.fn();
    const code = 'for i in range(60):\n    plt.plot([i]); plt.show()';
    const items = [
      item(62, {
        image: makeImage(62, {
          execution_count: 13,
          code,
          code_truncated: true
        })
      }),
      item(1, {
        image: makeImage(1, {
          execution_count: 2,
          mime: 'image/svg+xml',
          code: null
        })
      })
    ];
    render(
      <ImageGallery
        source="demo.ipynb"
        items={items}
        dropped={2}
        rejected={0}
        kept={{ first: 10, last: 50 }}
        loading={false}
        error={null}
        onOpen={onOpen}
        onRefresh={jest.fn()}
        trans={trans}
      />
    );
    const cards = all('kernel-state-gallery-item');
    expect(cards.map(c => [c.dataset.seq, c.dataset.executionCount])).toEqual([
      ['62', '13'],
      ['1', '2']
    ]);
    expect(all('kernel-state-gallery-label').map(l => l.textContent)).toEqual([
      '#62 [13]',
      '#1 [2]'
    ]);
    const [shown] = all('kernel-state-gallery-code');
    expect(shown.textContent).toBe(`${code}\n… (code cut)`);
    expect(shown.querySelector('*')).toBeNull(); // text, never HTML
    expect(cards[1].textContent).toContain('The code of its cell is not known');
    expect(all('kernel-state-gallery-gap')[0].textContent).toBe(
      '#2–#61 not kept'
    );
    expect(all('kernel-state-gallery-counts')[0].textContent).toBe(
      '2 images kept · 2 images dropped (the first 10 and the latest 50 are kept)'
    );
    React.act(() => cards[0].querySelector('button')!.click());
    expect(onOpen).toHaveBeenCalledWith(items[0]);
  });
});

describe('ImageGalleryPanel', () => {
  it('loads only while its tab is seen, and follows the kernel', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.images.mockResolvedValue(
      listing([makeImage(1, { code: 'plot()' })])
    );
    const panel = new ImageGalleryPanel({ service });
    expect(service.images).not.toHaveBeenCalled();
    Widget.attach(panel, document.body);
    await until(
      () =>
        panel.node.querySelector(
          '[data-test-id="kernel-state-gallery-code"]'
        ) !== null
    );
    expect(service.images).toHaveBeenCalledTimes(1);
    expect(panel.node.textContent).toContain('Images of a.ipynb');
    expect(
      panel.node.querySelector('[data-test-id="kernel-state-gallery-code"]')
        ?.textContent
    ).toBe('plot()');
    panel.hide();
    expect(panel.model.active).toBe(false);
    panel.dispose();
  });
});
