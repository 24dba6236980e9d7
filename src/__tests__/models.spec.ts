import { ImageStripModel, imageFileName } from '../models/images';
import { PromptModel } from '../models/prompt';
import { IImageList } from '../tokens';
import {
  fakeService,
  makeImage,
  makePrompt,
  makeSnapshot,
  sleep
} from './helpers';

function page(
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
    ...extra
  };
}

function imageSetup(kernelId: string | null = 'k1') {
  const service = fakeService(kernelId);
  const created: string[] = [];
  const revoked: string[] = [];
  let n = 0;
  const model = new ImageStripModel({
    service,
    debounce: 1,
    createObjectURL: () => {
      const url = `blob:${++n}`;
      created.push(url);
      return url;
    },
    revokeObjectURL: url => revoked.push(url)
  });
  return { service, model, created, revoked };
}

describe('ImageStripModel', () => {
  it('makes no request until active, then lists newest first with their bytes', async () => {
    const { service, model } = imageSetup();
    service.images.mockResolvedValue(
      page([makeImage(1), makeImage(2)], { total: 2 })
    );
    await sleep(5);
    expect(service.images).not.toHaveBeenCalled();
    model.setActive(true);
    await sleep(10);
    expect(service.images).toHaveBeenCalledWith(0, 50);
    expect(model.items.map(item => item.image.seq)).toEqual([2, 1]);
    const urls = model.items.map(item => item.url);
    expect(urls.every(url => url?.startsWith('blob:'))).toBe(true);
    expect(new Set(urls).size).toBe(2);
    expect(service.imageBlob).toHaveBeenCalledTimes(2);
    model.dispose();
  });

  it('asks only for what is new after a new snapshot generation', async () => {
    const { service, model } = imageSetup();
    service.images
      .mockResolvedValueOnce(page([makeImage(1)]))
      .mockResolvedValueOnce(page([makeImage(2)], { total: 2 }));
    model.setActive(true);
    await sleep(10);
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(makeSnapshot({ generation: 2 }));
    await sleep(10);
    expect(service.images).toHaveBeenLastCalledWith(1, 50);
    expect(model.items.map(item => item.image.seq)).toEqual([2, 1]);
    expect(service.imageBlob).toHaveBeenCalledTimes(2);
    model.dispose();
  });

  it('moves a repeated image to the front, replaces a display, keeps what the server holds', async () => {
    const { service, model, revoked } = imageSetup();
    service.images
      .mockResolvedValueOnce(
        page([makeImage(1), makeImage(2, { display_id: 'd' }), makeImage(3)], {
          total: 3
        })
      )
      .mockResolvedValueOnce(
        page(
          [
            makeImage(4, { id: makeImage(1).id }),
            makeImage(5, { display_id: 'd' }),
            makeImage(6)
          ],
          { total: 3, dropped: 1, rejected: 2 }
        )
      )
      // One was dropped meanwhile: everything held is listed again.
      .mockResolvedValueOnce(
        page(
          [
            makeImage(4, { id: makeImage(1).id }),
            makeImage(5, { display_id: 'd' }),
            makeImage(6)
          ],
          { total: 3, dropped: 1, rejected: 2 }
        )
      );
    model.setActive(true);
    await sleep(10);
    const firstUrl = model.items.find(item => item.image.seq === 1)?.url;
    await model.refresh();
    await sleep(5);
    expect(model.items.map(item => item.image.seq)).toEqual([6, 5, 4]);
    // The same bytes keep their object URL; the replaced display and the evicted one go.
    expect(model.items[2].url).toBe(firstUrl);
    expect(revoked).toHaveLength(2);
    expect(model.dropped).toBe(1);
    expect(model.rejected).toBe(2);
    model.dispose();
  });

  it('follows the cursor over several pages', async () => {
    const { service, model } = imageSetup();
    service.images
      .mockResolvedValueOnce(page([makeImage(1)], { total: 2, more: 1 }))
      .mockResolvedValueOnce(page([makeImage(2)], { total: 2 }));
    model.setActive(true);
    await sleep(10);
    expect(service.images.mock.calls).toEqual([
      [0, 50],
      [1, 50]
    ]);
    expect(model.items).toHaveLength(2);
    model.dispose();
  });

  it('keeps an image whose bytes cannot be fetched, marked unavailable', async () => {
    const { service, model } = imageSetup();
    service.images.mockResolvedValue(page([makeImage(1)]));
    service.imageBlob.mockRejectedValueOnce(new Error('Image not found'));
    model.setActive(true);
    await sleep(10);
    expect(model.items[0].url).toBeNull();
    expect(model.items[0].error).toBe('Image not found');
    model.dispose();
  });

  it('forgets the images of a kernel it no longer follows and revokes on dispose', async () => {
    const { service, model, created, revoked } = imageSetup();
    service.images.mockResolvedValue(page([makeImage(1)]));
    model.setActive(true);
    await sleep(10);
    expect(created).toHaveLength(1);
    service.kernelId = 'k2';
    service.images.mockResolvedValue(page([makeImage(7)]));
    service.changed.emit();
    expect(model.items).toHaveLength(0);
    expect(revoked).toEqual(created);
    await sleep(10);
    expect(service.images).toHaveBeenLastCalledWith(0, 50);
    expect(model.items.map(item => item.image.seq)).toEqual([7]);
    model.dispose();
    expect(revoked).toHaveLength(2);
  });

  it('follows executions of kernels without snapshots', async () => {
    const { service, model } = imageSetup();
    service.images.mockResolvedValue(page([]));
    model.setActive(true);
    await sleep(10);
    service.model.setKernel({ id: 'k1', name: 'R', source: 'a.ipynb' });
    service.model.setError('unsupported', 'no probe');
    service.executed.emit({ kernelId: 'k1', msgId: 'm' });
    await sleep(300);
    expect(service.images).toHaveBeenCalledTimes(2);
    model.setActive(false);
    service.executed.emit({ kernelId: 'k1', msgId: 'm2' });
    await sleep(300);
    expect(service.images).toHaveBeenCalledTimes(2);
    model.dispose();
  });

  it('names downloads after the execution and the id', () => {
    expect(imageFileName(makeImage(3, { mime: 'image/svg+xml' }))).toBe(
      `kernel-state-3-${makeImage(3).id}.svg`
    );
    expect(
      imageFileName(makeImage(1, { execution_count: null, mime: 'image/jpeg' }))
    ).toMatch(/^kernel-state-x-[0-9a-f]{16}\.jpg$/);
  });
});

