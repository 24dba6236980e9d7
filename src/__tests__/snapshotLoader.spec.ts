import { DEFAULT_OPTIONS } from '../defaults';
import { KernelStateModel } from '../models/kernel';
import { SnapshotLoader } from '../snapshotLoader';
import {
  IScriptedReply,
  makeSnapshot,
  makeVariable,
  scriptedSettings,
  urlOf
} from './helpers';

const page = (names: string[], extra = {}) =>
  makeSnapshot({ variables: names.map(name => makeVariable(name)), ...extra });

const delta = (names: string[], extra = {}) =>
  makeSnapshot({
    generation: 2,
    variables: names.map(name => makeVariable(name, { change: 'new' })),
    delta: true,
    ...extra
  });

function setup(replies: IScriptedReply[]) {
  const { settings, requests } = scriptedSettings(replies);
  const model = new KernelStateModel();
  model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
  let current = true;
  const loader = new SnapshotLoader({
    model,
    serverSettings: settings,
    options: () => DEFAULT_OPTIONS,
    isCurrent: () => current
  });
  const drop = () => (current = false);
  return { loader, model, requests, drop };
}

/** Load and show one snapshot; returns what was loaded. */
async function loadAndShow(loader: SnapshotLoader, deltaAllowed = true) {
  const loaded = await loader.load('k1', 1, deltaAllowed);
  loader.show(loaded!);
  return loaded!;
}

describe('SnapshotLoader', () => {
  it('asks a page first, then a delta it merges', async () => {
    const { loader, model, requests } = setup([
      { status: 200, body: page(['a']) },
      { status: 200, body: delta(['b'], { total: 2 }) }
    ]);
    await loadAndShow(loader);
    await loadAndShow(loader);
    expect(urlOf(requests[0])).not.toContain('since');
    expect(urlOf(requests[1])).toContain('since=1&delta=true');
    expect(model.snapshot?.variables.map(v => v.name)).toEqual(['a', 'b']);
    expect(model.snapshot?.delta).toBe(false);
  });

  it('asks the page when a delta is not allowed or a full page is asked', async () => {
    const { loader, requests } = setup([{ status: 200, body: page(['a']) }]);
    await loadAndShow(loader);
    await loadAndShow(loader, false);
    loader.askFullPage();
    await loadAndShow(loader);
    await loadAndShow(loader);
    expect(requests.map(r => urlOf(r).includes('delta'))).toEqual([
      false,
      false,
      false,
      true
    ]);
  });

  it('holds only what the model shows', async () => {
    const { loader, model, requests } = setup([
      { status: 200, body: page(['a'], { kernel_id: 'k2' }) },
      { status: 200, body: page(['a']) }
    ]);
    await loadAndShow(loader); // another kernel's answer: the model refuses it
    expect(model.snapshot).toBeNull();
    await loadAndShow(loader);
    expect(urlOf(requests[1])).not.toContain('since');
  });

  it('gives null, without a page request, when a failed merge no longer matters', async () => {
    const { loader, requests, drop } = setup([
      { status: 200, body: page(['a']) },
      { status: 200, body: delta(['é'], { total: 2 }) }
    ]);
    await loadAndShow(loader);
    drop();
    expect(await loader.load('k1', 2, true)).toBeNull();
    expect(requests).toHaveLength(2);
  });

  it('gives the server delta as it is through since()', async () => {
    const reply = delta(['b']);
    const { loader, requests } = setup([{ status: 200, body: reply }]);
    expect(await loader.since('k1', 1)).toEqual(reply);
    expect(urlOf(requests[0])).toContain('since=1&delta=true');
  });
});
