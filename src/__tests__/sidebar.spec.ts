import { Widget } from '@lumino/widgets';

import { KernelStateSidebar, SIDEBAR_ID } from '../widgets/sidebar';
import { fakeService, makeSnapshot } from './helpers';

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
