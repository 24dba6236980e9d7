import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { KernelStateModel } from '../model';
import { DEFAULT_OPTIONS } from '../service';
import { IKernelStateService } from '../tokens';
import { KernelStateSidebar, SIDEBAR_ID } from '../widgets/sidebar';
import { makeSnapshot } from './helpers';

function fakeService() {
  const model = new KernelStateModel();
  const changed = new Signal<IKernelStateService, void>({} as IKernelStateService);
  model.changed.connect(() => changed.emit());
  const service = {
    changed,
    model,
    get snapshot() {
      return model.snapshot;
    },
    kernelId: 'k1',
    options: { ...DEFAULT_OPTIONS },
    visible: false,
    isDisposed: false,
    setVisible: jest.fn(),
    setOptions: jest.fn(),
    refresh: jest.fn(async () => undefined),
    inspect: jest.fn(),
    dispose: jest.fn()
  };
  return service;
}

describe('KernelStateSidebar', () => {
  it('tells the service when it is shown and hidden', () => {
    const service = fakeService();
    const sidebar = new KernelStateSidebar({ service });
    expect(sidebar.id).toBe(SIDEBAR_ID);
    expect(sidebar.title.caption).toContain('Kernel State');
    Widget.attach(sidebar, document.body);
    expect(service.setVisible).toHaveBeenLastCalledWith(true);
    sidebar.hide();
    expect(service.setVisible).toHaveBeenLastCalledWith(false);
    sidebar.show();
    expect(service.setVisible).toHaveBeenLastCalledWith(true);
    sidebar.dispose();
    expect(service.setVisible).toHaveBeenLastCalledWith(false);
  });

  it('renders the model and re-renders when it changes', async () => {
    const service = fakeService();
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(makeSnapshot());
    // ReactWidget renders on the next animation frame.
    await new Promise(resolve => requestAnimationFrame(() => resolve(undefined)));
    await new Promise(resolve => setTimeout(resolve, 20));
    const row = sidebar.node.querySelector('[data-test-id="kernel-state-row"]');
    expect(row?.getAttribute('data-name')).toBe('x');
    sidebar.dispose();
  });
});
