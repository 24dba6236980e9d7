/**
 * The list and inspector views of issue 12: layouts, keyboard, context menu, resize,
 * removed and changed rows, masked secrets and Reveal, the timeline; the inspector
 * model's reveal and timeline.
 */
import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import {
  timelineText,
  VariableInspector
} from '../components/VariableInspector';
import {
  COMPACT_ROW_HEIGHT,
  CHANGES_LINE_HEIGHT,
  ROW_HEIGHT
} from '../components/listLayout';
import { VariableList } from '../components/VariableList';
import { MASKED_TEXT } from '../format';
import { InspectorModel } from '../models/inspector';
import { IListRow } from '../models/list/removed';
import { ITimeline, IVariable } from '../tokens';
import {
  fakeService,
  makeDetail,
  makeSnapshot,
  makeVariable,
  sleep
} from './helpers';
import { host, render, useReactHost } from './react';

const trans = nullTranslator.load('jupyter_kernel_state');

useReactHost();

function rows(): HTMLElement[] {
  return [
    ...host.querySelectorAll<HTMLElement>('[data-test-id="kernel-state-row"]')
  ];
}

function grid(): HTMLElement {
  return host.querySelector<HTMLElement>('[role="grid"]')!;
}

function key(target: HTMLElement, key: string, extra = {}): void {
  React.act(() => {
    target.dispatchEvent(
      new KeyboardEvent('keydown', { key, bubbles: true, ...extra })
    );
  });
}

const NAMES = ['alpha', 'beta', 'sales', 'sample', 'zeta'];
const asRows = (variables: IVariable[], removed: string[] = []): IListRow[] =>
  variables.map(variable => ({
    variable,
    removed: removed.includes(variable.name)
  }));

