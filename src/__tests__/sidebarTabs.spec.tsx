/**
 * "Show Kernel State" leaves the keyboard in the panel; the sidebar's sections open
 * their tabs (the gallery, the assistant view) through their commands, one tab each,
 * each loading only while seen and following the sidebar's assistant budget.
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget } from '@jupyterlab/apputils';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';

import { CommandIDs } from '../commands';
import { KernelStateSidebar } from '../widgets/sidebar';
import { addTabCommands, AssistantPanel } from '../widgets/tabs';
import { fakeService, makePrompt, makeSnapshot, sleep } from './helpers';

async function rendered(): Promise<void> {
  await new Promise(resolve => requestAnimationFrame(() => resolve(undefined)));
  await sleep(30);
}

function fakeApp() {
  const added: Widget[] = [];
  const app = {
    commands: new CommandRegistry(),
    shell: {
      add: jest.fn((widget: Widget) => {
        added.push(widget);
        Widget.attach(widget, document.body);
      }),
      activateById: jest.fn()
    }
  };
  return { app: app as unknown as JupyterFrontEnd, added, shell: app.shell };
}

describe('the sidebar and its tabs', () => {
  it('moves the focus into the list when shown', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(makeSnapshot());
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    await rendered();
    (document.activeElement as HTMLElement | null)?.blur();
    await sidebar.focusContent();
    expect(document.activeElement?.getAttribute('data-test-id')).toBe(
      'kernel-state-grid'
    );
    sidebar.dispose();
  });

  it('focuses the panel itself while no list is shown', async () => {
    const service = fakeService(null);
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    await sidebar.focusContent();
    expect(document.activeElement?.getAttribute('data-test-id')).toBe(
      'kernel-state-panel'
    );
    sidebar.dispose();
  });

  it('gives the focus to the list when it appears after the panel took it', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    await sidebar.focusContent();
    // Still reading the variables: the panel holds the focus.
    expect(document.activeElement?.getAttribute('data-test-id')).toBe(
      'kernel-state-panel'
    );
    service.model.setSnapshot(makeSnapshot());
    await rendered();
    expect(document.activeElement?.getAttribute('data-test-id')).toBe(
      'kernel-state-grid'
    );
    sidebar.dispose();
  });

  it('leaves the focus where the user moved it before the list appears', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    const sidebar = new KernelStateSidebar({ service });
    Widget.attach(sidebar, document.body);
    const elsewhere = document.createElement('input');
    document.body.appendChild(elsewhere);
    await sidebar.focusContent();
    elsewhere.focus();
    service.model.setSnapshot(makeSnapshot());
    await rendered();
    expect(document.activeElement).toBe(elsewhere);
    elsewhere.remove();
    sidebar.dispose();
  });

  it('opens one gallery and one assistant tab through the section buttons', async () => {
    const { app, added, shell } = fakeApp();
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.images.mockResolvedValue({
      images: [],
      next_since: 0,
      total: 0,
      more: 0,
      dropped: 0,
      rejected: 0
    });
    service.prompt.mockResolvedValue(makePrompt({ text: 'Kernel state' }));
    const sidebar = new KernelStateSidebar({
      service,
      commands: app.commands,
      promptQuery: { budget: 3000 }
    });
    addTabCommands(app, {
      service,
      promptQuery: () => sidebar.prompt.query,
      promptModel: sidebar.prompt
    });
    Widget.attach(sidebar, document.body);
    sidebar.assistantExpanded = true;
    await rendered();
    const button = (id: string) =>
      sidebar.node.querySelector<HTMLButtonElement>(`[data-test-id="${id}"]`)!;
    button('kernel-state-open-gallery').click();
    await sleep(10);
    button('kernel-state-open-gallery').click();
    await sleep(10);
    expect(added).toHaveLength(1);
    expect(shell.activateById).toHaveBeenCalledTimes(2);
    expect(added[0].title.label).toBe('Images — a.ipynb');

    button('kernel-state-open-assistant').click();
    await rendered();
    expect(added).toHaveLength(2);
    const tab = added[1] as MainAreaWidget<AssistantPanel>;
    expect(tab.title.label).toBe('Assistant view — a.ipynb');
    expect(service.prompt).toHaveBeenLastCalledWith(
      expect.objectContaining({ budget: 3000 })
    );
    expect(
      tab.node.querySelector('[data-test-id="kernel-state-assistant-tab-text"]')
        ?.textContent
    ).toBe('Kernel state');
    // The sidebar's budget changes: the tab follows.
    sidebar.setPromptQuery({ budget: 5000 });
    expect(tab.content.model.query.budget).toBe(5000);
    expect(app.commands.hasCommand(CommandIDs.openAssistant)).toBe(true);
    for (const widget of added) {
      widget.dispose();
    }
    sidebar.dispose();
  });
});