describe('PromptModel', () => {
  function promptSetup() {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const model = new PromptModel({
      service,
      debounce: 1,
      query: { budget: 2000 }
    });
    return { service, model };
  }

  it('loads when active with the query, and shows the result', async () => {
    const { service, model } = promptSetup();
    expect(service.prompt).not.toHaveBeenCalled();
    model.setActive(true);
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledWith({ budget: 2000, history: 0 });
    expect(model.result?.text).toContain('Kernel state — python');
    model.dispose();
  });

  it('reloads after a new snapshot generation or a note, not on re-activation alone', async () => {
    const { service, model } = promptSetup();
    model.setActive(true);
    await sleep(10);
    model.setActive(false);
    model.setActive(true);
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledTimes(1);

    service.model.setSnapshot(makeSnapshot({ generation: 2 }));
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledTimes(2);
    service.annotationChanged.emit('x');
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledTimes(3);

    model.setActive(false);
    service.model.setSnapshot(makeSnapshot({ generation: 3 }));
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledTimes(3);
    model.setActive(true);
    await sleep(10);
    expect(service.prompt).toHaveBeenCalledTimes(4);
    model.dispose();
  });

  it('reloads when the budget changes and shows the server message on failure', async () => {
    const { service, model } = promptSetup();
    model.setActive(true);
    await sleep(10);
    service.prompt.mockRejectedValueOnce(
      new Error('budget must be at least 200')
    );
    model.setQuery({ budget: 100 });
    await sleep(10);
    expect(service.prompt).toHaveBeenLastCalledWith({
      budget: 100,
      history: 0
    });
    expect(model.error).toBe('budget must be at least 200');
    expect(model.result).toBeNull();
    service.prompt.mockResolvedValueOnce(makePrompt({ text: 'again' }));
    model.setQuery({ budget: 6000 });
    await sleep(10);
    expect(model.error).toBeNull();
    expect(model.result?.text).toBe('again');
    model.dispose();
  });
});
