/**
 * REST client of `{baseUrl}api/kernel-state/`: one function per endpoint, settings
 * passed in, exact status checks. The only module that makes HTTP requests: everything
 * else reaches the server through `IKernelStateService` (`requests.ts`).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import {
  IAnnotation,
  IAnnotationUpdate,
  IBriefQuery,
  IBriefSnapshot,
  ICodeQuery,
  ICountQuery,
  ICountResult,
  IDetailQuery,
  IHistory,
  IImageList,
  IImageQuery,
  IKernelList,
  IProfileQuery,
  IPromptQuery,
  IPromptResult,
  IRowsQuery,
  IRowsWindow,
  ISnapshot,
  ISnapshotQuery,
  ITableProfile,
  ITimeline,
  IVariableDetail,
  IViewCode,
  withVariableDefaults
} from './tokens';

/**
 * The REST namespace of the server extension.
 */
export const API_NAMESPACE = 'api/kernel-state';

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
 * The URL of a route under the namespace; every path segment is URI-encoded.
 */
export function apiUrl(
  settings: ServerConnection.ISettings,
  segments: string[],
  query: Record<string, string | undefined> = {}
): string {
  const url = URLExt.join(
    settings.baseUrl,
    API_NAMESPACE,
    ...segments.map(encodeURIComponent)
  );
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) {
      params.append(key, value);
    }
  }
  const search = params.toString();
  return search ? `${url}?${search}` : url;
}

/**
 * The query string parameters of a snapshot request, in a stable order.
 */
export function snapshotParams(
  query: ISnapshotQuery
): Record<string, string | undefined> {
  return {
    include: query.include?.length
      ? [...query.include].sort().join(',')
      : undefined,
    limit: query.limit === undefined ? undefined : String(query.limit),
    offset: query.offset === undefined ? undefined : String(query.offset),
    sort: query.sort,
    since: query.since === undefined ? undefined : String(query.since),
    filter: query.filter ? query.filter : undefined,
    changed_in:
      query.changed_in === undefined ? undefined : String(query.changed_in),
    delta: query.delta ? 'true' : undefined
  };
}

/**
 * `GET kernels`.
 */
export async function listKernels(
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IKernelList> {
  const response = await request(settings, ['kernels']);
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IKernelList;
}

/**
 * `GET kernels/{kernel_id}/variables`, with `If-None-Match` when the cache holds the
 * same query: a 304 gives back the cached snapshot.
 */
export async function getSnapshot(
  kernelId: string,
  query: ISnapshotQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings(),
  cache?: SnapshotCache
): Promise<ISnapshot> {
  const params = snapshotParams(query);
  const url = apiUrl(settings, ['kernels', kernelId, 'variables'], params);
  const key = `${kernelId}?${url.split('?')[1] ?? ''}`;
  const cached = cache?.get(key);
  const headers: Record<string, string> = {};
  if (cached) {
    headers['If-None-Match'] = cached.etag;
  }
  const response = await ServerConnection.makeRequest(
    url,
    { method: 'GET', headers },
    settings
  );
  if (response.status === 304 && cached) {
    return cached.snapshot;
  }
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  const snapshot = (await response.json()) as ISnapshot;
  // The list travels lean (fields at their defaults left out): made whole once here.
  snapshot.variables = snapshot.variables.map(withVariableDefaults);
  const etag = response.headers.get('ETag');
  if (cache && etag) {
    cache.set(key, { etag, snapshot });
  }
  return snapshot;
}

/**
 * `GET kernels/{kernel_id}/variables?detail=names|schema`: brief entries (no ETag cache,
 * no deltas), for completions and tools that want less than the sidebar's page.
 */
export async function getVariableBriefs(
  kernelId: string,
  query: IBriefQuery,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IBriefSnapshot> {
  const response = await request(settings, ['kernels', kernelId, 'variables'], {
    ...snapshotParams(query),
    detail: query.detail
  });
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IBriefSnapshot;
}

/**
 * `GET kernels/{kernel_id}/variables/{name}`.
 */
export async function getVariable(
  kernelId: string,
  name: string,
  query: IDetailQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IVariableDetail> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name],
    {
      path: query.path?.length ? JSON.stringify(query.path) : undefined,
      max_chars:
        query.max_chars === undefined ? undefined : String(query.max_chars),
      reveal: query.reveal ? 'true' : undefined
    }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IVariableDetail;
}

/**
 * `DELETE kernels/{kernel_id}/variables/{name}`: unbind the name in the kernel (the
 * exact namespace key). Rejects with the server's 404 (no such variable) or 409
 * (kernel busy).
 */
export async function deleteVariable(
  kernelId: string,
  name: string,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<void> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name],
    {},
    { method: 'DELETE' }
  );
  if (response.status !== 204) {
    throw await ServerConnection.ResponseError.create(response);
  }
}

/**
 * `GET kernels/{kernel_id}/variables/{name}/rows`: a window of a table or array.
 * Errors reject with `ResponseError` (409 lazy object, 422 the object raised, 503
 * kernel busy with `Retry-After`: see `retryAfterSeconds`).
 */
export async function getRows(
  kernelId: string,
  name: string,
  query: IRowsQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IRowsWindow> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'rows'],
    {
      offset: query.offset === undefined ? undefined : String(query.offset),
      limit: query.limit === undefined ? undefined : String(query.limit),
      columns: query.columns,
      sort: query.sort,
      filter: query.filter ? JSON.stringify(query.filter) : undefined
    }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IRowsWindow;
}

