/**
 * The service is the frontend's one door to the server: it offers every route of the
 * REST contract (`docs/openapi.json`) as a typed method, on the followed kernel or the
 * one named, through the REST module's one `request()` (`restapi.ts`); a view too long
 * for a URL goes by the route's POST with a JSON body.
 */
import * as fs from 'fs';
import * as path from 'path';

import { ServerConnection } from '@jupyterlab/services';

import { KernelStateService } from '../service';
import { FilterNode, IKernelStateRequests } from '../tokens';
import { FakeKernel, followingService, IRecordingSettings } from './following';
import {
  IScriptedReply,
  makeDetail,
  makeSnapshot,
  sleep,
  urlOf
} from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

/**
 * One call of each request method, on `kernelId` when given.
 */
const CALLS: Record<
  keyof IKernelStateRequests,
  (service: KernelStateService, kernelId?: string) => Promise<unknown>
> = {
  kernels: service => service.kernels(),
  variables: (service, k) => service.variables({ limit: 10 }, k),
  listVariables: (service, k) => service.listVariables({ detail: 'names' }, k),
  inspect: (service, k) => service.inspect('x', ['a'], k),
  detail: (service, k) => service.detail('x', { reveal: true }, k),
  rows: (service, k) => service.rows('df', { limit: 5 }, k),
  profile: (service, k) => service.profile('df', { columns: '0:5' }, k),
  findings: (service, k) => service.findings('df', { max_findings: 5 }, k),
  count: (service, k) =>
    service.count('df', { filter: { column: 'x', op: 'notnull' } }, k),
  code: (service, k) => service.code('df', { syntax: 'pandas' }, k),
  fileRows: service => service.fileRows('data/a.csv', { limit: 5 }),
  fileProfile: service => service.fileProfile('data/a.csv', { columns: '0:5' }),
  fileFindings: service =>
    service.fileFindings('data/a.csv', { max_findings: 5 }),
  fileCode: service =>
    service.fileCode('data/a.csv', { syntax: 'polars', relative_to: 'data' }),
  compare: (service, k) =>
    service.compare('df', { with: 'old', key: 'id', status: ['added'] }, k),
  keep: (service, k) => service.keep('df', true, k),
  keptVersions: (service, k) => service.keptVersions('df', k),
  dropKept: (service, k) => service.dropKept('df', 12, k),
  timeline: (service, k) => service.timeline('x', 5, k),
  deleteVariable: (service, k) => service.deleteVariable('x', k),
  annotate: (service, k) => service.annotate('x', { description: 'd' }, k),
  clearAnnotation: (service, k) => service.clearAnnotation('x', k),
  images: (service, k) => service.images(1, 10, k),
  imageBlob: (service, k) => service.imageBlob('abc', k),
  history: (service, k) => service.history(3, k),
  prompt: (service, k) => service.prompt({ budget: 500 }, k)
};

/**
 * The calls on no kernel: the kernels list, and the table files of the server's root.
 */
const NO_KERNEL = new Set([
  'kernels',
  'fileRows',
  'fileProfile',
  'fileFindings',
  'fileCode'
]);

/**
 * A filter too long for a URL (1,000 values to keep).
 */
const LONG: FilterNode = {
  column: 'b',
  op: 'in',
  value: Array.from({ length: 1000 }, (_, i) => `value ${i}`)
};

/**
 * The calls whose view (or path) is too long for a URL: each goes by POST.
 */
const LARGE_CALLS: ((service: KernelStateService) => Promise<unknown>)[] = [
  service => service.detail('x', { path: Array(32).fill('k'.repeat(300)) }),
  service => service.rows('df', { filter: LONG }),
  service => service.profile('df', { filter: LONG }),
  service => service.findings('df', { filter: LONG }),
  service => service.code('df', { filter: LONG }),
  service => service.count('df', { filter: LONG }),
  service => service.compare('df', { with: 'old', filter: LONG }),
  service => service.fileRows('a.csv', { filter: LONG }),
  service => service.fileProfile('a.csv', { filter: LONG }),
  service => service.fileFindings('a.csv', { filter: LONG }),
  service => service.fileCode('a.csv', { filter: LONG })
];

/**
 * A reply fit for any request: 204 to a DELETE (but a kept version's, which answers
 * what is left), bytes to an image, JSON else.
 */
function settingsAnsweringAll(): IRecordingSettings {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request;
    requests.push(request);
    if (request.method === 'DELETE' && !/\/kept\//.test(request.url)) {
      return new Response(null, { status: 204 });
    }
    if (/\/images\/[^/?]+/.test(request.url)) {
      return new Response('png', {
        status: 200,
        headers: { 'Content-Type': 'image/png' }
      });
    }
    return new Response(JSON.stringify(makeSnapshot()), {
      status: 200,
      headers: { 'Content-Type': 'application/json' }
    });
  };
  const settings = ServerConnection.makeSettings({
    baseUrl: 'http://localhost:8888/base/',
    wsUrl: 'ws://localhost:8888/base/',
    fetch: fetch as typeof window.fetch
  });
  return { settings, requests };
}

