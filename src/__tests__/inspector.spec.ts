import { nullTranslator } from '@jupyterlab/translation';
import * as React from 'react';
import { Simulate } from 'react-dom/test-utils';

import { VariableInspector } from '../components/VariableInspector';
import {
  attributesShown,
  InspectorModel,
  keysShown,
  secretExplanation
} from '../models/inspector';
import { IVariableDetail } from '../tokens';
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

/**
 * A str's detail as the server sends it: its 47 public attributes, every one a method.
 */
function stringDetail(): IVariableDetail {
  const names = ['capitalize', 'center', 'count', 'encode', 'upper'];
  return makeDetail('api_key', {
    likely_secret: true,
    masked: true,
    secret_reason: 'its name looks like a credential',
    attributes: names.map(name => ({ name, type: 'method' })),
    attributes_total: 47
  });
}

function inspector(
  detail: IVariableDetail,
  extra: Partial<React.ComponentProps<typeof VariableInspector>> = {}
): void {
  render(
    React.createElement(VariableInspector, {
      crumbs: [detail.name],
      detail,
      loading: false,
      error: null,
      onCrumb: () => undefined,
      onDrill: () => undefined,
      onClose: () => undefined,
      trans,
      ...extra
    })
  );
}

function byTestId(id: string): HTMLElement | null {
  return host.querySelector<HTMLElement>(`[data-test-id="${id}"]`);
}

function sectionTitles(): string[] {
  return [...host.querySelectorAll('summary')].map(s => s.textContent ?? '');
}

function setup() {
  const service = fakeService();
  service.model.setKernel({ id: 'k1', name: 'Python 3', source: 'a.ipynb' });
  service.model.setSnapshot(
    makeSnapshot({ variables: [makeVariable('x'), makeVariable('y')] })
  );
  const model = new InspectorModel({ service });
  let changes = 0;
  model.changed.connect(() => changes++);
  return { service, model, changes: () => changes };
}

