/**
 * The sidebar's list actions: delete with confirmation, the Data Explorer through its
 * command when registered, the row menu's items.
 */
import { CommandRegistry } from '@lumino/commands';
import { Widget } from '@lumino/widgets';

import { IVariableApi } from '../models/variableApi';
import { KernelStateSidebar, OPEN_EXPLORER_COMMAND } from '../widgets/sidebar';
import { fakeService, makeSnapshot, makeVariable, sleep } from './helpers';

function fakeApi(): jest.Mocked<IVariableApi> {
  return {
    detail: jest.fn(),
    timeline: jest.fn(),
    remove: jest.fn(async (_name: string) => undefined)
  };
}

describe('KernelStateSidebar list actions', () => {
  async function rendered(): Promise<void> {
    await new Promise(resolve =>
      requestAnimationFrame(() => resolve(undefined))
    );
    await sleep(20);
  }

  function setup(confirm: boolean, withExplorer: boolean) {
    const service = fakeService();
    const api = fakeApi();
    const commands = new CommandRegistry();
    const opened = jest.fn();
    if (withExplorer) {
      commands.addCommand(OPEN_EXPLORER_COMMAND, {
        execute: args => opened(args)
      });
    }
    const copy = jest.fn();
    const confirmDelete = jest.fn(async () => confirm);
    const sidebar = new KernelStateSidebar({
      service,
      api,
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
    return { service, api, sidebar, opened, copy, confirmDelete };
  }

  it('deletes after confirmation, drops the row and refreshes', async () => {
    const { service, api, sidebar, confirmDelete } = setup(true, false);
    await rendered();
    expect(await sidebar.deleteVariable('n')).toBe(true);
    expect(confirmDelete).toHaveBeenCalledWith('n');
    expect(api.remove).toHaveBeenCalledWith('n');
    expect(service.refresh).toHaveBeenCalled();
    // until the refreshed snapshot arrives, the list already leaves it out
    expect(sidebar.list.rows.map(r => r.variable.name)).toEqual(['df', 'n']);
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

  it('does nothing when the deletion is not confirmed', async () => {
    const { api, sidebar } = setup(false, false);
    expect(await sidebar.deleteVariable('n')).toBe(false);
    expect(api.remove).not.toHaveBeenCalled();
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
