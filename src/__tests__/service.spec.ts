import {
  asSessionWidget,
  FakeKernel,
  followingService as setup,
  makeWidget
} from './following';
import { makeSnapshot, makeVariable, sleep, urlOf } from './helpers';

describe('KernelStateService', () => {
  it('follows the tracked widget but makes no request while hidden', async () => {
    const { service, requests, kernel } = setup([
      { status: 200, body: makeSnapshot() }
    ]);
    expect(service.kernelId).toBe('k1');
    expect(service.model.status).toBe('loading');
    kernel.run('m1');
    await sleep(40);
    expect(requests).toHaveLength(0);
    service.dispose();
  });

  it('fetches when shown and after each user execution', async () => {
    const { service, requests, kernel } = setup([
      { status: 200, body: makeSnapshot(), headers: { ETag: '"1"' } },
      {
        status: 200,
        body: makeSnapshot({ generation: 2 }),
        headers: { ETag: '"2"' }
      }
    ]);
    let changes = 0;
    service.changed.connect(() => changes++);
    service.setVisible(true);
    await sleep(20);
    expect(requests).toHaveLength(1);
    expect(service.snapshot?.generation).toBe(1);
    kernel.run('m1');
    await sleep(20);
    expect(requests).toHaveLength(2);
    expect(urlOf(requests[1])).toContain('since=1&delta=true');
    expect(service.snapshot?.generation).toBe(2);
    expect(changes).toBeGreaterThan(0);
    service.dispose();
  });

  it('ignores the silent probe runs of the server', async () => {
    const { service, requests, kernel } = setup([
      { status: 200, body: makeSnapshot() }
    ]);
    service.setVisible(true);
    await sleep(20);
    kernel.run('probe', true);
    await sleep(20);
    expect(requests).toHaveLength(1);
    service.dispose();
  });

  it('stops fetching when hidden and refreshes on show', async () => {
    const { service, requests, kernel } = setup([
      { status: 200, body: makeSnapshot() }
    ]);
    service.setVisible(true);
    await sleep(20);
    service.setVisible(false);
    kernel.run('m1');
    kernel.run('m2');
    await sleep(40);
    expect(requests).toHaveLength(1);
    service.setVisible(true);
    await sleep(20);
    expect(requests).toHaveLength(2);
    service.dispose();
  });

  it('asks for the stale state while a long execution runs', async () => {
    const { service, requests, kernel } = setup([
      { status: 200, body: makeSnapshot() },
      { status: 200, body: makeSnapshot({ stale: true, kernel_busy: true }) },
      { status: 200, body: makeSnapshot({ generation: 2 }) }
    ]);
    service.setVisible(true);
    await sleep(20);
    kernel.status = 'busy';
    kernel.emit('execute_input', 'long', {});
    kernel.emit('status', 'long', { execution_state: 'busy' });
    await sleep(60);
    expect(requests).toHaveLength(2);
    expect(service.model.isBusy).toBe(true);
    kernel.status = 'idle';
    kernel.emit('status', 'long', { execution_state: 'idle' });
    await sleep(30);
    expect(requests).toHaveLength(3);
    expect(service.model.isBusy).toBe(false);
    service.dispose();
  });

  it('retries a 503 after Retry-After, bounded', async () => {
    const { service, requests } = setup([
      {
        status: 503,
        body: { message: 'busy' },
        headers: { 'Retry-After': '0' }
      },
      { status: 200, body: makeSnapshot() }
    ]);
    service.setVisible(true);
    await sleep(20);
    expect(requests).toHaveLength(1);
    expect(service.model.status).toBe('loading');
    await sleep(400);
    expect(requests).toHaveLength(2);
    expect(service.model.status).toBe('ready');
    service.dispose();
  });

  it('reports a 501 as an unsupported kernel', async () => {
    const { service } = setup([
      { status: 501, body: { message: 'Only Python kernels are supported' } }
    ]);
    service.setVisible(true);
    await sleep(20);
    expect(service.model.status).toBe('unsupported');
    expect(service.model.error).toBe('Only Python kernels are supported');
    service.dispose();
  });

  it('reports other errors with the server message', async () => {
    const { service } = setup([
      { status: 404, body: { message: 'Kernel does not exist: k1' } }
    ]);
    service.setVisible(true);
    await sleep(20);
    expect(service.model.status).toBe('error');
    expect(service.model.error).toBe('Kernel does not exist: k1');
    service.dispose();
  });

  it('clears the state on restart and refreshes when the kernel is back', async () => {
    const { service, requests, widget } = setup([
      { status: 200, body: makeSnapshot() },
      { status: 200, body: makeSnapshot({ epoch: 2 }) }
    ]);
    service.setVisible(true);
    await sleep(20);
    widget.sessionContext.statusChanged.emit('restarting');
    expect(service.snapshot).toBeNull();
    expect(service.model.status).toBe('loading');
    widget.sessionContext.statusChanged.emit('starting');
    widget.sessionContext.statusChanged.emit('idle');
    await sleep(20);
    expect(requests).toHaveLength(2);
    expect(service.snapshot?.epoch).toBe(2);
    service.dispose();
  });

  it('does not show the old epoch after a restart', async () => {
    const { service, requests, widget } = setup([
      { status: 200, body: makeSnapshot({ epoch: 1 }) },
      { status: 200, body: makeSnapshot({ epoch: 1 }) },
      { status: 200, body: makeSnapshot({ epoch: 2, variables: [] }) }
    ]);
    service.setVisible(true);
    await sleep(20);
    widget.sessionContext.statusChanged.emit('restarting');
    widget.sessionContext.statusChanged.emit('idle');
    await sleep(30);
    expect(requests).toHaveLength(2);
    expect(service.snapshot).toBeNull();
    await sleep(400);
    expect(requests).toHaveLength(3);
    expect(service.snapshot?.epoch).toBe(2);
    service.dispose();
  });

  it('switches kernels and drops answers about the old one', async () => {
    const { service, requests, widget, tracker } = setup([
      { status: 200, body: makeSnapshot({ kernel_id: 'k1' }) },
      { status: 200, body: makeSnapshot({ kernel_id: 'k2' }) }
    ]);
    service.setVisible(true);
    await sleep(20);
    const other = makeWidget(new FakeKernel('k2'));
    tracker.currentWidget = asSessionWidget(other);
    widget.dispose();
    await sleep(20);
    expect(service.kernelId).toBe('k2');
    expect(requests[1].url).toContain('/kernels/k2/variables');
    expect(service.snapshot?.kernel_id).toBe('k2');
    service.dispose();
  });

  it('follows a kernel change in the same widget', async () => {
    const { service, widget } = setup([{ status: 200, body: makeSnapshot() }]);
    widget.sessionContext.session = { kernel: new FakeKernel('k9') };
    widget.sessionContext.kernelChanged.emit({});
    expect(service.kernelId).toBe('k9');
    widget.sessionContext.session = null;
    widget.sessionContext.kernelChanged.emit({});
    expect(service.kernelId).toBeNull();
    expect(service.model.status).toBe('no-kernel');
    service.dispose();
  });

  it('refetches when the options change', async () => {
    const { service, requests } = setup([
      { status: 200, body: makeSnapshot() }
    ]);
    service.setVisible(true);
    await sleep(20);
    service.setOptions({ include: ['private'] });
    service.setOptions({ include: ['private'] });
    await sleep(20);
    expect(requests).toHaveLength(2);
    expect(requests[1].url).toContain('include=private');
    service.dispose();
  });

  it('emits executed for user runs only, visible or not', async () => {
    const { service, kernel } = setup([{ status: 200, body: makeSnapshot() }]);
    const runs: string[] = [];
    service.executed.connect((_, args) =>
      runs.push(`${args.kernelId}:${args.msgId}`)
    );
    kernel.run('m1');
    kernel.run('probe', true);
    expect(runs).toEqual(['k1:m1']);
    service.dispose();
  });

  it('stores a note with a PUT of the given body, then refreshes', async () => {
    const note = {
      name: 'sales',
      description: 'raw export',
      constraints: null,
      hidden_from_prompt: true,
      updated_at: '2026-01-01T00:00:00+00:00'
    };
    const { service, requests } = setup([
      { status: 200, body: makeSnapshot(), headers: { ETag: '"1"' } },
      { status: 200, body: note },
      { status: 200, body: makeSnapshot(), headers: { ETag: '"2"' } },
      { status: 204 },
      { status: 200, body: makeSnapshot(), headers: { ETag: '"3"' } }
    ]);
    const changed: string[] = [];
    service.annotationChanged.connect((_, name) => changed.push(name));
    service.setVisible(true);
    await sleep(20);
    const update = {
      description: 'raw export',
      constraints: null,
      hidden_from_prompt: true
    };
    expect(await service.annotate('sales', update)).toEqual(note);
    expect(requests[1].method).toBe('PUT');
    expect(requests[1].url).toContain('/kernels/k1/variables/sales/annotation');
    expect(JSON.parse(await requests[1].text())).toEqual(update);
    await sleep(20);
    expect(requests[2].url).toContain('/kernels/k1/variables');
    // A note is no kernel change, a delta would not carry it: the full page is asked.
    expect(urlOf(requests[2])).not.toContain('delta');
    expect(requests[2].headers.get('If-None-Match')).toBe('"1"');
    await service.clearAnnotation('sales');
    expect(requests[3].method).toBe('DELETE');
    expect(changed).toEqual(['sales', 'sales']);
    service.dispose();
  });

  it('reads images, image bytes and the prompt of the followed kernel', async () => {
    const { service, requests } = setup([
      {
        status: 200,
        body: {
          images: [],
          next_since: 4,
          total: 0,
          more: 0,
          dropped: 0,
          rejected: 0
        }
      },
      { status: 200, body: { text: 'Kernel state', chars: 12 } }
    ]);
    expect((await service.images(3, 10)).next_since).toBe(4);
    expect(requests[0].url).toMatch(/\/kernels\/k1\/images\?since=3&limit=10/);
    expect((await service.prompt({ budget: 2000, history: 2 })).text).toBe(
      'Kernel state'
    );
    expect(requests[1].url).toMatch(
      /\/kernels\/k1\/prompt\?budget=2000&history=2&format=json/
    );
    await service.imageBlob('abc');
    expect(requests[2].url).toMatch(/\/kernels\/k1\/images\/abc/);
    service.dispose();
  });

  it('lists brief entries of the followed kernel without touching the model', async () => {
    const body = {
      ...makeSnapshot(),
      detail: 'names',
      variables: [{ name: 'sales', type: 'DataFrame', kind: 'dataframe' }]
    };
    const { service, requests } = setup([{ status: 200, body }]);
    const page = await service.listVariables({ detail: 'names', filter: 's*' });
    expect(page.variables[0].name).toBe('sales');
    expect(requests[0].url).toMatch(
      /\/kernels\/k1\/variables\?filter=s\*&detail=names/
    );
    expect(service.snapshot).toBeNull();
    service.dispose();
  });

  it('rejects requests when no kernel is followed', async () => {
    const { service } = setup([{ status: 200, body: {} }], null);
    await expect(service.prompt()).rejects.toThrow('No kernel');
    await expect(service.listVariables({ detail: 'names' })).rejects.toThrow(
      'No kernel'
    );
    await expect(service.images()).rejects.toThrow('No kernel');
    await expect(service.annotate('x', {})).rejects.toThrow('No kernel');
    service.dispose();
  });

  describe('incremental list', () => {
    const page = (variables: string[], extra = {}) =>
      makeSnapshot({
        variables: variables.map(name => makeVariable(name, { change: 'new' })),
        delta: false,
        ...extra
      });

    it('asks only what changed since the shown generation and merges it', async () => {
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a', 'b']), headers: { ETag: '"1"' } },
        {
          status: 200,
          body: makeSnapshot({
            generation: 2,
            execution_count: 2,
            variables: [makeVariable('c', { change: 'new', changed_at: 2 })],
            removed: ['a'],
            total: 2,
            delta: true
          })
        }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(20);
      expect(requests).toHaveLength(2);
      expect(urlOf(requests[1])).toBe(
        'http://localhost:8888/base/api/kernel-state/kernels/k1/variables?limit=2000&sort=name&since=1&delta=true'
      );
      const shown = service.snapshot!;
      expect(shown.variables.map(v => [v.name, v.change])).toEqual([
        ['b', 'unchanged'],
        ['c', 'new']
      ]);
      expect(shown).toMatchObject({ generation: 2, total: 2, delta: false });
      service.dispose();
    });

    it('asks the normal page when a delta cannot be merged exactly', async () => {
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a', 'b']) },
        {
          status: 200,
          body: makeSnapshot({
            generation: 2,
            variables: [makeVariable('é', { change: 'new' })],
            total: 3,
            delta: true
          })
        },
        { status: 200, body: page(['a', 'b', 'é'], { generation: 2 }) }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(30);
      expect(requests).toHaveLength(3);
      expect(urlOf(requests[2])).not.toContain('since');
      expect(service.snapshot?.variables.map(v => v.name)).toEqual([
        'a',
        'b',
        'é'
      ]);
      expect(service.snapshot?.variables[0].change).toBe('new');
      service.dispose();
    });

    it('asks the page at once when the shown list cannot take a delta', async () => {
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a', 'é']) },
        { status: 200, body: page(['a', 'é'], { generation: 2 }) }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(20);
      expect(requests).toHaveLength(2);
      expect(urlOf(requests[1])).not.toContain('since');
      expect(service.snapshot?.generation).toBe(2);
      service.dispose();
    });

    it('asks the page when a delta request gets a 503 (a busy kernel)', async () => {
      const stale = page(['a'], { stale: true, kernel_busy: true });
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a']) },
        {
          status: 503,
          body: { message: 'Kernel is busy' },
          headers: { 'Retry-After': '1' }
        },
        { status: 200, body: stale }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(30);
      expect(requests).toHaveLength(3);
      expect(urlOf(requests[1])).toContain('delta=true');
      expect(urlOf(requests[2])).not.toContain('since');
      expect(service.model.isBusy).toBe(true);
      service.dispose();
    });

    it('marks the merged list stale when the busy page is older', async () => {
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a']) },
        {
          status: 200,
          body: makeSnapshot({
            generation: 2,
            variables: [makeVariable('b', { change: 'new' })],
            total: 2,
            delta: true
          })
        },
        { status: 503, headers: { 'Retry-After': '1' } },
        { status: 200, body: page(['a'], { stale: true, kernel_busy: true }) }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(20);
      expect(service.snapshot?.generation).toBe(2);
      kernel.run('m2');
      await sleep(30);
      expect(requests).toHaveLength(4);
      expect(service.model.isBusy).toBe(true);
      expect(service.snapshot).toMatchObject({ generation: 2, stale: true });
      expect(service.snapshot?.variables.map(v => v.name)).toEqual(['a', 'b']);
      service.dispose();
    });

    it('shows a full page answered to a delta request as it is', async () => {
      const restarted = page(['z'], { epoch: 2, generation: 1 });
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a']) },
        { status: 200, body: restarted }
      ]);
      service.setVisible(true);
      await sleep(20);
      kernel.run('m1');
      await sleep(20);
      expect(requests).toHaveLength(2);
      expect(urlOf(requests[1])).toContain('delta=true');
      expect(service.snapshot).toEqual(restarted);
      service.dispose();
    });

    it('keeps the shown list when a delta says nothing changed (304)', async () => {
      const { service, requests, kernel } = setup([
        { status: 200, body: page(['a']) },
        {
          status: 200,
          body: makeSnapshot({ variables: [], total: 1, delta: true }),
          headers: { ETag: '"d1"' }
        },
        { status: 304 }
      ]);
      service.setVisible(true);
      await sleep(20);
      const first = service.snapshot;
      kernel.run('m1');
      await sleep(20);
      kernel.run('m2');
      await sleep(20);
      expect(requests).toHaveLength(3);
      expect(requests[2].headers.get('If-None-Match')).toBe('"d1"');
      expect(service.snapshot).toBe(first);
      expect(service.snapshot?.variables[0].change).toBe('new');
      service.dispose();
    });

    it('asks a full page on refresh() and for another filter', async () => {
      const { service, requests } = setup([{ status: 200, body: page(['a']) }]);
      service.setVisible(true);
      await sleep(20);
      await service.refresh();
      service.setOptions({ filter: 'a' });
      await sleep(20);
      expect(requests.map(r => urlOf(r).includes('delta'))).toEqual([
        false,
        false,
        false
      ]);
      service.dispose();
    });

    it('gives callers the delta since a generation', async () => {
      const reply = makeSnapshot({ generation: 9, delta: true });
      const { service, requests } = setup([{ status: 200, body: reply }]);
      expect(await service.variablesSince(7)).toEqual(reply);
      expect(urlOf(requests[0])).toContain('since=7&delta=true');
      service.dispose();
    });
  });
});