/**
 * A real service following `kernel` (`k1` by default; null: none), its requests
 * recorded: scripted replies, or a fitting reply to anything.
 */
function serviceOn(
  replies: IScriptedReply[] | 'any',
  kernel: FakeKernel | null = new FakeKernel('k1')
) {
  return followingService<FakeKernel | null>(
    replies === 'any' ? settingsAnsweringAll() : replies,
    kernel
  );
}

/**
 * `VERB /api/kernel-state/...` of every route the server documents.
 */
function documentedRoutes(): { verb: string; path: string }[] {
  const openapi = JSON.parse(
    fs.readFileSync(
      path.join(__dirname, '..', '..', 'docs', 'openapi.json'),
      'utf-8'
    )
  ) as { paths: Record<string, Record<string, unknown>> };
  const verbs = new Set(['get', 'put', 'post', 'patch', 'delete']);
  return Object.entries(openapi.paths).flatMap(([route, item]) =>
    Object.keys(item)
      .filter(verb => verbs.has(verb))
      .map(verb => ({ verb: verb.toUpperCase(), path: route }))
  );
}

/**
 * The documented route a request hit, as `VERB /path/{template}`, or its own URL.
 */
function routeOf(
  request: Request,
  routes: { verb: string; path: string }[]
): string {
  const pathname = new URL(request.url).pathname.replace(/^\/base/, '');
  const hit = routes.find(
    route =>
      route.verb === request.method &&
      new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(
        pathname
      )
  );
  return hit
    ? `${hit.verb} ${hit.path}`
    : `${request.method} ${pathname} (undocumented)`;
}

