/**
 * A table output shown as the grid in the notebook (`explorer/output/grid.ts`): live
 * (the grid read from the result's handle, the static table hidden), switched back to
 * the static table and to the grid without reading again, gone (a 404: the static table
 * and a line saying why), and the static table given back when the grid is disposed.
 */
import './canvasStub';

import { Widget } from '@lumino/widgets';

import { OutputGrid } from '../explorer/output/grid';
import { DataExplorer } from '../explorer/widget';
import { FakeTable, makeModel, responseError, trans } from './explorerFakes';

function setup(table: FakeTable): {
  grid: OutputGrid;
  staticOutput: Widget;
  opened: string[];
  host: Widget;
} {
  const host = new Widget();
  const staticOutput = new Widget();
  staticOutput.node.textContent = 'static table';
  const opened: string[] = [];
  const grid = new OutputGrid({
    handle: '_7',
    staticOutput,
    createExplorer: () =>
      new DataExplorer({
        name: '_7',
        kernelId: 'k1',
        model: makeModel(table)
      }),
    openInTab: handle => opened.push(handle),
    trans
  });
  Widget.attach(host, document.body);
  Widget.attach(staticOutput, host.node);
  Widget.attach(grid, host.node);
  return { grid, staticOutput, opened, host };
}

function testId(grid: OutputGrid, id: string): HTMLElement {
  return grid.node.querySelector(`[data-test-id="${id}"]`) as HTMLElement;
}

describe('OutputGrid', () => {
  it('is live: the grid reads the handle, the static table hidden', async () => {
    const table = new FakeTable(1000, 3);
    const { grid, staticOutput, opened } = setup(table);
    expect(grid.mode).toBe('static');
    expect(grid.explorer).toBeNull(); // nothing read before it is shown
    grid.showGrid();
    const model = grid.explorer!.model;
    await model.settled();
    expect(grid.mode).toBe('grid');
    expect(model.info?.totalRows).toBe(1000);
    expect(model.data('body', 0, 0)).toBe('r0c0');
    expect(staticOutput.isHidden).toBe(true);
    expect(grid.explorer!.isHidden).toBe(false);
    expect(grid.explorer!.node.hasAttribute('data-lm-suppress-shortcuts')).toBe(
      true
    );
    const toggle = testId(grid, 'kernel-state-output-grid-toggle');
    expect(toggle.textContent).toBe('Show as static table');
    testId(grid, 'kernel-state-output-grid-open').click();
    expect(opened).toEqual(['_7']);
    grid.dispose();
  });

  it('folds the filter bar until asked, or until a filter is set', async () => {
    const table = new FakeTable(50, 2);
    const { grid } = setup(table);
    const button = testId(grid, 'kernel-state-output-grid-filter');
    expect(button.hidden).toBe(true); // static: no grid to filter
    grid.showGrid();
    const explorer = grid.explorer!;
    await explorer.model.settled();
    expect(button.hidden).toBe(false);
    expect(explorer.filterBar.isHidden).toBe(true);
    button.click();
    expect(explorer.filterBar.isHidden).toBe(false);
    expect(button.getAttribute('aria-pressed')).toBe('true');
    button.click();
    expect(explorer.filterBar.isHidden).toBe(true);
    await explorer.showRows({ column: 'c0', op: 'eq', value: 'r0c0' });
    expect(explorer.filterBar.isHidden).toBe(false);
    grid.dispose();
  });

  it('goes back to the static table and to the grid without reading again', async () => {
    const table = new FakeTable(50, 2);
    const { grid, staticOutput } = setup(table);
    grid.showGrid();
    const explorer = grid.explorer!;
    await explorer.model.settled();
    const reads = table.queries.length;
    const toggle = testId(grid, 'kernel-state-output-grid-toggle');
    toggle.click();
    expect(grid.mode).toBe('static');
    expect(staticOutput.isHidden).toBe(false);
    expect(explorer.isHidden).toBe(true);
    expect(toggle.textContent).toBe('Show as grid');
    toggle.click();
    expect(grid.mode).toBe('grid');
    expect(grid.explorer).toBe(explorer);
    await explorer.model.settled();
    expect(table.queries.length).toBe(reads);
    grid.dispose();
    expect(staticOutput.isHidden).toBe(false);
  });

  it('says a value that is gone (404) and shows the static table', async () => {
    const table = new FakeTable(10, 2);
    table.failures.push(
      responseError(
        404,
        "The output _7 is gone: deleted, or past IPython's output cache"
      )
    );
    const { grid, staticOutput } = setup(table);
    const modes: string[] = [];
    grid.modeChanged.connect((_, mode) => modes.push(mode));
    grid.showGrid();
    await grid.explorer!.model.settled();
    expect(grid.mode).toBe('gone');
    expect(modes).toEqual(['grid', 'gone']);
    expect(staticOutput.isHidden).toBe(false);
    expect(grid.explorer!.isHidden).toBe(true);
    expect(testId(grid, 'kernel-state-output-grid-message').textContent).toBe(
      "This output's value is gone (deleted, or past IPython's output cache): the static table is shown."
    );
    expect(testId(grid, 'kernel-state-output-grid-toggle').hidden).toBe(true);
    grid.showGrid(); // a gone value stays gone
    expect(grid.mode).toBe('gone');
    grid.dispose();
  });

  it('turns gone when the kernel restarts, even while static', () => {
    const { grid, staticOutput } = setup(new FakeTable(10, 2));
    grid.markGone();
    expect(grid.mode).toBe('gone');
    expect(grid.explorer).toBeNull();
    expect(staticOutput.isHidden).toBe(false);
    expect(
      testId(grid, 'kernel-state-output-grid-message').textContent
    ).toContain('gone');
    grid.dispose();
  });
});
