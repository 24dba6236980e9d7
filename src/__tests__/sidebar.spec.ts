import { Widget } from '@lumino/widgets';

import { KernelStateSidebar, SIDEBAR_ID } from '../widgets/sidebar';
import {
  fakeService,
  makeDetail,
  makeImage,
  makePrompt,
  makeSnapshot,
  sleep
} from './helpers';

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
    await new Promise(resolve =>
      requestAnimationFrame(() => resolve(undefined))
    );
    await new Promise(resolve => setTimeout(resolve, 20));
    const row = sidebar.node.querySelector('[data-test-id="kernel-state-row"]');
    expect(row?.getAttribute('data-name')).toBe('x');
    sidebar.dispose();
  });

  async function rendered(): Promise<void> {
    await new Promise(resolve =>
      requestAnimationFrame(() => resolve(undefined))
    );
    await sleep(20);
  }

  it('loads the sections only while shown and expanded, and wires their actions', async () => {
    const service = fakeService();
    service.images.mockResolvedValue({
      images: [makeImage(1), makeImage(2)],
      next_since: 2,
      total: 2,
      more: 0,
      dropped: 0,
      rejected: 0
    });
    service.prompt.mockResolvedValue(
      makePrompt({ text: 'Kernel state — python' })
    );
    const openImage = jest.fn();
    const copy = jest.fn();
    const sidebar = new KernelStateSidebar({
      service,
      openImage,
      copy,
      promptQuery: { budget: 3000, history: 2 }
    });
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    expect(service.images).not.toHaveBeenCalled();

    Widget.attach(sidebar, document.body);
    await rendered();
    expect(service.images).toHaveBeenCalledTimes(1);
    // Folded, the assistant view's header shows the prompt's current size.
    expect(service.prompt).toHaveBeenCalledTimes(1);
    expect(foldSummary(sidebar.node, 'kernel-state-assistant')).toMatch(
      /^~[\d,]+ tokens$/
    );
    const node = sidebar.node;
    const thumbs = node.querySelectorAll<HTMLElement>(
      '[data-test-id="kernel-state-image"]'
    );
    expect([...thumbs].map(t => t.dataset.executionCount)).toEqual(['2', '1']);
    thumbs[1].click();
    expect(openImage).toHaveBeenCalledWith(
      expect.objectContaining({ image: makeImage(1) })
    );

    sidebar.assistantExpanded = true;
    await rendered();
    expect(service.prompt).toHaveBeenLastCalledWith({
      budget: 3000,
      history: 2
    });
    const text = node.querySelector(
      '[data-test-id="kernel-state-prompt-text"]'
    );
    expect(text?.textContent).toBe('Kernel state — python');
    node
      .querySelector<HTMLElement>('[data-test-id="kernel-state-prompt-copy"]')!
      .click();
    expect(copy).toHaveBeenCalledWith('Kernel state — python');

    sidebar.hide();
    expect(sidebar.images.active).toBe(false);
    expect(sidebar.prompt.active).toBe(false);
    sidebar.show();
    expect(sidebar.images.active).toBe(true);
    sidebar.imagesExpanded = false;
    expect(sidebar.images.active).toBe(false);
    sidebar.dispose();
    expect(sidebar.images.isDisposed).toBe(true);
  });

  it('saves a note from the inspector through the service', async () => {
    const service = fakeService();
    const detail = makeDetail('x', {
      columns: null,
      columns_total: null,
      head: null,
      keys: null,
      keys_total: null,
      signature: null,
      doc: null,
      llm_repr: null
    });
    service.inspect.mockResolvedValue(detail);
    service.annotate.mockResolvedValue({
      name: 'x',
      description: 'the answer',
      constraints: null,
      hidden_from_prompt: false,
      updated_at: ''
    });
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(makeSnapshot());
    sidebar.inspect('x');
    await rendered();
    const form = sidebar.node.querySelector(
      '[data-test-id="kernel-state-annotation"]'
    )!;
    expect(form).not.toBeNull();
    const textarea = form.querySelector('textarea')!;
    const setter = Object.getOwnPropertyDescriptor(
      HTMLTextAreaElement.prototype,
      'value'
    )!.set!;
    setter.call(textarea, 'the answer');
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
    await rendered();
    form
      .querySelector<HTMLButtonElement>(
        '[data-test-id="kernel-state-annotation-save"]'
      )!
      .click();
    await rendered();
    expect(service.annotate).toHaveBeenCalledWith('x', {
      description: 'the answer',
      constraints: null,
      hidden_from_prompt: false
    });
    expect(sidebar.node.textContent).toContain('Saved');
    sidebar.dispose();
  });
});

function foldSummary(node: HTMLElement, testId: string): string {
  return (
    node.querySelector(`[data-test-id="${testId}"] .jp-KernelState-foldSummary`)
      ?.textContent ?? ''
  );
}
