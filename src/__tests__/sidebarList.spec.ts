/**
 * The sidebar's list actions: delete with confirmation, the Data Explorer through its
 * command when registered, the row menu's items.
 */
import { ServerConnection } from '@jupyterlab/services';
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';

import { CommandIDs } from '../commands';
import { KernelStateSidebar } from '../widgets/sidebar';
import {
  fakeService,
  makeDetail,
  makeSnapshot,
  makeVariable,
  sleep
} from './helpers';

describe('KernelStateSidebar list actions', () => {
  async function rendered(): Promise<void> {
    await new Promise(resolve =>
      requestAnimationFrame(() => resolve(undefined))
    );
    await sleep(20);
  }

  function setup(confirm: boolean, withExplorer: boolean) {
    const service = fakeService();
    const commands = new CommandRegistry();
    const opened = jest.fn();
    if (withExplorer) {
      commands.addCommand(CommandIDs.openExplorer, {
        execute: args => opened(args)
      });
    }
    const copy = jest.fn();
    const confirmDelete = jest.fn(async () => confirm);
    const sidebar = new KernelStateSidebar({
      service,
      commands,
      copy,
      confirmDelete
    });
    Widget.attach(sidebar, document.body);
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(
      makeSnapshot({
        variables: [
          makeVariable('df', { kind: 'dataframe', type: 'DataFrame' }),
          makeVariable('n', { type: 'int', preview: '42' })
        ]
      })
    );
    return { service, sidebar, opened, copy, confirmDelete };
  }

  it('deletes after confirmation, drops the row and refreshes', async () => {
    const { service, sidebar, confirmDelete } = setup(true, false);
    await rendered();
    expect(await sidebar.deleteVariable('n')).toBe(true);
    expect(confirmDelete).toHaveBeenCalledWith('n');
    expect(service.deleteVariable).toHaveBeenCalledWith('n');
    expect(service.refresh).toHaveBeenCalled();
    // until the refreshed snapshot arrives, the list already leaves it out
    expect(sidebar.list.rows.map(r => r.variable.name)).toEqual(['df']);
    service.model.setSnapshot(
      makeSnapshot({
        generation: 2,
        variables: [makeVariable('df', { kind: 'dataframe' })]
      })
    );
    expect(sidebar.list.rows.map(r => [r.variable.name, r.removed])).toEqual([
      ['df', false]
    ]);
    sidebar.dispose();
  });

  it('tries a delete again when the server says to (503, Retry-After), a few times', async () => {
    jest.useFakeTimers();
    try {
      const { service, sidebar } = setup(true, false);
      const busy = () =>
        new ServerConnection.ResponseError(
          new Response(
            '{"message": "An earlier inspection is still running"}',
            {
              status: 503,
              headers: { 'Retry-After': '2' }
            }
          )
        );
      (service.deleteVariable as jest.Mock)
        .mockRejectedValueOnce(busy())
        .mockResolvedValueOnce(undefined);
      const deleted = sidebar.deleteVariable('n');
      await jest.advanceTimersByTimeAsync(2000);
      expect(await deleted).toBe(true);
      expect(service.deleteVariable).toHaveBeenCalledTimes(2);

      // Still busy after every attempt: the user is told, the row stays.
      (service.deleteVariable as jest.Mock).mockClear();
      (service.deleteVariable as jest.Mock).mockRejectedValue(busy());
      const refused = sidebar.deleteVariable('n');
      await jest.advanceTimersByTimeAsync(10_000);
      expect(await refused).toBe(false);
      expect(service.deleteVariable).toHaveBeenCalledTimes(4);
      sidebar.dispose();
    } finally {
      jest.useRealTimers();
    }
  });

  it('does nothing when the deletion is not confirmed', async () => {
    const { service, sidebar } = setup(false, false);
    expect(await sidebar.deleteVariable('n')).toBe(false);
    expect(service.deleteVariable).not.toHaveBeenCalled();
    sidebar.dispose();
  });

  it('opens tables in the explorer only when its command exists', async () => {
    const withExplorer = setup(true, true);
    const df = withExplorer.sidebar.list.rows[0].variable;
    expect(withExplorer.sidebar.canExplore(df)).toBe(true);
    expect(
      withExplorer.sidebar.canExplore(
        withExplorer.sidebar.list.rows[1].variable
      )
    ).toBe(false);
    withExplorer.sidebar.openExplorer('df');
    await sleep(0);
    expect(withExplorer.opened).toHaveBeenCalledWith({ name: 'df' });
    withExplorer.sidebar.dispose();

    const without = setup(true, false);
    expect(without.sidebar.canExplore(df)).toBe(false);
    without.sidebar.openExplorer('df'); // no command: nothing happens, no throw
    without.sidebar.dispose();
  });

  it('copies the value as the service reads it (a secret stays masked)', async () => {
    const { service, sidebar, copy } = setup(true, false);
    await rendered();
    service.inspect.mockResolvedValue(
      makeDetail('n', { repr: '[masked]', masked: true })
    );
    sidebar.openMenu('n', 10, 10);
    const item = sidebar.menu.items.find(
      item => item.command === CommandIDs.listCopyValue
    )!;
    await sidebar.menu.commands.execute(item.command, item.args);
    expect(service.inspect).toHaveBeenCalledWith('n');
    expect(service.detail).not.toHaveBeenCalled(); // never revealed
    expect(copy).toHaveBeenCalledWith('[masked]');
    sidebar.menu.close();
    sidebar.dispose();
  });

  it('builds the row menu with the right items enabled', async () => {
    const { sidebar, copy } = setup(true, true);
    await rendered();
    sidebar.openMenu('n', 10, 10);
    const menu = sidebar.menu;
    const items = menu.items.filter(item => item.type === 'command');
    expect(items.map(item => item.label)).toEqual([
      'Open in Data Explorer',
      'Inspect',
      'Copy Name',
      'Copy Value as Text',
      'Copy as Code',
      'Delete…'
    ]);
    const enabled = Object.fromEntries(
      items.map(item => [item.label, item.isEnabled])
    );
    expect(enabled['Open in Data Explorer']).toBe(false);
    expect(enabled['Copy as Code']).toBe(true);
    expect(items.map(item => item.command)).toEqual([
      CommandIDs.listOpenExplorer,
      CommandIDs.listInspect,
      CommandIDs.listCopyName,
      CommandIDs.listCopyValue,
      CommandIDs.listCopyCode,
      CommandIDs.listDelete
    ]);
    await menu.commands.execute(items[4].command, items[4].args);
    expect(copy).toHaveBeenCalledWith('n = 42');
    menu.close();
    sidebar.openMenu('df', 10, 10);
    const dfItems = menu.items.filter(item => item.type === 'command');
    expect(dfItems[0].isEnabled).toBe(true);
    expect(dfItems[4].isEnabled).toBe(false);
    menu.close();
    sidebar.dispose();
  });
});
