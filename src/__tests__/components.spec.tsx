import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';

import { Simulate } from 'react-dom/test-utils';

import { KernelStatePanel } from '../components/KernelStatePanel';
import { VariableList } from '../components/VariableList';
import { formatShape, identifierAt, makeFilter } from '../format';
import { KernelStateModel } from '../models/kernel';
import { DEFAULT_COLUMN_WIDTHS } from '../models/list/widths';
import { ISnapshot } from '../tokens';
import { makeSnapshot, makeVariable } from './helpers';
import { host, render, useReactHost } from './react';

const trans = nullTranslator.load('jupyter_kernel_state');
const HOSTILE = '<img src=x onerror=alert(1)>';

useReactHost();

function rows(): HTMLElement[] {
  return [
    ...host.querySelectorAll<HTMLElement>('[data-test-id="kernel-state-row"]')
  ];
}

describe('VariableList', () => {
  const many = Array.from({ length: 10_000 }, (_, i) => makeVariable(`v${i}`));

  it('renders only a window of 10,000 rows', () => {
    render(
      <VariableList
        variables={many}
        sort="name"
        selected={null}
        trans={trans}
        initialHeight={240}
      />
    );
    const rendered = rows();
    expect(rendered.length).toBeGreaterThan(5);
    expect(rendered.length).toBeLessThan(50);
    expect(rendered[0].dataset.name).toBe('v0');
    const spacer = host.querySelector<HTMLElement>('.jp-KernelState-spacer')!;
    expect(spacer.style.height).toBe(`${10_000 * 24}px`);
    expect(
      host.querySelector('[role="grid"]')?.getAttribute('aria-rowcount')
    ).toBe('10001');
  });

  it('renders the rows in view after scrolling', () => {
    render(
      <VariableList
        variables={many}
        sort="name"
        selected={null}
        trans={trans}
        initialHeight={240}
      />
    );
    const body = host.querySelector<HTMLElement>('.jp-KernelState-gridBody')!;
    React.act(() => {
      body.scrollTop = 5000 * 24;
      body.dispatchEvent(new Event('scroll', { bubbles: true }));
    });
    const names = rows().map(row => row.dataset.name);
    expect(names).toContain('v5000');
    expect(names).not.toContain('v0');
    expect(names.length).toBeLessThan(50);
  });

  it('renders hostile names and previews as text', () => {
    render(
      <VariableList
        variables={[
          makeVariable(HOSTILE, { preview: `'${HOSTILE}'`, type: HOSTILE })
        ]}
        sort="name"
        selected={null}
        trans={trans}
      />
    );
    expect(host.querySelector('img')).toBeNull();
    const row = rows()[0];
    expect(row.dataset.name).toBe(HOSTILE);
    expect(row.textContent).toContain(HOSTILE);
    expect(row.textContent).toContain(`'${HOSTILE}'`);
  });

  it('marks likely secrets with a lock that says why', () => {
    render(
      <VariableList
        variables={[
          makeVariable('api_key', {
            likely_secret: true,
            secret_reason: 'its name looks like a credential'
          }),
          makeVariable('n')
        ]}
        sort="name"
        selected={null}
        trans={trans}
      />
    );
    const badges = host.querySelectorAll<HTMLElement>(
      '[data-test-id="kernel-state-secret"]'
    );
    expect(badges).toHaveLength(1);
    expect(badges[0].title).toBe('its name looks like a credential');
    expect(
      badges[0]
        .closest('[data-test-id="kernel-state-row"]')
        ?.getAttribute('data-name')
    ).toBe('api_key');
  });

  it('marks new and modified rows with the execution count', () => {
    render(
      <VariableList
        variables={[
          makeVariable('a', { change: 'new', changed_at: 3 }),
          makeVariable('b', { change: 'modified', changed_at: 3 }),
          makeVariable('c')
        ]}
        sort="name"
        selected={null}
        trans={trans}
      />
    );
    const [a, b, c] = rows();
    expect(a.classList).toContain('jp-mod-new');
    expect(a.textContent).toContain('new [3]');
    expect(b.classList).toContain('jp-mod-modified');
    expect(c.className).toBe('jp-KernelState-row');
  });

  it('sorts through the column headers and selects with the keyboard', () => {
    const onSort = jest.fn();
    const onSelect = jest.fn();
    render(
      <VariableList
        variables={[makeVariable('a'), makeVariable('b')]}
        sort="name"
        onSort={onSort}
        selected="a"
        onSelect={onSelect}
        trans={trans}
      />
    );
    const buttons = host.querySelectorAll<HTMLButtonElement>(
      '.jp-KernelState-sortButton'
    );
    React.act(() => buttons[1].click());
    expect(onSort).toHaveBeenCalledWith('type');
    const grid = host.querySelector<HTMLElement>('[role="grid"]')!;
    React.act(() => {
      grid.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true })
      );
    });
    expect(onSelect).toHaveBeenCalledWith('b');
  });
});

