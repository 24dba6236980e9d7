import { ServerConnection } from '@jupyterlab/services';

import {
  MAX_URL_CHARS,
  request,
  requestUrl,
  retryAfterSeconds,
  SnapshotCache
} from '../restapi';
import { FilterNode, ROUTES } from '../tokens';
import { makeSnapshot, scriptedSettings, urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

describe('restapi', () => {
  it('lists kernels under the base URL', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: { kernels: [] } }
    ]);
    expect(await request('kernels', {}, settings)).toEqual({ kernels: [] });
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels`);
    expect(requests[0].method).toBe('GET');
  });

  it('builds the snapshot query in a stable order', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    await request(
      'variables',
      {
        kernel_id: 'k 1/x',
        query: {
          include: ['modules', 'callables'],
          limit: 100,
          offset: 5,
          sort: 'size',
          since: 3
        }
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
    const kernel_id = 'k1';
    await request(
      'variables',
      { kernel_id, query: { since: 4, delta: true } },
      settings
    );
    await request(
      'variables',
      { kernel_id, query: { since: 4, delta: false } },
      settings
    );
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables?since=4&delta=true`
    );
    expect(urlOf(requests[1])).toBe(`${BASE}/kernels/k1/variables?since=4`);
  });

  it('sends a name filter, and omits empty query parameters', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: makeSnapshot() }
    ]);
    const kernel_id = 'k1';
    await request(
      'variables',
      { kernel_id, query: { filter: 'sales*' } },
      settings
    );
    await request(
      'variables',
      { kernel_id, query: { include: [], filter: '' } },
      settings
    );
    expect(requests.map(urlOf)).toEqual([
      `${BASE}/kernels/k1/variables?filter=sales*`,
      `${BASE}/kernels/k1/variables`
    ]);
  });

  it('makes a full snapshot whole, and leaves brief entries as they are', async () => {
    const lean = { name: 'x', type: 'int', kind: 'number', preview: '1' };
    const { settings } = scriptedSettings([
      { status: 200, body: { ...makeSnapshot(), variables: [lean] } }
    ]);
    const kernel_id = 'k1';
    const full = await request('variables', { kernel_id }, settings);
    expect(full.variables[0].qualname).toBe('int');
    expect(full.variables[0].changes).toEqual([]);
    const brief = await request(
      'variables',
      { kernel_id, query: { detail: 'names' } },
      settings
    );
    expect(brief.variables[0]).toEqual(lean);
  });

  it('sends If-None-Match and returns the cached snapshot on 304', async () => {
    const first = makeSnapshot({ generation: 7 });
    const { settings, requests } = scriptedSettings([
      { status: 200, body: first, headers: { ETag: '"abc"' } },
      { status: 304, headers: { ETag: '"abc"' } }
    ]);
    const cache = new SnapshotCache();
    const args = { kernel_id: 'k1', query: { limit: 10 } };
    const a = await request('variables', args, settings, cache);
    const b = await request('variables', args, settings, cache);
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
    const page = (kernel_id: string, limit: number) =>
      request('variables', { kernel_id, query: { limit } }, settings, cache);
    await page('k1', 10);
    await page('k1', 20);
    await page('k2', 10);
    expect(requests[1].headers.get('If-None-Match')).toBeNull();
    expect(requests[2].headers.get('If-None-Match')).toBeNull();
    cache.forgetKernel('k1');
    expect(cache.size).toBe(1);
  });

  it('treats a 304 without a cached body as an error', async () => {
    const { settings } = scriptedSettings([{ status: 304 }]);
    await expect(
      request('variables', { kernel_id: 'k1' }, settings)
    ).rejects.toBeInstanceOf(ServerConnection.ResponseError);
  });

  it('maps error bodies to ResponseError with the server message', async () => {
    const { settings } = scriptedSettings([
      {
        status: 404,
        body: { message: 'Kernel does not exist: nope', reason: null }
      }
    ]);
    const error = await request('variables', { kernel_id: 'nope' }, settings)
      .then(() => null)
      .catch(e => e);
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
    const error = await request('variables', { kernel_id: 'k1' }, settings)
      .then(() => null)
      .catch(e => e);
    expect(retryAfterSeconds(error)).toBe(2);
    expect(retryAfterSeconds(new Error('x'))).toBeNull();
  });

  it('encodes the variable name and the JSON path', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: {} }
    ]);
    await request(
      'variable',
      {
        kernel_id: 'k1',
        name: 'df',
        query: { path: ['a', 1], max_chars: 500 }
      },
      settings
    );
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe('/base/api/kernel-state/kernels/k1/variables/df');
    expect(url.searchParams.get('path')).toBe('["a",1]');
    expect(url.searchParams.get('max_chars')).toBe('500');
  });

  it('checks the exact status of each route', async () => {
    const ok = scriptedSettings([{ status: 204 }]);
    const args = { kernel_id: 'k1', name: 'x' };
    await request('clear_annotation', args, ok.settings);
    expect(ok.requests[0].method).toBe('DELETE');
    expect(urlOf(ok.requests[0])).toBe(
      `${BASE}/kernels/k1/variables/x/annotation`
    );

    const wrong = scriptedSettings([{ status: 200, body: {} }]);
    await expect(
      request('clear_annotation', args, wrong.settings)
    ).rejects.toBeInstanceOf(ServerConnection.ResponseError);

    const prompt = scriptedSettings([{ status: 200, body: { text: 't' } }]);
    await request(
      'prompt',
      { kernel_id: 'k1', query: { budget: 100, format: 'json' } },
      prompt.settings
    );
    expect(urlOf(prompt.requests[0])).toBe(
      `${BASE}/kernels/k1/prompt?budget=100&format=json`
    );
  });

  it('lists images since a cursor and fetches their bytes as a typed blob', async () => {
    const list = scriptedSettings([{ status: 200, body: { images: [] } }]);
    await request(
      'images',
      { kernel_id: 'k1', query: { since: 5, limit: 20 } },
      list.settings
    );
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
    const kernel_id = 'k1';
    const blob = await request(
      'image',
      { kernel_id, image_id: 'abc' },
      settings
    );
    expect(blob.type).toBe('image/svg+xml');

    const download = { download: true };
    expect(
      requestUrl(
        'image',
        { kernel_id, image_id: 'ab/c', query: download },
        settings
      )
    ).toBe(`${BASE}/kernels/k1/images/ab%2Fc?download=true`);
    expect(requestUrl('image', { kernel_id, image_id: 'abc' }, settings)).toBe(
      `${BASE}/kernels/k1/images/abc`
    );
  });

  it('PUTs a note as JSON and surfaces the 400 message', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 400, body: { message: "Unknown field: 'x'" } }
    ]);
    const error = await request(
      'annotate',
      { kernel_id: 'k1', name: 'df', body: { description: 'd' } },
      settings
    )
      .then(() => null)
      .catch(e => e);
    expect(requests[0].method).toBe('PUT');
    expect(JSON.parse(await requests[0].text())).toEqual({ description: 'd' });
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(error.message).toBe("Unknown field: 'x'");
  });

  it('sends a view too long for a URL as a JSON body, by POST', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: {} }
    ]);
    const value = Array.from({ length: 1000 }, (_, i) => `v${i}`.repeat(5));
    const filter: FilterNode = { column: 'b', op: 'in', value };
    const args = { kernel_id: 'k1', name: 'df' };
    await request('rows', { ...args, query: { limit: 5, filter } }, settings);
    await request('rows', { ...args, query: { limit: 5 } }, settings);
    expect(requests.map(r => r.method)).toEqual(['POST', 'GET']);
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k1/variables/df/rows`);
    expect(JSON.parse(await requests[0].text())).toEqual({ limit: 5, filter });
    expect(urlOf(requests[1]).length).toBeLessThan(MAX_URL_CHARS);
  });

  it('writes each route of the table, and only routes of the table', () => {
    const methods = new Set(Object.values(ROUTES).map(spec => spec.method));
    expect([...methods].sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
    for (const spec of Object.values(ROUTES)) {
      expect(spec.status).toBe(spec.reply === 'empty' ? 204 : 200);
    }
  });
});
