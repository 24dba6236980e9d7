/**
 * Test helpers: payload factories and a scripted fetch for ServerConnection settings.
 */
import { ServerConnection } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';

import { KernelStateModel } from '../models/kernel';
import { DEFAULT_OPTIONS } from '../defaults';
import {
  IExecutedArgs,
  IImage,
  IKernelStateService,
  IPromptResult,
  ISnapshot,
  ITimeline,
  IVariable,
  IVariableDetail
} from '../tokens';

export function makeVariable(
  name: string,
  extra: Partial<IVariable> = {}
): IVariable {
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
    likely_secret: false,
    secret_reason: null,
    memory: null,
    masked: false,
    ...extra
  };
}

/**
 * A variable's detail: the variable's fields and an empty inspection.
 */
export function makeDetail(
  name: string,
  extra: Partial<IVariableDetail> = {}
): IVariableDetail {
  return {
    ...makeVariable(name),
    repr: '1',
    repr_truncated: false,
    attributes: [],
    attributes_total: 0,
    children: [],
    children_total: 0,
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
    taken_at: '2026-01-01T00:00:00+00:00',
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

export function makeImage(seq: number, extra: Partial<IImage> = {}): IImage {
  const id = seq.toString(16).padStart(16, '0');
  return {
    id,
    seq,
    mime: 'image/png',
    bytes: 100,
    width: 640,
    height: 480,
    sha256: id.repeat(4),
    execution_count: seq,
    msg_id: `m${seq}`,
    display_id: null,
    created_at: '2026-01-01T00:00:00+00:00',
    epoch: 0,
    generation: seq,
    ...extra
  };
}

export function makePrompt(extra: Partial<IPromptResult> = {}): IPromptResult {
  const text = extra.text ?? 'Kernel state — python, execution 1.';
  return {
    text,
    chars: text.length,
    tokens_estimate: Math.ceil(text.length / 4),
    variables_included: 1,
    variables_omitted: 0,
    variables_hidden: 0,
    generation: 1,
    ...extra
  };
}

/**
 * A name's timeline with no change recorded yet.
 */
export function makeTimeline(
  name: string,
  extra: Partial<ITimeline> = {}
): ITimeline {
  return {
    name,
    total: 0,
    limit: 20,
    complete_after: null,
    exists: true,
    entries: [],
    ...extra
  };
}

/**
 * A service double: a real model and signals, jest mocks for every request.
 */
export function fakeService(kernelId: string | null = 'k1') {
  const model = new KernelStateModel();
  const owner = {} as IKernelStateService;
  const changed = new Signal<IKernelStateService, void>(owner);
  model.changed.connect(() => changed.emit());
  const service = {
    changed,
    executed: new Signal<IKernelStateService, IExecutedArgs>(owner),
    annotationChanged: new Signal<IKernelStateService, string>(owner),
    model,
    get snapshot() {
      return model.snapshot;
    },
    kernelId,
    options: { ...DEFAULT_OPTIONS },
    visible: false,
    isDisposed: false,
    setVisible: jest.fn(),
    setOptions: jest.fn(),
    refresh: jest.fn(async () => undefined),
    variablesSince: jest.fn(async () => makeSnapshot({ delta: true })),
    loadMore: jest.fn(async () => undefined),
    kernels: jest.fn(),
    variables: jest.fn(),
    listVariables: jest.fn(),
    inspect: jest.fn(),
    detail: jest.fn(),
    rows: jest.fn(),
    profile: jest.fn(),
    findings: jest.fn(),
    count: jest.fn(),
    code: jest.fn(),
    fileRows: jest.fn(),
    fileProfile: jest.fn(),
    fileFindings: jest.fn(),
    fileCode: jest.fn(),
    compare: jest.fn(),
    keep: jest.fn(),
    keptVersions: jest.fn(),
    dropKept: jest.fn(),
    timeline: jest.fn(async (name: string) => makeTimeline(name)),
    deleteVariable: jest.fn(async (_name: string) => undefined),
    images: jest.fn(),
    imageBlob: jest.fn(
      async (id: string) => new Blob([id], { type: 'image/png' })
    ),
    history: jest.fn(),
    prompt: jest.fn(async () => makePrompt()),
    annotate: jest.fn(),
    clearAnnotation: jest.fn(),
    dispose: jest.fn()
  };
  return service;
}

export const sleep = (ms: number) =>
  new Promise(resolve => setTimeout(resolve, ms));

/**
 * Waits (polling every 10 ms, at most `ms`) until `done()` holds: for a render that a
 * loaded machine may take longer to finish than a fixed sleep allows.
 */
export async function until(done: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) {
    await sleep(10);
  }
}