describe('KernelStatePanel', () => {
  const KERNEL = { id: 'k1', name: 'Python 3', source: 'a.ipynb' };

  /**
   * The followed kernel's model showing `snapshot` (a real model: its status, busy
   * and error follow from what it was given).
   */
  function kernelModel(snapshot: ISnapshot | null = makeSnapshot()) {
    const model = new KernelStateModel();
    model.setKernel(KERNEL);
    if (snapshot) {
      model.setSnapshot(snapshot);
    }
    return model;
  }

  /**
   * The sidebar's view of `model`: its rows are the snapshot's variables.
   */
  function view(
    model: KernelStateModel,
    extra: Partial<KernelStatePanel.IView> = {}
  ): KernelStatePanel.IView {
    return {
      list: {
        rows: (model.snapshot?.variables ?? []).map(variable => ({
          variable,
          removed: false
        })),
        widths: { ...DEFAULT_COLUMN_WIDTHS },
        setWidth: jest.fn(),
        counts: model.snapshot
          ? {
              loaded: model.snapshot.variables.length,
              selected: model.snapshot.matched ?? model.snapshot.total,
              total: model.snapshot.total
            }
          : null,
        hasMore: false,
        loadingMore: false,
        loadMore: jest.fn(async () => undefined),
        changedOnly: false,
        changedView: null,
        setChangedOnly: jest.fn(),
        setUsedByCell: jest.fn(),
        activeCell: null
      },
      inspector: { selected: null, select: jest.fn(), close: jest.fn() },
      options: { sort: 'name', include: [], limit: 2000 },
      pattern: '',
      showPreview: true,
      setPattern: jest.fn(),
      setSort: jest.fn(),
      toggleInclude: jest.fn(),
      open: jest.fn(),
      openMenu: jest.fn(),
      refresh: jest.fn(),
      ...extra
    };
  }

  const byTestId = (id: string) => host.querySelector(`[data-test-id="${id}"]`);

  it('shows the busy banner for a stale snapshot of a busy kernel', () => {
    const model = kernelModel(
      makeSnapshot({ stale: true, kernel_busy: true, execution_count: 4 })
    );
    expect(model.isBusy).toBe(true);
    render(<KernelStatePanel model={model} view={view(model)} trans={trans} />);
    expect(byTestId('kernel-state-busy-banner')?.textContent).toBe(
      'Kernel busy — showing state as of execution 4'
    );
  });

  it('shows the empty, no-kernel, error and unsupported states', () => {
    let model = kernelModel(makeSnapshot({ variables: [] }));
    render(<KernelStatePanel model={model} view={view(model)} trans={trans} />);
    expect(byTestId('kernel-state-empty')?.textContent).toBe(
      'No variables yet — run a cell'
    );
    expect(byTestId('kernel-state-total')?.textContent).toContain(
      '0 variables'
    );

    model = new KernelStateModel();
    expect(model.status).toBe('no-kernel');
    render(<KernelStatePanel model={model} view={view(model)} trans={trans} />);
    expect(byTestId('kernel-state-no-kernel')).not.toBeNull();

    model = kernelModel(null);
    model.setError('error', 'Kernel does not exist: k1');
    render(<KernelStatePanel model={model} view={view(model)} trans={trans} />);
    expect(byTestId('kernel-state-error')?.textContent).toBe(
      'Kernel does not exist: k1'
    );

    model = kernelModel(null);
    model.setError('unsupported', 'No probe for javascript');
    render(<KernelStatePanel model={model} view={view(model)} trans={trans} />);
    expect(byTestId('kernel-state-unsupported')).not.toBeNull();
  });

  it('filters by name or type with wildcards', () => {
    const model = kernelModel(
      makeSnapshot({
        variables: [
          makeVariable('df', { type: 'DataFrame' }),
          makeVariable('df_small', { type: 'DataFrame' }),
          makeVariable('x')
        ]
      })
    );
    render(
      <KernelStatePanel
        model={model}
        view={view(model, { pattern: 'data*' })}
        trans={trans}
      />
    );
    expect(rows().map(r => r.dataset.name)).toEqual(['df', 'df_small']);
    expect(byTestId('kernel-state-total')?.textContent).toBe(
      '2 of 3 variables match the filter · execution 1'
    );
  });

  it('hands the controls to the view and its models', () => {
    const model = kernelModel();
    const shown = view(model);
    render(<KernelStatePanel model={model} view={shown} trans={trans} />);
    const filter = host.querySelector<HTMLInputElement>(
      '.jp-KernelState-filter'
    )!;
    Simulate.change(filter, { target: { value: 'x*' } as HTMLInputElement });
    expect(shown.setPattern).toHaveBeenCalledWith('x*');
    const toggles = host.querySelectorAll<HTMLInputElement>(
      '.jp-KernelState-toggle input'
    );
    Simulate.change(toggles[1]);
    expect(shown.toggleInclude).toHaveBeenCalledWith('modules');
    React.act(() =>
      host.querySelector<HTMLElement>('.jp-KernelState-refresh')!.click()
    );
    expect(shown.refresh).toHaveBeenCalled();
    React.act(() => {
      rows()[0].dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
    });
    expect(shown.open).toHaveBeenCalledWith('x');
    React.act(() => {
      rows()[0].dispatchEvent(
        new MouseEvent('contextmenu', {
          bubbles: true,
          cancelable: true,
          clientX: 5,
          clientY: 6
        })
      );
    });
    expect(shown.inspector.select).toHaveBeenCalledWith('x');
    expect(shown.openMenu).toHaveBeenCalledWith('x', 5, 6);
  });
});

