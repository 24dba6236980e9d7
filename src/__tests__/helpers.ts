/**
 * Test helpers: payload factories and a scripted fetch for ServerConnection settings.
 */
import { ServerConnection } from '@jupyterlab/services';

import { ISnapshot, IVariable } from '../tokens';

export function makeVariable(name: string, extra: Partial<IVariable> = {}): IVariable {
  return {
    name,
    type: 'int',
    qualname: 'builtins.int',
    kind: 'number',
    size: null,
    shape: null,
    dtype: null,
    nbytes: null,
    preview: '1',
    truncated: false,
    error: null,
    change: 'unchanged',
    changed_at: 1,
    changes: [],
    description: null,
    constraints: null,
    hidden_from_prompt: false,
    ...extra
  };
}

export function makeSnapshot(extra: Partial<ISnapshot> = {}): ISnapshot {
  const variables = extra.variables ?? [makeVariable('x')];
  return {
    kernel_id: 'k1',
    language: 'python',
    epoch: 1,
    generation: 1,
    execution_count: 1,
    stale: false,
    kernel_busy: false,
    taken_at: 0,
    duration_ms: 1,
    total: variables.length,
    offset: 0,
    limit: 500,
    variables,
    removed: [],
    ...extra
  };
}

export interface IScriptedReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Settings whose fetch records each request and answers from a script (the last reply
 * repeats).
 */
export function scriptedSettings(replies: IScriptedReply[]): {
  settings: ServerConnection.ISettings;
  requests: Request[];
} {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request;
    requests.push(request);
    const reply = replies.length > 1 ? replies.shift()! : replies[0];
    const body =
      reply.status === 204 || reply.status === 304 || reply.body === undefined
        ? null
        : JSON.stringify(reply.body);
    return new Response(body, {
      status: reply.status,
      headers: { 'Content-Type': 'application/json', ...reply.headers }
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
 * A request's URL without the cache buster `makeRequest` appends for `no-store`.
 */
export function urlOf(request: Request): string {
  return request.url.replace(/[?&]\d{10,}$/, '');
}