/**
 * `GET kernels/{kernel_id}/variables/{name}/profile`: statistics of the columns asked
 * (of the rows a filter keeps when given). Errors reject with `ResponseError` (400 a
 * bad filter or not a table, 409 lazy value, 503 kernel busy with `Retry-After`).
 */
export async function getProfile(
  kernelId: string,
  name: string,
  query: IProfileQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<ITableProfile> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'profile'],
    {
      columns: query.columns,
      filter: query.filter ? JSON.stringify(query.filter) : undefined
    }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as ITableProfile;
}

/**
 * `POST kernels/{kernel_id}/variables/{name}/count`: count the rows (those a filter
 * keeps when given) in the table's engine, under a longer guard than a window's.
 * Runs code in the kernel, hence a POST (XSRF-checked). Errors reject with
 * `ResponseError` (400 a bad filter, 422 the engine raised or the count was
 * cancelled in the engine past its guard, 503 kernel busy with `Retry-After`).
 */
export async function postCount(
  kernelId: string,
  name: string,
  query: ICountQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<ICountResult> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'count'],
    { filter: query.filter ? JSON.stringify(query.filter) : undefined },
    { method: 'POST' }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as ICountResult;
}

/**
 * `GET kernels/{kernel_id}/variables/{name}/code`: the code of a view (filter, sort,
 * columns) in a syntax (400 for a syntax that does not fit the value).
 */
export async function getCode(
  kernelId: string,
  name: string,
  query: ICodeQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IViewCode> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'code'],
    {
      filter: query.filter ? JSON.stringify(query.filter) : undefined,
      sort: query.sort,
      columns: query.columns,
      syntax: query.syntax
    }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IViewCode;
}

/**
 * `GET kernels/{kernel_id}/variables/{name}/timeline`: the last `limit` changes of a
 * name, oldest first.
 */
export async function getTimeline(
  kernelId: string,
  name: string,
  limit?: number,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<ITimeline> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'timeline'],
    { limit: limit === undefined ? undefined : String(limit) }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as ITimeline;
}

/**
 * `PUT kernels/{kernel_id}/variables/{name}/annotation`.
 */
export async function putAnnotation(
  kernelId: string,
  name: string,
  annotation: IAnnotationUpdate,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IAnnotation> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'annotation'],
    {},
    { method: 'PUT', body: JSON.stringify(annotation) }
  );
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IAnnotation;
}

/**
 * `DELETE kernels/{kernel_id}/variables/{name}/annotation`.
 */
export async function deleteAnnotation(
  kernelId: string,
  name: string,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<void> {
  const response = await request(
    settings,
    ['kernels', kernelId, 'variables', name, 'annotation'],
    {},
    { method: 'DELETE' }
  );
  if (response.status !== 204) {
    throw await ServerConnection.ResponseError.create(response);
  }
}

/**
 * `GET kernels/{kernel_id}/images`.
 */
export async function listImages(
  kernelId: string,
  query: IImageQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IImageList> {
  const response = await request(settings, ['kernels', kernelId, 'images'], {
    since: query.since === undefined ? undefined : String(query.since),
    limit: query.limit === undefined ? undefined : String(query.limit)
  });
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IImageList;
}

/**
 * `GET kernels/{kernel_id}/images/{image_id}`: the image bytes.
 */
export async function getImage(
  kernelId: string,
  imageId: string,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<Blob> {
  const response = await request(settings, [
    'kernels',
    kernelId,
    'images',
    imageId
  ]);
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return response.blob();
}

/**
 * The URL of an image's bytes; `download` asks for `Content-Disposition: attachment`.
 * Prefer `getImage` (a blob carries the request's auth in token-only deployments).
 */
export function imageUrl(
  kernelId: string,
  imageId: string,
  download = false,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): string {
  return apiUrl(settings, ['kernels', kernelId, 'images', imageId], {
    download: download ? '1' : undefined
  });
}

/**
 * `GET kernels/{kernel_id}/history`.
 */
export async function getHistory(
  kernelId: string,
  limit?: number,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IHistory> {
  const response = await request(settings, ['kernels', kernelId, 'history'], {
    limit: limit === undefined ? undefined : String(limit)
  });
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IHistory;
}

/**
 * `GET kernels/{kernel_id}/prompt?format=json`.
 */
export async function getPrompt(
  kernelId: string,
  query: IPromptQuery = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<IPromptResult> {
  const response = await request(settings, ['kernels', kernelId, 'prompt'], {
    budget: query.budget === undefined ? undefined : String(query.budget),
    since: query.since === undefined ? undefined : String(query.since),
    history: query.history === undefined ? undefined : String(query.history),
    images: query.images === undefined ? undefined : String(query.images),
    format: 'json'
  });
  if (response.status !== 200) {
    throw await ServerConnection.ResponseError.create(response);
  }
  return (await response.json()) as IPromptResult;
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

function request(
  settings: ServerConnection.ISettings,
  segments: string[],
  query: Record<string, string | undefined> = {},
  init: RequestInit = { method: 'GET' }
): Promise<Response> {
  return ServerConnection.makeRequest(
    apiUrl(settings, segments, query),
    init,
    settings
  );
}