describe('format', () => {
  it('formats shapes and sizes', () => {
    expect(formatShape({ shape: [3, 1], size: 3 })).toBe('3×1');
    expect(formatShape({ shape: [100000, 8], size: 800000 })).toBe('100,000×8');
    expect(formatShape({ shape: null, size: 1234 })).toBe('1,234');
    expect(formatShape({ shape: null, size: null })).toBe('');
    // An engine's table whose rows were not counted (`rows: null`).
    expect(formatShape({ shape: [null, 3], size: null })).toBe('?×3');
  });

  it('matches substrings and anchored wildcards', () => {
    const v = { name: 'sales_2024', type: 'DataFrame' };
    expect(makeFilter('')(v)).toBe(true);
    expect(makeFilter('SALES')(v)).toBe(true);
    expect(makeFilter('frame')(v)).toBe(true);
    expect(makeFilter('sales*')(v)).toBe(true);
    expect(makeFilter('*2024')(v)).toBe(true);
    expect(makeFilter('sal*23')(v)).toBe(false);
    expect(makeFilter('(')(v)).toBe(false);
    expect(makeFilter('a.b*')({ name: 'axb1', type: 'int' })).toBe(false);
  });

  it('finds the variable name of a selection or a cursor', () => {
    const source = 'total = sales.units.sum()\nx1 = 2';
    expect(identifierAt(source, 0, 5)).toBe('total');
    expect(identifierAt(source, 0, 6)).toBe('total');
    expect(identifierAt(source, 0, 9)).toBeNull();
    expect(identifierAt(source, 10)).toBe('sales');
    expect(identifierAt(source, 16)).toBe('sales');
    expect(identifierAt(source, 8)).toBe('sales');
    expect(identifierAt(source, 6)).toBeNull();
    expect(identifierAt(source, source.length)).toBeNull();
    expect(identifierAt('größe = 1', 2)).toBe('größe');
    expect(identifierAt('1abc', 2)).toBeNull();
  });
});