describe('the service offers every route', () => {
  it('calls each documented route through one of its methods, and nothing else', async () => {
    const routes = documentedRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const { service, requests } = serviceOn('any');
    for (const call of [...Object.values(CALLS), ...LARGE_CALLS]) {
      await call(service);
    }
    await service.variablesSince(3);
    const hit = new Set(requests.map(request => routeOf(request, routes)));
    const documented = routes.map(route => `${route.verb} ${route.path}`);
    // A route the server gained without a method here (e.g. `variables/{name}/profile`)
    // fails: add it to `IKernelStateRequests`, `KernelStateRequests` and CALLS.
    expect([...hit].sort()).toEqual([...documented].sort());
    service.dispose();
  });

  it('acts on the followed kernel by default and on the one named', async () => {
    const { service, requests } = serviceOn('any');
    const perKernel = Object.entries(CALLS).filter(
      ([name]) => !NO_KERNEL.has(name)
    );
    for (const [name, call] of perKernel) {
      requests.length = 0;
      await call(service);
      await call(service, 'k 2');
      expect([name, requests.map(r => new URL(r.url).pathname)]).toEqual([
        name,
        [
          expect.stringMatching(/\/kernels\/k1\//),
          expect.stringMatching(/\/kernels\/k%202\//)
        ]
      ]);
    }
    service.dispose();
  });

  it('rejects every kernel request when no kernel is followed or named', async () => {
    const { service, requests } = serviceOn('any', null);
    expect(service.kernelId).toBeNull();
    for (const [name, call] of Object.entries(CALLS)) {
      if (NO_KERNEL.has(name)) {
        continue;
      }
      await expect(call(service)).rejects.toThrow('No kernel');
    }
    await expect(service.variablesSince(1)).rejects.toThrow('No kernel');
    expect(requests).toHaveLength(0);
    // the kernels list needs none
    await service.kernels();
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels`);
    service.dispose();
  });
});

describe('the service requests', () => {
  it('lists the kernels', async () => {
    const body = { kernels: [] };
    const { service, requests } = serviceOn([{ status: 200, body }]);
    expect(await service.kernels()).toEqual(body);
    expect(requests[0].method).toBe('GET');
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels`);
    service.dispose();
  });

  it('reads a page of its own, ETag-cached, leaving the model alone', async () => {
    const page = makeSnapshot({ generation: 4 });
    const { service, requests } = serviceOn([
      { status: 200, body: page, headers: { ETag: '"p4"' } },
      { status: 304, headers: { ETag: '"p4"' } }
    ]);
    const first = await service.variables({ sort: 'size', limit: 20 });
    const again = await service.variables({ sort: 'size', limit: 20 });
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables?limit=20&sort=size`
    );
    expect(requests[0].headers.get('If-None-Match')).toBeNull();
    expect(requests[1].headers.get('If-None-Match')).toBe('"p4"');
    expect(again).toBe(first);
    expect(again.generation).toBe(4);
    expect(service.snapshot).toBeNull();
    service.dispose();
  });

  it('reads a detail at a path, and reveals only when asked', async () => {
    const { service, requests } = serviceOn([
      { status: 200, body: makeDetail('x') }
    ]);
    await service.inspect('x', ['a']);
    await service.detail('x', { path: ['a'], max_chars: 500, reveal: true });
    await service.detail('x');
    expect(requests.map(r => new URL(urlOf(r)).search)).toEqual([
      `?path=${encodeURIComponent('["a"]')}`,
      `?path=${encodeURIComponent('["a"]')}&max_chars=500&reveal=true`,
      ''
    ]);
    service.dispose();
  });

  it('reads rows of a variable of another kernel, the filter as JSON', async () => {
    const { service, requests } = serviceOn([{ status: 200, body: {} }]);
    await service.rows(
      'a b',
      {
        offset: 200,
        limit: 100,
        columns: '0:20',
        sort: 'price:desc',
        filter: { column: 'region', op: 'eq', value: 'north' }
      },
      'k2'
    );
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe(
      '/base/api/kernel-state/kernels/k2/variables/a%20b/rows'
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      offset: '200',
      limit: '100',
      columns: '0:20',
      sort: 'price:desc',
      filter: '{"column":"region","op":"eq","value":"north"}'
    });
    service.dispose();
  });

  it('counts with a POST (it runs code), the filter as JSON', async () => {
    const body = {
      name: 'rel',
      type: 'DuckDBPyRelation',
      rows: 42,
      filtered: true,
      cost_ms: 7,
      engine: null
    };
    const { service, requests } = serviceOn([
      { status: 200, body },
      {
        status: 422,
        body: { message: 'Counting was cancelled in DuckDB after 10,000 ms' }
      }
    ]);
    const filter = { column: 'x', op: 'gt' as const, value: 3 };
    expect(await service.count('rel', { filter })).toEqual(body);
    expect(requests[0].method).toBe('POST');
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe(
      '/base/api/kernel-state/kernels/k1/variables/rel/count'
    );
    expect(url.searchParams.get('filter')).toBe(JSON.stringify(filter));
    const error = await service.count('rel').catch(e => e);
    expect(new URL(urlOf(requests[1])).search).toBe('');
    expect(error.response.status).toBe(422);
    expect(error.message).toBe(
      'Counting was cancelled in DuckDB after 10,000 ms'
    );
    service.dispose();
  });

  it('reads a timeline and the history with their limits', async () => {
    const { service, requests } = serviceOn([{ status: 200, body: {} }]);
    await service.timeline('x', 5);
    await service.history(3);
    await service.history();
    expect(requests.map(urlOf)).toEqual([
      `${BASE}/kernels/k1/variables/x/timeline?limit=5`,
      `${BASE}/kernels/k1/history?limit=3`,
      `${BASE}/kernels/k1/history`
    ]);
    service.dispose();
  });

  it('deletes a variable (204), and rejects with the server message on 409', async () => {
    const { service, requests } = serviceOn([
      { status: 204 },
      { status: 409, body: { message: 'Kernel busy: nothing deleted' } }
    ]);
    await service.deleteVariable('x');
    expect(requests[0].method).toBe('DELETE');
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k1/variables/x`);
    const error = await service.deleteVariable('x').catch(e => e);
    expect(error).toBeInstanceOf(ServerConnection.ResponseError);
    expect(error.response.status).toBe(409);
    expect(error.message).toBe('Kernel busy: nothing deleted');
    service.dispose();
  });

  it('refreshes only after a note on the followed kernel', async () => {
    const note = {
      name: 'x',
      description: 'd',
      constraints: null,
      hidden_from_prompt: false,
      updated_at: '2026-01-01T00:00:00+00:00'
    };
    const { service, requests } = serviceOn([
      { status: 200, body: makeSnapshot(), headers: { ETag: '"1"' } },
      { status: 200, body: note },
      { status: 204 },
      { status: 200, body: makeSnapshot(), headers: { ETag: '"1"' } }
    ]);
    const changed: string[] = [];
    service.annotationChanged.connect((_, name) => changed.push(name));
    service.setVisible(true);
    await sleep(20);
    const before = requests.length;
    await service.annotate('x', { description: 'd' }, 'k2');
    await service.clearAnnotation('x', 'k2');
    await sleep(20);
    expect(requests.slice(before).map(r => `${r.method} ${urlOf(r)}`)).toEqual([
      `PUT ${BASE}/kernels/k2/variables/x/annotation`,
      `DELETE ${BASE}/kernels/k2/variables/x/annotation`
    ]);
    expect(changed).toEqual([]);
    // on the followed kernel: the page is asked again (it carries the notes)
    await service.annotate('x', { description: 'd' });
    await sleep(20);
    expect(changed).toEqual(['x']);
    const last = urlOf(requests[requests.length - 1]);
    expect(last).toMatch(/\/kernels\/k1\/variables\?limit=\d+&sort=name$/);
    service.dispose();
  });
});
