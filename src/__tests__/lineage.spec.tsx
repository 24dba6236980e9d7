/**
 * Lineage in the sidebar: the inspector's "Defined in" / "Used in" lists (newest first,
 * a cell's first line, a click goes to the cell), the inspector model asking the
 * timeline again after a cell that only read the name, and the list's "used by the
 * active cell" view (`used_by_cell`), following the active cell.
 */
import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import {
  lineageText,
  VariableInspector
} from '../components/VariableInspector';
import { InspectorModel } from '../models/inspector';
import { VariableListModel } from '../models/list/model';
import { ITimeline } from '../tokens';
import {
  fakeService,
  makeDetail,
  makeSnapshot,
  makeTimeline,
  makeVariable,
  sleep
} from './helpers';
import { host, render, useReactHost } from './react';

const trans = nullTranslator.load('jupyter_kernel_state');

useReactHost();

const base = {
  crumbs: ['df'],
  loading: false,
  error: null,
  onCrumb: jest.fn(),
  onDrill: jest.fn(),
  onClose: jest.fn(),
  trans
};

function lineage(extra: Partial<ITimeline> = {}): ITimeline {
  return makeTimeline('df', {
    defined_in: [
      {
        execution_count: 2,
        cell_id: 'c-load',
        code: 'df = pd.read_csv(p)\ndf = df.dropna()',
        kind: 'bound'
      },
      {
        execution_count: 5,
        cell_id: null,
        code: "df['x'] += 1",
        kind: 'changed'
      }
    ],
    used_in: [
      {
        execution_count: 7,
        cell_id: 'c-fn',
        code: 'def f():\n    return df.x',
        in_function: true
      }
    ],
    unknown: [],
    lineage_totals: { defined_in: 3, used_in: 1, unknown: 0, not_analysed: 0 },
    ...extra
  });
}

function items(testId: string): string[] {
  return [...host.querySelectorAll(`[data-test-id="${testId}"] li`)].map(
    li => li.textContent ?? ''
  );
}

describe('the inspector lineage', () => {
  it('lists where a name was defined and used, newest first', () => {
    const onGoToCell = jest.fn(() => true);
    render(
      <VariableInspector
        {...base}
        detail={makeDetail('df')}
        timeline={lineage()}
        onGoToCell={onGoToCell}
      />
    );
    expect(items('kernel-state-defined-in')).toEqual([
      "[5] df['x'] += 1 (changed)",
      '[2] df = pd.read_csv(p)'
    ]);
    expect(items('kernel-state-used-in')).toEqual([
      '[7] def f(): (in a function)'
    ]);
    expect(host.textContent).toContain('Defined in (2 of 3)');
    expect(host.querySelector('[data-test-id="kernel-state-unknown-in"]')).toBe(
      null
    );
    // an entry whose cell is known goes to it; one without a cell id is text
    const links = [
      ...host.querySelectorAll<HTMLButtonElement>(
        '[data-test-id="kernel-state-defined-in"] button'
      )
    ];
    expect(links.map(b => b.dataset.cellId)).toEqual(['c-load']);
    React.act(() => links[0].click());
    expect(onGoToCell).toHaveBeenCalledWith('c-load');
  });

  it('lists dynamic access, and nothing for a kernel without lineage', () => {
    render(
      <VariableInspector
        {...base}
        detail={makeDetail('df')}
        timeline={lineage({
          unknown: [
            {
              execution_count: 9,
              cell_id: 'c-dyn',
              code: "globals()['df'] = 1",
              reasons: ['globals()']
            }
          ]
        })}
      />
    );
    expect(items('kernel-state-unknown-in')).toEqual([
      "[9] globals()['df'] = 1 (globals())"
    ]);
    // without onGoToCell, no links
    expect(host.querySelectorAll('.jp-KernelState-lineageLink')).toHaveLength(
      0
    );
    render(
      <VariableInspector
        {...base}
        detail={makeDetail('df')}
        timeline={makeTimeline('df')}
      />
    );
    expect(host.querySelector('[data-test-id="kernel-state-defined-in"]')).toBe(
      null
    );
    expect(host.textContent).not.toContain('Defined in');
  });

  it('writes an execution as its number and first line', () => {
    expect(
      lineageText(
        { execution_count: 3, cell_id: null, code: 'del x', kind: 'deleted' },
        trans
      )
    ).toBe('[3] del x (deleted)');
    expect(
      lineageText(
        { execution_count: 4, cell_id: 'c', code: 'y = x\nz = 1' },
        trans
      )
    ).toBe('[4] y = x');
  });
});

