import { ServerConnection } from '@jupyterlab/services';

import {
  deleteAnnotation,
  getPrompt,
  getSnapshot,
  getImage,
  getVariable,
  imageUrl,
  listImages,
  listKernels,
  putAnnotation,
  retryAfterSeconds,
  SnapshotCache
} from '../restapi';
import { makeSnapshot, scriptedSettings, urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

describe('restapi', () => {
  it('lists kernels under the base URL', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: { kernels: [] } }
    ]);
    expect(await listKernels(settings)).toEqual({ kernels: [] });
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels`);
    expect(requests[0].method).toBe('GET');
  });

  it('builds the snapshot query in a stable order', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    await getSnapshot(
      'k 1/x',
      {
        include: ['modules', 'callables'],
        limit: 100,
        offset: 5,
        sort: 'size',
        since: 3
      },
      settings
    );
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k%201%2Fx/variables?include=callables%2Cmodules&limit=100&offset=5&sort=size&since=3`
    );
  });

  it('asks for a delta only when told', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    await getSnapshot('k1', { since: 4, delta: true }, settings);
    await getSnapshot('k1', { since: 4, delta: false }, settings);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables?since=4&delta=true`
    );
    expect(urlOf(requests[1])).toBe(`${BASE}/kernels/k1/variables?since=4`);
  });

  it('sends a name filter to the server', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    await getSnapshot('k1', { filter: 'sales*' }, settings);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables?filter=sales*`
    );
  });

  it('omits empty query parameters', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    await getSnapshot('k1', { include: [] }, settings);
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k1/variables`);
  });

  it('sends If-None-Match and returns the cached snapshot on 304', async () => {
    const first = makeSnapshot({ generation: 7 });
    const { settings, requests } = scriptedSettings([
      { status: 200, body: first, headers: { ETag: '"abc"' } },
      { status: 304, headers: { ETag: '"abc"' } }
    ]);
    const cache = new SnapshotCache();
    const a = await getSnapshot('k1', { limit: 10 }, settings, cache);
    const b = await getSnapshot('k1', { limit: 10 }, settings, cache);
    expect(requests[0].headers.get('If-None-Match')).toBeNull();
    expect(requests[1].headers.get('If-None-Match')).toBe('"abc"');
    expect(b).toBe(a);
    expect(b.generation).toBe(7);
  });

  it('keys the ETag cache by kernel and query', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot(), headers: { ETag: '"abc"' } }
    ]);
    const cache = new SnapshotCache();
    await getSnapshot('k1', { limit: 10 }, settings, cache);
    await getSnapshot('k1', { limit: 20 }, settings, cache);
    await getSnapshot('k2', { limit: 10 }, settings, cache);
    expect(requests[1].headers.get('If-None-Match')).toBeNull();
    expect(requests[2].headers.get('If-None-Match')).toBeNull();
    cache.forgetKernel('k1');
    expect(cache.size).toBe(1);
  });

  it('treats a 304 without a cached body as an error', async () => {
    const { settings } = scriptedSettings([{ status: 304 }]);
    await expect(getSnapshot('k1', {}, settings)).rejects.toBeInstanceOf(
      ServerConnection.ResponseError
    );
  });

  it('maps error bodies to ResponseError with the server message', async () => {
    const { settings } = scriptedSettings([
      {
        status: 404,
        body: { message: 'Kernel does not exist: nope', reason: null }
      }
    ]);
    const error = await getSnapshot('nope', {}, settings).catch(e => e);
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(error.message).toBe('Kernel does not exist: nope');
    expect(error.response.status).toBe(404);
    expect(retryAfterSeconds(error)).toBeNull();
  });

  it('reads Retry-After from a 503', async () => {
    const { settings } = scriptedSettings([
      {
        status: 503,
        body: { message: 'busy' },
        headers: { 'Retry-After': '2' }
      }
    ]);
    const error = await getSnapshot('k1', {}, settings).catch(e => e);
    expect(retryAfterSeconds(error)).toBe(2);
    expect(retryAfterSeconds(new Error('x'))).toBeNull();
  });

  it('encodes the variable name and the JSON path', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: {} }
    ]);
    await getVariable('k1', 'df', { path: ['a', 1], max_chars: 500 }, settings);
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe('/base/api/kernel-state/kernels/k1/variables/df');
    expect(url.searchParams.get('path')).toBe('["a",1]');
    expect(url.searchParams.get('max_chars')).toBe('500');
  });

  it('checks exact statuses for later endpoints', async () => {
    const ok = scriptedSettings([{ status: 204 }]);
    await deleteAnnotation('k1', 'x', ok.settings);
    expect(ok.requests[0].method).toBe('DELETE');
    expect(urlOf(ok.requests[0])).toBe(
      `${BASE}/kernels/k1/variables/x/annotation`
    );

    const wrong = scriptedSettings([{ status: 200, body: {} }]);
    await expect(
      deleteAnnotation('k1', 'x', wrong.settings)
    ).rejects.toBeInstanceOf(ServerConnection.ResponseError);

    const prompt = scriptedSettings([{ status: 200, body: { text: 't' } }]);
    await getPrompt('k1', { budget: 100 }, prompt.settings);
    expect(urlOf(prompt.requests[0])).toBe(
      `${BASE}/kernels/k1/prompt?budget=100&format=json`
    );
  });

  it('lists images since a cursor and fetches their bytes as a typed blob', async () => {
    const list = scriptedSettings([{ status: 200, body: { images: [] } }]);
    await listImages('k1', { since: 5, limit: 20 }, list.settings);
    expect(urlOf(list.requests[0])).toBe(
      `${BASE}/kernels/k1/images?since=5&limit=20`
    );

    const fetch = async (): Promise<Response> =>
      new Response('<svg/>', {
        status: 200,
        headers: { 'Content-Type': 'image/svg+xml' }
      });
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://localhost:8888/base/',
      fetch: fetch as typeof window.fetch
    });
    const blob = await getImage('k1', 'abc', settings);
    expect(blob.type).toBe('image/svg+xml');

    expect(imageUrl('k1', 'ab/c', true, settings)).toBe(
      `${BASE}/kernels/k1/images/ab%2Fc?download=1`
    );
    expect(imageUrl('k1', 'abc', false, settings)).toBe(
      `${BASE}/kernels/k1/images/abc`
    );
  });

  it('PUTs a note as JSON and surfaces the 400 message', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 400, body: { message: "Unknown field: 'x'" } }
    ]);
    const error = await putAnnotation(
      'k1',
      'df',
      { description: 'd' },
      settings
    ).catch(e => e);
    expect(requests[0].method).toBe('PUT');
    expect(JSON.parse(await requests[0].text())).toEqual({ description: 'd' });
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(error.message).toBe("Unknown field: 'x'");
  });
});
