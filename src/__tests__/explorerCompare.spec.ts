/**
 * "Compare with…": the comparison tab's model (its query: the other table, the key, the
 * statuses, the page; paging; an answer after a newer question dropped; errors) and its
 * view (the status line's counts, the rows by status, a changed cell highlighted before
 * → after, the columns' changes, Copy and Insert of the code); a kept version of the
 * table ("Keep this version", `with=@12`): its words, the chooser listing it beside the
 * other tables, keeping with the caps' refusal and eviction — with the REST seam mocked.
 */
import { Dialog, InputDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import {
  comparisonText,
  ComparisonModel,
  PAGE_ROWS
} from '../explorer/compare/model';
import {
  bytesText,
  keepVersion,
  keptText,
  keptWith,
  withLabel
} from '../explorer/compare/keep';
import { pickOther, splitKey } from '../explorer/compare/open';
import { ComparisonView } from '../explorer/compare/view';
import {
  ICompareQuery,
  IComparedRow,
  IKeptVersion,
  IKeptVersions,
  IKernelStateService,
  ITableComparison
} from '../tokens';
import { flush, responseError, trans } from './explorerFakes';

function comparison(
  rows: IComparedRow[],
  extra: Partial<ITableComparison> = {}
): ITableComparison {
  return {
    name: 'clean',
    with: 'raw',
    with_execution: null,
    type: 'DataFrame',
    with_type: 'DataFrame',
    library: 'pandas',
    by: 'key',
    key: ['order_id'],
    key_note: null,
    total_rows: 998,
    with_rows: 1000,
    added: 1,
    removed: 3,
    changed: 331,
    unchanged: 666,
    columns: [
      {
        name: 'price',
        position: 1,
        with_position: 1,
        dtype: 'float64',
        with_dtype: 'float64',
        changed: 2,
        error: null,
        mean: 101,
        with_mean: 100,
        nulls: 0,
        with_nulls: 3
      },
      {
        name: 'region',
        position: 2,
        with_position: 2,
        dtype: 'str',
        with_dtype: 'str',
        changed: 0,
        error: null,
        mean: null,
        with_mean: null,
        nulls: 0,
        with_nulls: 0
      }
    ],
    only_in_name: ['margin'],
    only_in_name_total: 1,
    only_in_with: [],
    only_in_with_total: 0,
    not_compared: [],
    not_compared_total: 0,
    statuses: ['added', 'removed', 'changed'],
    listed_rows: 335,
    filtered_rows: null,
    offset: 0,
    limit: 100,
    window_columns: [
      { name: 'price', position: 0, dtype: 'float64', with_dtype: 'float64' },
      { name: 'region', position: 1, dtype: 'str', with_dtype: 'str' }
    ],
    rows,
    view: { sort: [], filter: null },
    sort: null,
    filter: null,
    cells_truncated: 0,
    cells_unread: 0,
    code: { syntax: 'pandas', code: 'import numpy as np\n' },
    code_note: null,
    compare_ms: 12,
    reused: false,
    stale: false,
    kernel_busy: false,
    epoch: 0,
    generation: 4,
    ...extra
  };
}

const ROWS: IComparedRow[] = [
  {
    status: 'changed',
    position: 0,
    key: ['1'],
    cells: ['101.0', 'North'],
    changes: [{ column: 0, before: '100.0', after: '101.0' }],
    changed_cells: 1
  },
  {
    status: 'added',
    position: 997,
    key: ['5000'],
    cells: ['1.0', null],
    changes: [],
    changed_cells: 0
  },
  {
    status: 'removed',
    position: 5,
    key: ['6'],
    cells: [null, 'south'],
    changes: [],
    changed_cells: 0
  }
];

function setup(key: string[] = ['order_id']) {
  const queries: ICompareQuery[] = [];
  const answers: (ITableComparison | Error)[] = [];
  const fetch = jest.fn(async (query: ICompareQuery) => {
    queries.push(query);
    const answer =
      answers.shift() ?? comparison(ROWS, { offset: query.offset });
    if (answer instanceof Error) {
      throw answer;
    }
    return answer;
  });
  const model = new ComparisonModel({
    name: 'clean',
    other: 'raw',
    key,
    fetch
  });
  return { model, queries, answers, fetch };
}

describe('ComparisonModel', () => {
  it('asks the other table, the key and a page, and pages through the rows listed', async () => {
    const { model, queries } = setup();
    await model.load();
    expect(queries[0]).toEqual({
      with: 'raw',
      key: 'order_id',
      offset: 0,
      limit: PAGE_ROWS
    });
    expect(model.listed).toBe(335);
    expect(model.hasPrevious).toBe(false);
    expect(model.hasNext).toBe(true);
    await model.next();
    expect(queries[1].offset).toBe(100);
    await model.next();
    await model.next();
    expect(model.offset).toBe(300);
    expect(model.hasNext).toBe(false);
    await model.previous();
    expect(model.offset).toBe(200);
    await model.setStatuses(['removed']);
    expect(queries[queries.length - 1]).toMatchObject({
      offset: 0,
      status: ['removed']
    });
  });

  it('writes a key whose names hold commas as a JSON list, and none without one', () => {
    expect(setup(['a,b', 'c']).model.query().key).toBe('["a,b","c"]');
    expect(setup([]).model.query()).toEqual({
      with: 'raw',
      offset: 0,
      limit: PAGE_ROWS
    });
    expect(splitKey(' region, day ,,')).toEqual(['region', 'day']);
  });

  it('keeps the newest answer and says why one failed', async () => {
    const { model, answers } = setup();
    answers.push(
      responseError(400, 'the key is not unique in raw: 2 values repeat')
    );
    await model.load();
    expect(model.error).toBe('the key is not unique in raw: 2 values repeat');
    expect(model.comparison).toBeNull();
    let release: (value: ITableComparison) => void = () => undefined;
    const slow = new Promise<ITableComparison>(resolve => (release = resolve));
    const fetch = jest
      .fn()
      .mockImplementationOnce(() => slow)
      .mockImplementation(async () => comparison(ROWS, { changed: 7 }));
    const raced = new ComparisonModel({ name: 'clean', other: 'raw', fetch });
    const first = raced.load();
    await raced.load(100);
    release(comparison(ROWS, { changed: 1 }));
    await first;
    expect(raced.comparison?.changed).toBe(7);
    raced.dispose();
    expect(raced.isDisposed).toBe(true);
  });
});

describe('ComparisonView', () => {
  it('shows the counts, the rows by status and a changed cell before → after', async () => {
    const { model } = setup();
    const copied: string[] = [];
    const inserted: string[] = [];
    const view = new ComparisonView({
      model,
      trans,
      copy: text => copied.push(text),
      insert: async code => {
        inserted.push(code);
        return 'analysis.ipynb';
      }
    });
    Widget.attach(view, document.body);
    await model.load();
    await flush();
    const node = view.node;
    const status = node.querySelector(
      '[data-test-id="kernel-state-compare-status"]'
    );
    expect(status?.textContent).toBe(
      'clean vs raw by key order_id: 1 added, 3 removed, 331 changed, 666 unchanged · rows 1–3 of 335'
    );
    expect(comparisonText(trans, comparison([]), 0)).toContain(
      'no rows listed'
    );
    const headers = [...node.querySelectorAll('th')].map(th => th.textContent);
    expect(headers).toEqual(['status', 'order_id', 'price', 'region']);
    const first = node.querySelector(
      '[data-test-id="kernel-state-compare-row-0"]'
    )!;
    expect(first.className).toBe('jp-KernelState-compare-changed');
    const changed = first.querySelectorAll(
      '[data-test-id="kernel-state-compare-changed"]'
    );
    expect(changed).toHaveLength(1);
    expect(changed[0].textContent).toBe('100.0 → 101.0');
    expect(changed[0].className).toBe('jp-KernelState-compareChanged');
    const removed = node.querySelector(
      '[data-test-id="kernel-state-compare-row-2"]'
    )!;
    expect(removed.className).toBe('jp-KernelState-compare-removed');
    expect(
      [...removed.querySelectorAll('td')].map(td => td.textContent)
    ).toEqual(['removed', '6', 'null', 'south']);
    const columns = node.querySelector(
      '[data-test-id="kernel-state-compare-columns"]'
    )!;
    expect(
      [...columns.querySelectorAll('li')].map(li => li.textContent)
    ).toEqual([
      'price: 2 cells changed, mean 100 → 101, missing 3 → 0',
      'only in clean: margin'
    ]);

    (
      node.querySelector(
        '[data-test-id="kernel-state-compare-copy"]'
      ) as HTMLElement
    ).click();
    expect(copied).toEqual(['import numpy as np\n']);
    (
      node.querySelector(
        '[data-test-id="kernel-state-compare-insert"]'
      ) as HTMLElement
    ).click();
    await flush();
    expect(inserted).toEqual(['import numpy as np\n']);
    expect(view.message).toBe('Inserted in analysis.ipynb');

    const next = node.querySelector(
      '[data-test-id="kernel-state-compare-next"]'
    ) as HTMLButtonElement;
    expect(next.disabled).toBe(false);
    const statuses = node.querySelector(
      '[data-test-id="kernel-state-compare-statuses"]'
    ) as HTMLSelectElement;
    statuses.value = 'all';
    statuses.dispatchEvent(new Event('change'));
    await flush();
    expect(model.statuses).toEqual([
      'added',
      'removed',
      'changed',
      'unchanged'
    ]);
    view.dispose();
  });

  it('says why no key was used and why there is no code', async () => {
    const fetch = async () =>
      comparison([], {
        by: 'position',
        key: null,
        key_note: 'no key given and both indexes are the default 0 … n-1',
        code: null,
        code_note: 'the code names columns by their labels'
      });
    const model = new ComparisonModel({ name: 'clean', other: 'raw', fetch });
    const view = new ComparisonView({ model, trans });
    await model.load();
    const note = view.node.querySelector(
      '[data-test-id="kernel-state-compare-note"]'
    );
    expect(note?.textContent).toBe(
      'no key given and both indexes are the default 0 … n-1'
    );
    const copy = view.node.querySelector(
      '[data-test-id="kernel-state-compare-copy"]'
    ) as HTMLButtonElement;
    expect(copy.disabled).toBe(true);
    expect(copy.title).toBe('the code names columns by their labels');
    const insert = view.node.querySelector(
      '[data-test-id="kernel-state-compare-insert"]'
    ) as HTMLButtonElement;
    expect(insert.hidden).toBe(true);
    expect(
      [...view.node.querySelectorAll('th')].map(th => th.textContent)[1]
    ).toBe('position');
    view.dispose();
  });
});

function version(name: string, execution: number, bytes = 2048): IKeptVersion {
  return {
    name,
    execution_count: execution,
    type: 'DataFrame',
    library: 'pandas',
    rows: 200,
    columns: 3,
    bytes
  };
}

function versions(
  name: string,
  kept: IKeptVersion[],
  extra: Partial<IKeptVersions> = {}
): IKeptVersions {
  return {
    name,
    versions: kept,
    kept_total: kept.length,
    bytes_total: kept.reduce((sum, v) => sum + v.bytes, 0),
    max_kept: 5,
    max_kept_bytes: 512 * 1024 * 1024,
    kept: null,
    replaced: false,
    dropped: [],
    stale: false,
    kernel_busy: false,
    epoch: 0,
    generation: 3,
    ...extra
  };
}

describe('a kept version', () => {
  it('is named @12 on the wire and "sales as of [12]" to people', async () => {
    expect(keptWith(12)).toBe('@12');
    expect(withLabel(trans, 'sales', '@12')).toBe('sales as of [12]');
    expect(withLabel(trans, 'sales', 'raw@3')).toBe('raw as of [3]');
    expect(withLabel(trans, 'sales', 'raw')).toBe('raw');
    expect(bytesText(512)).toBe('512 B');
    expect(bytesText(3 * 1024 * 1024 + 1024 * 100)).toBe('3.1 MiB');
    const got = comparison(ROWS, {
      name: 'sales',
      with: 'sales',
      with_execution: 12,
      code_note: 'sales_at_12 is sales as of [12], a copy the extension keeps'
    });
    expect(comparisonText(trans, got, 0)).toMatch(
      /^sales vs sales as of \[12\] by key order_id: /
    );
    const fetch = jest.fn(async (query: ICompareQuery) => got);
    const model = new ComparisonModel({ name: 'sales', other: '@12', fetch });
    const view = new ComparisonView({ model, trans });
    expect(view.node.getAttribute('aria-label')).toBe(
      'sales compared with sales as of [12]'
    );
    await model.load();
    expect(fetch.mock.calls[0][0].with).toBe('@12');
    const note = view.node.querySelector(
      '[data-test-id="kernel-state-compare-note"]'
    ) as HTMLElement;
    expect(note.hidden).toBe(false);
    expect(note.textContent).toContain('a copy the extension keeps');
    view.dispose();
  });

  it('says what keeping did: kept, replaced, dropped, the caps', () => {
    const text = keptText(
      trans,
      versions('sales', [version('raw', 2, 1024), version('sales', 12)], {
        kept: version('sales', 12),
        replaced: true,
        dropped: [version('old', 1)],
        max_kept: 2
      })
    );
    expect(text).toBe(
      'Kept sales as of [12] (2 KiB); compare with it through Compare with…. ' +
        'It replaces the version kept at that execution. ' +
        'Dropped to make room: old as of [1]. ' +
        '2 of 2 versions, 3 KiB of 512 MiB kept in this kernel.'
    );
  });
});

/**
 * A service that answers the chooser's and the keep button's requests.
 */
function keepingService(
  keep: (evict: boolean) => Promise<IKeptVersions>,
  kept: IKeptVersion[] = []
) {
  const calls: boolean[] = [];
  const service = {
    keep: jest.fn(async (_name: string, evict = false) => {
      calls.push(evict);
      return keep(evict);
    }),
    keptVersions: jest.fn(async (name: string) => versions(name, kept)),
    listVariables: jest.fn(async () => ({
      variables: [
        { name: 'sales', kind: 'dataframe' },
        { name: 'raw', kind: 'dataframe' },
        { name: 'n', kind: 'number' }
      ]
    }))
  } as unknown as IKernelStateService;
  return { service, calls };
}

describe('keeping and choosing a kept version', () => {
  afterEach(() => jest.restoreAllMocks());

  it('lists the kept versions, newest first, beside the other tables', async () => {
    const { service } = keepingService(
      async () => versions('sales', []),
      [version('sales', 3), version('sales', 9)]
    );
    const items: string[][] = [];
    jest.spyOn(InputDialog, 'getItem').mockImplementation(async options => {
      items.push([...options.items]);
      return {
        button: Dialog.okButton(),
        value: 'sales as of [9]',
        isChecked: null
      };
    });
    jest.spyOn(InputDialog, 'getText').mockResolvedValue({
      button: Dialog.okButton(),
      value: 'order_id',
      isChecked: null
    });
    const picked = await pickOther(service, 'k1', 'sales', trans);
    expect(items[0]).toEqual(['sales as of [9]', 'sales as of [3]', 'raw']);
    expect(picked).toEqual({ other: '@9', key: ['order_id'] });
  });

  it('asks before dropping the oldest when the caps leave no room', async () => {
    const full = responseError(
      409,
      'no room to keep sales (2,048 bytes): 5 of 5 versions …'
    );
    const { service, calls } = keepingService(async evict => {
      if (!evict) {
        throw full;
      }
      return versions('sales', [version('sales', 12)], {
        kept: version('sales', 12),
        dropped: [version('raw', 1)]
      });
    });
    const dialogs: string[] = [];
    const dialog = jest.spyOn(Dialog.prototype, 'launch');
    dialog.mockImplementation(async function (this: Dialog<unknown>) {
      dialogs.push(String(this.node.textContent));
      return { button: Dialog.warnButton(), value: null, isChecked: null };
    });
    const got = await keepVersion(service, 'k1', 'sales', trans);
    expect(calls).toEqual([false, true]);
    expect(dialogs[0]).toContain('Drop the oldest kept versions');
    expect(got?.dropped.map(v => v.name)).toEqual(['raw']);

    // Declined: nothing is kept; another refusal is only shown.
    dialog.mockImplementation(async () => ({
      button: Dialog.cancelButton(),
      value: null,
      isChecked: null
    }));
    calls.length = 0;
    expect(await keepVersion(service, 'k1', 'sales', trans)).toBeNull();
    expect(calls).toEqual([false]);
    const tooBig = keepingService(async () => {
      throw responseError(422, 'sales is 600 bytes, past the 500 bytes');
    });
    expect(await keepVersion(tooBig.service, 'k1', 'sales', trans)).toBeNull();
    expect(tooBig.calls).toEqual([false]);
  });
});