describe('InspectorModel', () => {
  it('loads the selected variable, with loading state and signals', async () => {
    const { service, model, changes } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    expect(model.selected).toBeNull();
    expect(model.crumbs).toEqual([]);
    const done = model.select('x');
    expect(model.loading).toBe(true);
    expect(model.selected).toBe('x');
    await done;
    expect(service.inspect).toHaveBeenCalledWith('x', []);
    expect(model.loading).toBe(false);
    expect(model.detail?.name).toBe('x');
    expect(model.atTop).toBe(true);
    expect(model.crumbs).toEqual(['x']);
    // loading, loaded — and the name's timeline, asked beside the detail
    expect(service.timeline).toHaveBeenCalledWith('x', 20);
    expect(changes()).toBe(3);
    await model.select('x');
    expect(service.inspect).toHaveBeenCalledTimes(1);
    model.dispose();
  });

  it('drills into children and back through the breadcrumb', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    await model.drill({
      access_key: 'a',
      label: "['a']",
      type: 'list',
      preview: ''
    });
    await model.drill({
      access_key: 0,
      label: '[0]',
      type: 'int',
      preview: ''
    });
    expect(service.inspect).toHaveBeenLastCalledWith('x', ['a', 0]);
    expect(model.crumbs).toEqual(['x', "['a']", '[0]']);
    expect(model.atTop).toBe(false);
    await model.crumb(1);
    expect(service.inspect).toHaveBeenLastCalledWith('x', ['a']);
    expect(model.path.map(step => step.label)).toEqual(["['a']"]);
    await model.crumb(0);
    expect(service.inspect).toHaveBeenLastCalledWith('x', []);
    expect(model.atTop).toBe(true);
    model.dispose();
  });

  it('keeps only the last answer and shows the server error', async () => {
    const { service, model } = setup();
    let release: (detail: IVariableDetail) => void = () => undefined;
    service.inspect
      .mockImplementationOnce(
        () => new Promise<IVariableDetail>(resolve => (release = resolve))
      )
      .mockRejectedValueOnce(new Error('no such variable'));
    const first = model.select('x');
    const second = model.select('y');
    release(makeDetail('x'));
    await Promise.all([first, second]);
    expect(model.detail).toBeNull();
    expect(model.error).toBe('no such variable');
    expect(model.loading).toBe(false);
    model.close();
    expect(model.selected).toBeNull();
    expect(model.error).toBeNull();
    model.dispose();
  });

  it('reloads a changed variable and closes a removed one on a new generation', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    service.model.setSnapshot(
      makeSnapshot({
        generation: 2,
        variables: [makeVariable('x'), makeVariable('y')]
      })
    );
    await sleep(1);
    expect(service.inspect).toHaveBeenCalledTimes(1);
    service.model.setSnapshot(
      makeSnapshot({
        generation: 3,
        variables: [makeVariable('x', { change: 'modified' })]
      })
    );
    await sleep(1);
    expect(service.inspect).toHaveBeenCalledTimes(2);
    // Beyond the loaded page: kept open.
    service.model.setSnapshot(
      makeSnapshot({ generation: 4, variables: [makeVariable('y')], total: 3 })
    );
    expect(model.selected).toBe('x');
    service.model.setSnapshot(
      makeSnapshot({ generation: 5, variables: [makeVariable('y')] })
    );
    expect(model.selected).toBeNull();
    expect(model.detail).toBeNull();
    model.dispose();
  });

  it('saves and clears the note of the shown variable', async () => {
    const { service, model } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    service.annotate.mockResolvedValue({
      name: 'x',
      description: 'the answer',
      constraints: 'positive',
      hidden_from_prompt: false,
      updated_at: ''
    });
    service.clearAnnotation.mockResolvedValue(undefined);
    await model.select('x');
    expect(model.annotated).toBe(false);
    await model.annotate({
      description: 'the answer',
      constraints: 'positive'
    });
    expect(service.annotate).toHaveBeenCalledWith('x', {
      description: 'the answer',
      constraints: 'positive'
    });
    expect(model.detail?.description).toBe('the answer');
    expect(model.annotated).toBe(true);
    await model.clearAnnotation();
    expect(service.clearAnnotation).toHaveBeenCalledWith('x');
    expect(model.detail?.description).toBeNull();
    expect(model.annotated).toBe(false);
    service.annotate.mockRejectedValueOnce(new Error('too long'));
    await expect(model.annotate({ description: 'z' })).rejects.toThrow(
      'too long'
    );
    model.dispose();
  });

  it('dispose clears its signals and stops following the service', async () => {
    const { service, model, changes } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    const before = changes();
    model.dispose();
    expect(model.isDisposed).toBe(true);
    service.model.setSnapshot(makeSnapshot({ generation: 9, variables: [] }));
    model.close();
    expect(changes()).toBe(before);
    expect(service.inspect).toHaveBeenCalledTimes(1);
  });
});

