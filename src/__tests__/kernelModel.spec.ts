import { KernelStateModel } from '../models/kernel';
import { makeSnapshot } from './helpers';

const KERNEL = { id: 'k1', name: 'Python 3', source: 'a.ipynb' };

describe('KernelStateModel', () => {
  let model: KernelStateModel;
  let emitted: number;

  beforeEach(() => {
    model = new KernelStateModel();
    emitted = 0;
    model.changed.connect(() => emitted++);
  });

  afterEach(() => model.dispose());

  it('starts without a kernel', () => {
    expect(model.status).toBe('no-kernel');
    expect(model.snapshot).toBeNull();
    expect(model.isBusy).toBe(false);
  });

  it('loads, then shows a snapshot of the followed kernel', () => {
    model.setKernel(KERNEL);
    expect(model.status).toBe('loading');
    expect(model.setSnapshot(makeSnapshot())).toBe(true);
    expect(model.status).toBe('ready');
    expect(emitted).toBe(2);
  });

  it('ignores snapshots of other kernels and older generations', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot({ generation: 5 }));
    expect(model.setSnapshot(makeSnapshot({ kernel_id: 'k2' }))).toBe(false);
    expect(model.setSnapshot(makeSnapshot({ generation: 4 }))).toBe(false);
    expect(model.snapshot?.generation).toBe(5);
    // A new epoch (restart) starts generations again.
    expect(model.setSnapshot(makeSnapshot({ epoch: 2, generation: 1 }))).toBe(
      true
    );
  });

  it('drops the snapshot when the kernel changes or restarts', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot());
    model.reset();
    expect(model.snapshot).toBeNull();
    expect(model.status).toBe('loading');
    model.setSnapshot(makeSnapshot());
    model.setKernel({ ...KERNEL, id: 'k2' });
    expect(model.snapshot).toBeNull();
    model.setKernel(null);
    expect(model.status).toBe('no-kernel');
  });

  it('says the kernel restarted until a cell has run since', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot({ execution_count: 3 }));
    expect(model.restarted).toBe(false);
    model.reset();
    expect(model.restarted).toBe(true);
    model.setSnapshot(makeSnapshot({ epoch: 2, execution_count: null }));
    expect(model.restarted).toBe(true);
    model.setSnapshot(
      makeSnapshot({ epoch: 2, generation: 9, execution_count: 1 })
    );
    expect(model.restarted).toBe(false);
    model.reset();
    model.setKernel({ ...KERNEL, id: 'k2' });
    expect(model.restarted).toBe(false);
  });

  it('keeps the snapshot when only the kernel label changes', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot());
    model.setKernel({ ...KERNEL, source: 'b.ipynb' });
    expect(model.snapshot).not.toBeNull();
    expect(model.kernel?.source).toBe('b.ipynb');
    // A notebook moved to another folder keeps its label; its path changes.
    const before = emitted;
    model.setKernel({ ...KERNEL, source: 'b.ipynb', path: 'x/b.ipynb' });
    expect(model.kernel?.path).toBe('x/b.ipynb');
    expect(model.snapshot).not.toBeNull();
    expect(emitted).toBe(before + 1);
  });

  it('is busy only for a stale snapshot of a busy kernel', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot({ stale: true, kernel_busy: false }));
    expect(model.isBusy).toBe(false);
    model.setSnapshot(makeSnapshot({ stale: true, kernel_busy: true }));
    expect(model.isBusy).toBe(true);
    model.setSnapshot(makeSnapshot({ generation: 2 }));
    expect(model.isBusy).toBe(false);
  });

  it('keeps the snapshot on a transient error, drops it when unsupported', () => {
    model.setKernel(KERNEL);
    model.setSnapshot(makeSnapshot());
    model.setError('error', 'boom');
    expect(model.status).toBe('error');
    expect(model.error).toBe('boom');
    expect(model.snapshot).not.toBeNull();
    model.setError('unsupported', 'Not a Python kernel');
    expect(model.snapshot).toBeNull();
  });

  it('clears its signals on dispose', () => {
    model.setKernel(KERNEL);
    const before = emitted;
    model.dispose();
    model.setKernel({ ...KERNEL, id: 'k3' });
    expect(emitted).toBe(before);
    expect(model.isDisposed).toBe(true);
  });
});
