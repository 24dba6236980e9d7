/**
 * REST client of `{baseUrl}api/kernel-state/`: one typed `request()` over the route
 * map generated from the server's route table (`generated/rest.ts`), settings passed
 * in, exact status checks, one `ServerConnection.makeRequest`. The only module that
 * makes HTTP requests: everything else reaches the server through
 * `IKernelStateService` (`requests.ts`).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import {
  IRouteMap,
  IRouteSpec,
  ISnapshot,
  QueryEncoding,
  ROUTES,
  withVariableDefaults
} from './tokens';

/**
 * The REST namespace of the server extension.
 */
export const API_NAMESPACE = 'api/kernel-state';

/**
 * A URL longer than this sends the query of a route that takes a large view as a JSON
 * body (`POST`) instead: servers and proxies cut long request lines (jupyter_server's at
 * 64 KiB, where a filter may be 200,000 characters).
 */
export const MAX_URL_CHARS = 8000;

/**
 * The name of a route of the REST API.
 */
export type RouteName = keyof IRouteMap;

/**
 * What a request to route `K` sends: its path segments, its query and its body.
 */
export type RouteArgs<K extends RouteName> = IRouteMap[K]['path'] & {
  query?: IRouteMap[K]['query'];
  body?: IRouteMap[K]['body'];
};

/**
 * The last ETag and body per (kernel, query), so an unchanged snapshot costs a 304.
 */
export class SnapshotCache {
  constructor(private readonly _maxEntries = 32) {}

  get(key: string): SnapshotCache.IEntry | undefined {
    return this._entries.get(key);
  }

  set(key: string, entry: SnapshotCache.IEntry): void {
    this._entries.delete(key);
    this._entries.set(key, entry);
    while (this._entries.size > this._maxEntries) {
      const oldest = this._entries.keys().next().value as string;
      this._entries.delete(oldest);
    }
  }

  /**
   * Forget every entry of a kernel (after a restart or shutdown).
   */
  forgetKernel(kernelId: string): void {
    for (const key of [...this._entries.keys()]) {
      if (key.startsWith(`${kernelId}?`)) {
        this._entries.delete(key);
      }
    }
  }

  get size(): number {
    return this._entries.size;
  }

  private _entries = new Map<string, SnapshotCache.IEntry>();
}

export namespace SnapshotCache {
  export interface IEntry {
    etag: string;
    snapshot: ISnapshot;
  }
}

/**
 * Send `args` to route `K` and read its reply as the route map says.
 *
 * Rejects with `ServerConnection.ResponseError` (the server's message and status) for
 * any status but the route's own. A snapshot route given a `cache` sends
 * `If-None-Match` for the same query, and a 304 gives the cached snapshot back; its
 * lean entries are made whole (`withVariableDefaults`) at the full detail level.
 */
export async function request<K extends RouteName>(
  route: K,
  args: RouteArgs<K>,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings(),
  cache?: SnapshotCache
): Promise<IRouteMap[K]['reply']> {
  const spec: IRouteSpec = ROUTES[route];
  const segments = args as unknown as Record<string, string>;
  const query = (args.query ?? {}) as Record<string, unknown>;
  let url = routeUrl(settings, spec, segments, queryOf(spec, query));
  const init: RequestInit = { method: spec.method, headers: {} };
  if (args.body !== undefined) {
    init.body = JSON.stringify(args.body);
  } else if (spec.large && url.length > MAX_URL_CHARS) {
    url = routeUrl(settings, spec, segments, {});
    init.method = 'POST';
    init.body = JSON.stringify(query);
  }
  const key = `${segments.kernel_id}?${url.split('?')[1] ?? ''}`;
  const cached = spec.reply === 'snapshot' ? cache?.get(key) : undefined;
  if (cached) {
    init.headers = { 'If-None-Match': cached.etag };
  }
  const response = await ServerConnection.makeRequest(url, init, settings);
  if (response.status === 304 && cached) {
    return cached.snapshot as IRouteMap[K]['reply'];
  }
  if (response.status !== spec.status) {
    throw await ServerConnection.ResponseError.create(response);
  }
  if (spec.reply === 'empty') {
    return undefined as IRouteMap[K]['reply'];
  }
  if (spec.reply === 'blob') {
    return (await response.blob()) as IRouteMap[K]['reply'];
  }
  const body = await response.json();
  if (spec.reply === 'snapshot') {
    readSnapshot(body as ISnapshot, query.detail, response, key, cache);
  }
  return body as IRouteMap[K]['reply'];
}

/**
 * The URL of route `K` with `args`, as `request` would send it by GET (for an `<a>`:
 * prefer `request`, whose blob carries the request's auth in token-only deployments).
 */
export function requestUrl<K extends RouteName>(
  route: K,
  args: RouteArgs<K>,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): string {
  const spec: IRouteSpec = ROUTES[route];
  const query = (args.query ?? {}) as Record<string, unknown>;
  return routeUrl(
    settings,
    spec,
    args as unknown as Record<string, string>,
    queryOf(spec, query)
  );
}

/**
 * The seconds a 503 asks us to wait (`Retry-After`), or null.
 */
export function retryAfterSeconds(error: unknown): number | null {
  if (!(error instanceof ServerConnection.ResponseError)) {
    return null;
  }
  if (error.response.status !== 503) {
    return null;
  }
  const header = error.response.headers.get('Retry-After');
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 1;
}

/**
 * A snapshot's lean list made whole (at the full detail level), and its ETag cached.
 */
function readSnapshot(
  snapshot: ISnapshot,
  detail: unknown,
  response: Response,
  key: string,
  cache?: SnapshotCache
): void {
  if (detail === undefined || detail === 'full') {
    snapshot.variables = snapshot.variables.map(withVariableDefaults);
  }
  const etag = response.headers.get('ETag');
  if (cache && etag) {
    cache.set(key, { etag, snapshot });
  }
}

/**
 * The URL of a route's path (each segment URI-encoded) with a query.
 */
function routeUrl(
  settings: ServerConnection.ISettings,
  spec: IRouteSpec,
  segments: Record<string, string>,
  query: Record<string, string>
): string {
  const path = spec.path
    .split('/')
    .map(part =>
      part.startsWith('{')
        ? encodeURIComponent(segments[part.slice(1, -1)])
        : part
    );
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, ...path);
  const search = new URLSearchParams(query).toString();
  return search ? `${url}?${search}` : url;
}

/**
 * A route's query values as text, in the route's order; values left out as the route
 * says (absent, empty, a flag that is false).
 */
function queryOf(
  spec: IRouteSpec,
  query: Record<string, unknown>
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, encoding] of Object.entries(spec.query)) {
    const text = encode(encoding, query[name]);
    if (text !== undefined) {
      out[name] = text;
    }
  }
  return out;
}

function encode(encoding: QueryEncoding, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  switch (encoding) {
    case 'list':
      return (value as string[]).length
        ? [...(value as string[])].sort().join(',')
        : undefined;
    case 'json':
      return Array.isArray(value) && value.length === 0
        ? undefined
        : JSON.stringify(value);
    case 'flag':
      return value ? 'true' : undefined;
    default:
      return String(value);
  }
}