describe('VariableList (issue 12)', () => {
  function list(props: Partial<React.ComponentProps<typeof VariableList>>) {
    const handlers = {
      onSelect: jest.fn(),
      onOpen: jest.fn(),
      onEscape: jest.fn(),
      onContextMenu: jest.fn(),
      onSort: jest.fn(),
      onResize: jest.fn()
    };
    render(
      <VariableList
        variables={NAMES.map(n => makeVariable(n))}
        sort="name"
        selected={null}
        trans={trans}
        {...handlers}
        {...props}
      />
    );
    return handlers;
  }

  it('goes compact when the columns do not fit: two lines a row', () => {
    list({ initialWidth: 250 });
    expect(grid().dataset.layout).toBe('compact');
    const spacer = host.querySelector<HTMLElement>('.jp-KernelState-spacer')!;
    expect(spacer.style.height).toBe(`${NAMES.length * COMPACT_ROW_HEIGHT}px`);
    // no resize handles in the compact header
    expect(host.querySelector('[role="separator"]')).toBeNull();
  });

  it('shows columns with resize handles when they fit; arrows resize', () => {
    const { onResize } = list({ initialWidth: 800 });
    expect(grid().dataset.layout).toBe('columns');
    expect(grid().style.getPropertyValue('--jp-kernel-state-columns')).toBe(
      '120px 96px 72px 68px minmax(80px, 1fr)'
    );
    const handle = host.querySelector<HTMLElement>(
      '[data-test-id="kernel-state-resize-name"]'
    )!;
    expect(handle.getAttribute('aria-valuenow')).toBe('120');
    key(handle, 'ArrowRight');
    expect(onResize).toHaveBeenCalledWith('name', 136);
    key(handle, 'ArrowLeft');
    expect(onResize).toHaveBeenLastCalledWith('name', 104);
    // the grid does not take the handle's keys as navigation
    list({ initialWidth: 800, selected: 'beta' });
  });

  it('keeps header labels whole and marks both sort directions', () => {
    const { onSort } = list({ sort: 'memory:asc' });
    const headers = [
      ...host.querySelectorAll<HTMLElement>('[role="columnheader"]')
    ];
    expect(
      headers.map(h => h.querySelector('button, span')?.textContent)
    ).toEqual(['Name', 'Type', 'Size', 'Memory ▲', 'Preview']);
    expect(headers[3].getAttribute('aria-sort')).toBe('ascending');
    expect(headers[0].getAttribute('aria-sort')).toBeNull();
    React.act(() => headers[3].querySelector('button')!.click());
    expect(onSort).toHaveBeenCalledWith('memory');
    React.act(() => headers[0].querySelector('button')!.click());
    expect(onSort).toHaveBeenLastCalledWith('name');
    list({ sort: 'name:desc' });
    const name = host.querySelector('[role="columnheader"]')!;
    expect(name.getAttribute('aria-sort')).toBe('descending');
    expect(name.textContent).toContain('Name ▼');
  });

  it('Home, End, Enter, Escape, Shift+F10 and type-ahead', () => {
    const handlers = list({ selected: 'beta' });
    key(grid(), 'End');
    expect(handlers.onSelect).toHaveBeenLastCalledWith('zeta');
    key(grid(), 'Home');
    expect(handlers.onSelect).toHaveBeenLastCalledWith('alpha');
    key(grid(), 'Enter');
    expect(handlers.onOpen).toHaveBeenCalledWith('beta');
    key(grid(), 'F10', { shiftKey: true });
    expect(handlers.onContextMenu).toHaveBeenCalledWith(
      'beta',
      expect.any(Number),
      expect.any(Number)
    );
    key(grid(), 'ContextMenu');
    expect(handlers.onContextMenu).toHaveBeenCalledTimes(2);
    key(grid(), 's');
    expect(handlers.onSelect).toHaveBeenLastCalledWith('sales');
    key(grid(), 'Escape');
    expect(handlers.onEscape).toHaveBeenCalledTimes(1);
  });

  it('Escape with nothing selected, and Enter, do nothing', () => {
    const handlers = list({ selected: null });
    key(grid(), 'Escape');
    key(grid(), 'Enter');
    expect(handlers.onEscape).not.toHaveBeenCalled();
    expect(handlers.onOpen).not.toHaveBeenCalled();
  });

  it('selects a first row after the double-click interval, so a double-click opens it', () => {
    jest.useFakeTimers();
    try {
      const handlers = list({ selected: null });
      const click = (row: HTMLElement, detail: number) =>
        React.act(() => {
          row.dispatchEvent(new MouseEvent('click', { bubbles: true, detail }));
        });
      click(rows()[2], 1);
      // not yet: this selection opens the inspector, which would move the rows
      expect(handlers.onSelect).not.toHaveBeenCalled();
      React.act(() => {
        jest.advanceTimersByTime(300);
      });
      expect(handlers.onSelect).toHaveBeenCalledWith('sales');
      handlers.onSelect.mockClear();
      click(rows()[1], 1);
      click(rows()[1], 2);
      React.act(() => {
        rows()[1].dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
        jest.advanceTimersByTime(300);
      });
      expect(handlers.onOpen).toHaveBeenCalledWith('beta');
      expect(handlers.onSelect).not.toHaveBeenCalled();
      // a key pressed while a click waits acts on the clicked row at once
      click(rows()[3], 1);
      key(grid(), 'ArrowDown');
      expect(handlers.onSelect.mock.calls.map(c => c[0])).toEqual([
        'sample',
        'zeta'
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('with a row selected (the inspector open), a click selects at once', () => {
    const handlers = list({ selected: 'alpha' });
    React.act(() => {
      rows()[2].dispatchEvent(
        new MouseEvent('click', { bubbles: true, detail: 1 })
      );
    });
    expect(handlers.onSelect).toHaveBeenCalledWith('sales');
  });

  it('opens on double-click and the menu on right-click', () => {
    const handlers = list({});
    const row = rows()[2];
    React.act(() => {
      row.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    });
    expect(handlers.onOpen).toHaveBeenCalledWith('sales');
    React.act(() => {
      row.dispatchEvent(
        new MouseEvent('contextmenu', {
          bubbles: true,
          cancelable: true,
          clientX: 10,
          clientY: 20
        })
      );
    });
    expect(handlers.onSelect).toHaveBeenCalledWith('sales');
    expect(handlers.onContextMenu).toHaveBeenCalledWith('sales', 10, 20);
  });

  it('shows changes on a line of their own, removed rows struck, memory', () => {
    const variables = [
      makeVariable('df', {
        change: 'modified',
        changed_at: 11,
        changes: ['rows 100,000 → 95,991', 'column revenue added'],
        memory: 6 * 1024 * 1024
      }),
      makeVariable('gone'),
      makeVariable('n', { memory: 28 })
    ];
    render(
      <VariableList
        rows={asRows(variables, ['gone'])}
        sort="name"
        selected={null}
        trans={trans}
        initialWidth={800}
      />
    );
    const [df, gone, n] = rows();
    const changes = df.querySelector('[data-test-id="kernel-state-changes"]')!;
    expect(changes.textContent).toBe(
      'rows 100,000 → 95,991; column revenue added'
    );
    expect(
      df
        .querySelector('[data-test-id="kernel-state-change"]')!
        .getAttribute('title')
    ).toBe(
      'Modified in execution 11\nrows 100,000 → 95,991\ncolumn revenue added'
    );
    expect(df.style.height).toBe(`${ROW_HEIGHT + CHANGES_LINE_HEIGHT}px`);
    expect(gone.classList).toContain('jp-mod-removed');
    expect(gone.dataset.change).toBe('removed');
    expect(gone.textContent).toContain('removed');
    expect(gone.style.top).toBe(`${ROW_HEIGHT + CHANGES_LINE_HEIGHT}px`);
    expect(df.querySelector('.jp-KernelState-col-memory')!.textContent).toBe(
      '6.0 MiB'
    );
    expect(n.querySelector('.jp-KernelState-col-memory')!.textContent).toBe(
      '28 B'
    );
  });

  it('masks the previews of secrets', () => {
    render(
      <VariableList
        variables={[
          makeVariable('api_key', {
            likely_secret: true,
            masked: true,
            preview: '[masked]'
          }),
          makeVariable('token', { likely_secret: true, preview: "'sk-1'" })
        ]}
        sort="name"
        selected={null}
        trans={trans}
      />
    );
    for (const row of rows()) {
      expect(
        row.querySelector('[data-test-id="kernel-state-preview"]')!.textContent
      ).toBe(MASKED_TEXT);
    }
    expect(host.textContent).not.toContain('sk-1');
  });
});

describe('VariableInspector (issue 12)', () => {
  const base = {
    crumbs: ['x'],
    loading: false,
    error: null,
    onCrumb: jest.fn(),
    onDrill: jest.fn(),
    onClose: jest.fn(),
    trans
  };

  it('shows one error line', () => {
    render(
      <VariableInspector
        {...base}
        error="repr timed out; repr timed out"
        detail={makeDetail('x', { error: 'repr timed out; repr timed out' })}
      />
    );
    expect(
      host.querySelector('[data-test-id="kernel-state-field-error"]')!
        .textContent
    ).toBe('repr timed out');
    expect(host.querySelector('[role="alert"]')!.textContent).toBe(
      'repr timed out'
    );
  });

  it('masks a secret until revealed, with a Reveal button', () => {
    const onReveal = jest.fn();
    const secret = makeDetail('api_key', {
      likely_secret: true,
      masked: true,
      repr: '[masked]'
    });
    render(<VariableInspector {...base} detail={secret} onReveal={onReveal} />);
    const repr = host.querySelector('[data-test-id="kernel-state-repr"]')!;
    expect(repr.textContent).toBe(MASKED_TEXT);
    const reveal = host.querySelector<HTMLButtonElement>(
      '[data-test-id="kernel-state-reveal"]'
    )!;
    React.act(() => reveal.click());
    expect(onReveal).toHaveBeenCalled();
    render(
      <VariableInspector
        {...base}
        detail={{ ...secret, masked: false, repr: "'sk-demo-1'" }}
        revealed
        onReveal={onReveal}
      />
    );
    expect(
      host.querySelector('[data-test-id="kernel-state-repr"]')!.textContent
    ).toBe("'sk-demo-1'");
    expect(
      host.querySelector('[data-test-id="kernel-state-reveal"]')
    ).toBeNull();
  });

  it('lists the timeline newest first and offers the explorer for tables', () => {
    const onOpenExplorer = jest.fn();
    const timeline: ITimeline = {
      name: 'sales',
      total: 2,
      limit: 20,
      complete_after: null,
      exists: true,
      entries: [
        { execution_count: 3, change: 'new', changes: [] },
        {
          execution_count: 11,
          change: 'modified',
          changes: ['column revenue added']
        }
      ]
    };
    render(
      <VariableInspector
        {...base}
        detail={makeDetail('sales', { kind: 'dataframe', type: 'DataFrame' })}
        timeline={timeline}
        onOpenExplorer={onOpenExplorer}
      />
    );
    const items = [
      ...host.querySelectorAll('[data-test-id="kernel-state-timeline"] li')
    ].map(li => li.textContent);
    expect(items).toEqual(['[11] modified — column revenue added', '[3] new']);
    React.act(() =>
      host
        .querySelector<HTMLButtonElement>(
          '[data-test-id="kernel-state-open-explorer"]'
        )!
        .click()
    );
    expect(onOpenExplorer).toHaveBeenCalled();
    render(
      <VariableInspector
        {...base}
        detail={makeDetail('n')}
        onOpenExplorer={onOpenExplorer}
      />
    );
    expect(
      host.querySelector('[data-test-id="kernel-state-open-explorer"]')
    ).toBeNull();
    expect(
      timelineText(
        { execution_count: 4, change: 'removed', changes: [] },
        trans
      )
    ).toBe('[4] removed');
  });
});

describe('InspectorModel reveal and timeline', () => {
  it('reveals until another variable is selected, and loads the timeline', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.model.setSnapshot(
      makeSnapshot({ variables: [makeVariable('api_key'), makeVariable('y')] })
    );
    const timeline: ITimeline = {
      name: 'api_key',
      total: 1,
      limit: 20,
      complete_after: null,
      exists: true,
      entries: [{ execution_count: 1, change: 'new', changes: [] }]
    };
    service.timeline.mockResolvedValue(timeline);
    service.inspect.mockImplementation(async (name: string) =>
      makeDetail(name, {
        likely_secret: name === 'api_key',
        masked: name === 'api_key',
        repr: name === 'api_key' ? '[masked]' : '2'
      })
    );
    service.detail.mockResolvedValue(
      makeDetail('api_key', { likely_secret: true, repr: "'sk-1'" })
    );
    const model = new InspectorModel({ service });
    await model.select('api_key');
    await sleep(0);
    expect(service.timeline).toHaveBeenCalledWith('api_key', 20);
    expect(model.timeline).toEqual(timeline);
    expect(model.canReveal).toBe(true);
    expect(model.detail?.repr).toBe('[masked]');
    await model.reveal();
    expect(service.detail).toHaveBeenCalledWith('api_key', {
      path: [],
      reveal: true
    });
    expect(model.revealed).toBe(true);
    expect(model.canReveal).toBe(false);
    expect(model.detail?.repr).toBe("'sk-1'");
    await model.select('y');
    expect(model.revealed).toBe(false);
    await model.select('api_key');
    expect(model.detail?.repr).toBe('[masked]');
    expect(service.detail).toHaveBeenCalledTimes(1);
    model.dispose();
  });

  it('keeps no timeline when the server has none', async () => {
    const service = fakeService();
    service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
    service.inspect.mockResolvedValue(makeDetail('x'));
    service.timeline.mockRejectedValue(new Error('Not Found'));
    const model = new InspectorModel({ service });
    await model.select('x');
    await sleep(0);
    expect(model.timeline).toBeNull();
    expect(model.timelineError).toBe('Not Found');
    expect(model.canReveal).toBe(false);
    model.dispose();
  });
});