describe('a quiet inspector', () => {
  it.each([
    ['its name looks like a credential', 'its name'],
    ['a key inside looks like a credential', 'a key inside'],
    ['its key looks like a credential', 'its key'],
    [
      'its value looks like an OpenAI-style key',
      'its value (an OpenAI-style key)'
    ],
    [null, '']
  ])('explains %p once as %p', (reason, expected) => {
    expect(secretExplanation(reason)).toBe(expected);
  });

  it('lists data before methods and hides the methods unless asked', () => {
    const detail = makeDetail('run', {
      attributes: [
        { name: 'lr', type: 'float' },
        { name: 'size', type: 'property' },
        { name: 'fit', type: 'method' },
        { name: 'load', type: 'classmethod' }
      ],
      attributes_total: 6
    });
    expect(attributesShown(detail, false)).toEqual({
      listed: detail.attributes.slice(0, 2),
      methods: 2,
      unsent: 2
    });
    expect(attributesShown(detail, true).listed).toEqual(detail.attributes);
  });

  it('lists a dict’s keys apart only when no items show them', () => {
    const child = {
      access_key: 'k:"a"',
      label: "'a'",
      type: 'int',
      preview: '1'
    };
    expect(
      keysShown(makeDetail('d', { keys: ["'a'"], children: [child] }))
    ).toBe(false);
    expect(keysShown(makeDetail('d', { keys: ["'a'"], children: [] }))).toBe(
      true
    );
    expect(keysShown(makeDetail('d', { keys: null }))).toBe(false);
  });

  it('toggles the methods in the model, kept across variables', async () => {
    const { service, model, changes } = setup();
    service.inspect.mockResolvedValue(makeDetail('x'));
    await model.select('x');
    expect(model.showMethods).toBe(false);
    const before = changes();
    model.toggleMethods();
    expect(model.showMethods).toBe(true);
    expect(changes()).toBe(before + 1);
    await model.select('y');
    expect(model.showMethods).toBe(true);
    model.toggleMethods();
    expect(model.showMethods).toBe(false);
    model.dispose();
  });

  it('renders a str without its methods until the toggle shows them', () => {
    let shown = false;
    const draw = () =>
      inspector(stringDetail(), {
        showMethods: shown,
        onToggleMethods: () => {
          shown = !shown;
          draw();
        }
      });
    draw();
    expect(byTestId('kernel-state-attributes')).toBeNull();
    expect(sectionTitles()).toContain('Attributes (0 of 47)');
    const toggle = byTestId('kernel-state-methods-toggle')!;
    expect(toggle.textContent).toBe('Show 5 methods');
    expect(host.textContent).toContain('42 more not listed.');
    Simulate.click(toggle);
    const rows = byTestId('kernel-state-attributes')!.querySelectorAll('tr');
    expect([...rows].map(r => r.cells[0].textContent)).toEqual([
      'capitalize',
      'center',
      'count',
      'encode',
      'upper'
    ]);
    expect(byTestId('kernel-state-methods-toggle')!.textContent).toBe(
      'Hide methods'
    );
    expect(sectionTitles()).toContain('Attributes (5 of 47)');
  });

  it('says why a value looks like a credential once', () => {
    inspector(stringDetail());
    expect(byTestId('kernel-state-secret-note')!.textContent).toBe(
      'Looks like a credential: its name. Masked.'
    );
    inspector(stringDetail(), { revealed: true });
    expect(byTestId('kernel-state-secret-note')!.textContent).toBe(
      'Looks like a credential: its name. Shown here only; masked everywhere else.'
    );
  });

  it('shows a dict’s items without repeating its keys', () => {
    const children = ['a', 'b'].map(key => ({
      access_key: `k:"${key}"`,
      label: `'${key}'`,
      type: 'int',
      preview: '1'
    }));
    inspector(
      makeDetail('d', {
        kind: 'mapping',
        keys: ["'a'", "'b'"],
        keys_total: 2,
        children,
        children_total: 2
      })
    );
    expect(sectionTitles().filter(t => t.startsWith('Keys'))).toEqual([]);
    expect(sectionTitles()).toContain('Items (2 of 2)');
  });

  it('shows first rows with their labels, and without when the table has no index', () => {
    const head = (index: string[] | null) =>
      makeDetail('t', {
        kind: 'dataframe',
        shape: [3, 2],
        head: {
          columns: ['a', 'b'],
          index,
          rows: [
            ['1', 'x'],
            ['2', 'y']
          ]
        }
      });
    inspector(head(['r0', 'r1']));
    const labelled = byTestId('kernel-state-head')!;
    expect(
      [...labelled.querySelectorAll('tr')].map(r => r.textContent)
    ).toEqual(['ab', 'r01x', 'r12y']);
    // A polars DataFrame or a list of records: `index` null, no label column.
    inspector(head(null));
    const plain = byTestId('kernel-state-head')!;
    expect([...plain.querySelectorAll('tr')].map(r => r.cells.length)).toEqual([
      2, 2, 2
    ]);
    expect([...plain.querySelectorAll('tr')].map(r => r.textContent)).toEqual([
      'ab',
      '1x',
      '2y'
    ]);
  });

  it('shows an engine table whose rows were not counted as ?×columns', () => {
    inspector(
      makeDetail('orders', {
        type: 'DataFrame',
        qualname: 'pyspark.sql.dataframe.DataFrame',
        kind: 'dataframe',
        shape: [null, 3]
      })
    );
    expect(host.querySelector('.jp-KernelState-typeLine')!.textContent).toBe(
      'pyspark.sql.dataframe.DataFrame ·\u00a0?×3'
    );
  });
});