describe('InspectorModel and lineage', () => {
  it('asks the timeline again after a cell that only read the name', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(
      makeSnapshot({ variables: [makeVariable('df')], generation: 1 })
    );
    service.inspect.mockResolvedValue(makeDetail('df'));
    const model = new InspectorModel({ service });
    await model.select('df');
    await sleep(0);
    expect(service.timeline).toHaveBeenCalledTimes(1);
    expect(service.inspect).toHaveBeenCalledTimes(1);
    service.model.setSnapshot(
      makeSnapshot({
        variables: [makeVariable('df', { change: 'unchanged' })],
        generation: 2,
        execution_count: 2
      })
    );
    await sleep(0);
    expect(service.timeline).toHaveBeenCalledTimes(2);
    expect(service.inspect).toHaveBeenCalledTimes(1); // the value did not change
    model.dispose();
  });
});

describe('the "used by the active cell" view', () => {
  function setup() {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(
      makeSnapshot({
        variables: ['a', 'b', 'c'].map(n => makeVariable(n)),
        total: 3,
        generation: 3,
        execution_count: 3
      })
    );
    service.variables.mockImplementation(async query =>
      makeSnapshot({
        variables: query.used_by_cell === 'cell-1' ? [makeVariable('b')] : [],
        total: 3,
        matched: query.used_by_cell === 'cell-1' ? 1 : 0,
        generation: 3
      })
    );
    return { service, model: new VariableListModel({ service }) };
  }

  it('lists what the active cell bound or read, and follows the cell', async () => {
    const { service, model } = setup();
    model.setActiveCell('cell-1');
    model.setUsedByCell(true);
    expect(model.usedByCell).toBe(true);
    await sleep(0);
    expect(service.variables).toHaveBeenLastCalledWith(
      expect.objectContaining({ used_by_cell: 'cell-1', offset: 0 })
    );
    expect(service.variables.mock.calls[0][0]).not.toHaveProperty('changed_in');
    expect(model.rows.map(r => r.variable.name)).toEqual(['b']);
    expect(model.changedView).toEqual({
      executionCount: 3,
      matched: 1,
      loading: false,
      error: null,
      byCell: true,
      cellId: 'cell-1'
    });
    model.setActiveCell('cell-2');
    await sleep(0);
    expect(service.variables).toHaveBeenLastCalledWith(
      expect.objectContaining({ used_by_cell: 'cell-2' })
    );
    expect(model.rows).toEqual([]);
    // no active cell: nothing to ask
    const calls = service.variables.mock.calls.length;
    model.setActiveCell(null);
    await sleep(0);
    expect(service.variables.mock.calls.length).toBe(calls);
    expect(model.changedView?.cellId).toBeNull();
    // the changed view replaces it; off again, the whole list
    model.setChangedOnly(true);
    await sleep(0);
    expect(model.usedByCell).toBe(false);
    expect(service.variables).toHaveBeenLastCalledWith(
      expect.objectContaining({ changed_in: 3 })
    );
    model.setChangedOnly(false);
    expect(model.rows.map(r => r.variable.name)).toEqual(['a', 'b', 'c']);
    model.dispose();
  });

  it('does not ask while the view is off', async () => {
    const { service, model } = setup();
    model.setActiveCell('cell-1');
    await sleep(0);
    expect(service.variables).not.toHaveBeenCalled();
    expect(model.activeCell).toBe('cell-1');
    model.setUsedByCell(true);
    model.setUsedByCell(false);
    await sleep(0);
    expect(model.changedView).toBeNull();
    model.dispose();
  });
});
