/**
 * The data-quality findings in the explorer: the loader (after the grid, bounded,
 * following the filter and the value, a busy kernel retried, failures kept), the
 * badges of the summary panel, the Findings list (Show rows through the model and
 * the filter bar, Insert fix as Convert to Code inserts, both disabled with the
 * kernel's reason, the fixes' syntax, the muted line), the toolbar's toggle, the
 * findings read again when the variable changed, every string translated.
 */
import './canvasStub';

import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { DEFAULT_NUMBER_FORMAT } from '../explorer/data/numbers';
import { FindingsLoader, MAX_FINDINGS } from '../explorer/findings/model';
import { FindingsPanel } from '../explorer/findings/panel';
import { findingsNote, fixSyntaxChoices } from '../explorer/findings/text';
import { SummaryPanel } from '../explorer/summary/panel';
import { ProfileLoader } from '../explorer/summary/profile';
import { createExplorer, DataExplorer } from '../explorer/widget';
import { FilterNode } from '../tokens';
import {
  FakeTable,
  FINDINGS,
  flush,
  makeFinding,
  makeModel,
  markingTranslator,
  responseError,
  trans
} from './explorerFakes';

const OUTLIERS = FINDINGS[0].filter as FilterNode;

function byTestId<T extends HTMLElement>(node: HTMLElement, id: string): T[] {
  return [...node.querySelectorAll(`[data-test-id="${id}"]`)] as T[];
}

describe('FindingsLoader', () => {
  it('asks once when wanted, bounded, after the grid, and indexes them by column', async () => {
    const table = new FakeTable(100, 3);
    let release: () => void = () => undefined;
    const idle = new Promise<void>(resolve => (release = resolve));
    const loader = new FindingsLoader({
      fetch: table.findings,
      idle: () => idle
    });
    expect(table.findingsQueries).toHaveLength(0); // not wanted: not asked
    loader.want();
    loader.want();
    expect(loader.loading).toBe(true);
    await flush();
    expect(table.findingsQueries).toHaveLength(0); // the grid fetches first
    release();
    await loader.settled();
    expect(table.findingsQueries).toEqual([{ max_findings: MAX_FINDINGS }]);
    expect(loader.loading).toBe(false);
    expect(loader.findings?.findings).toHaveLength(4);
    expect(loader.about(0).map(f => f.kind)).toEqual([
      'outliers',
      'correlated'
    ]);
    expect(loader.about(2).map(f => f.kind)).toEqual(['constant']);
    expect(loader.about(7)).toEqual([]);
    expect(loader.ownSyntax).toBe('pandas');
    loader.dispose();
  });

  it('checks the rows a filter keeps, and the value as it is now', async () => {
    const table = new FakeTable(100, 3);
    const loader = new FindingsLoader({ fetch: table.findings });
    loader.setVersion('1:0:');
    loader.want();
    await loader.settled();
    const filter: FilterNode = { column: 'c0', op: 'lt', value: '10' };
    loader.setFilter(filter);
    expect(loader.findings).toBeNull(); // forgotten
    loader.want();
    await loader.settled();
    expect(table.findingsQueries.at(-1)).toEqual({
      max_findings: MAX_FINDINGS,
      filter
    });
    // The server combines the view's filter with each finding's.
    expect(loader.findings?.findings[0].filter).toEqual({
      and: [filter, OUTLIERS]
    });
    loader.setFilter({ ...filter }); // the same filter: kept
    expect(loader.findings).not.toBeNull();
    loader.setVersion('1:0:changed'); // the watch saw it change (a fix ran)
    expect(loader.findings).toBeNull();
    loader.want();
    await loader.settled();
    expect(table.findingsQueries).toHaveLength(3);
    loader.dispose();
  });

  it('retries a busy kernel, keeps a failure until a reset', async () => {
    const table = new FakeTable(100, 3);
    table.failures.push(
      responseError(503, 'busy', { 'Retry-After': '2' }),
      responseError(409, 'polars LazyFrame is lazy')
    );
    const waits: number[] = [];
    const loader = new FindingsLoader({
      fetch: table.findings,
      wait: ms => {
        waits.push(ms);
        return Promise.resolve();
      }
    });
    loader.want();
    await loader.settled();
    expect(waits).toEqual([2000]);
    expect(loader.error).toBe('polars LazyFrame is lazy');
    expect(loader.findings).toBeNull();
    loader.want(); // not asked again
    await loader.settled();
    expect(table.findingsQueries).toHaveLength(2);
    loader.reload(); // Check again
    await loader.settled();
    expect(loader.error).toBeNull();
    expect(loader.findings?.findings_total).toBe(4);
    loader.dispose();
  });

  it('asks the fixes in another syntax, the value keeping its own', async () => {
    const table = new FakeTable(100, 3);
    const loader = new FindingsLoader({
      fetch: table.findings,
      maxFindings: 2
    });
    loader.want();
    await loader.settled();
    loader.setSyntax('dplyr');
    loader.want();
    await loader.settled();
    expect(table.findingsQueries.at(-1)).toEqual({
      max_findings: 2,
      syntax: 'dplyr'
    });
    expect(loader.ownSyntax).toBe('pandas');
    expect(loader.findings?.findings[1].fix).toBe(
      '# dplyr\ndf = df.drop_duplicates()'
    );
    expect(loader.findings?.findings_cut).toBe(2);
    expect(fixSyntaxChoices('pandas')).toEqual(['pandas', 'dplyr']);
    expect(fixSyntaxChoices('dplyr')).toEqual(['dplyr']);
    expect(fixSyntaxChoices(null)).toEqual([]);
    loader.dispose();
  });
});

describe('the findings muted line', () => {
  it('says what was cut, not checked, failed and sampled', async () => {
    const table = new FakeTable(100, 150);
    table.findingsReply = {
      findings_cut: 3,
      columns_cut: 2,
      not_checked: [{ kind: 'correlated', reason: 'not for DuckDB tables' }],
      errors: [{ check: 'outliers', column: 'c4', error: 'ran out of time' }],
      sampled: true,
      sample_rows: 1000000,
      view: { sort: [], filter: null, columns: [...Array(100).keys()] }
    };
    const reply = await table.findings({});
    expect(findingsNote(reply, trans)).toEqual({
      text:
        '3 more findings not listed · 100 of 150 columns checked · ' +
        '2 columns not checked in time · not checked: correlated columns · ' +
        '1 check failed · checked on a sample of 1,000,000 rows',
      title:
        'correlated columns: not for DuckDB tables\noutliers (c4): ran out of time'
    });
  });
});

describe('badges in the summary panel', () => {
  it('shows the count and most severe finding of each column, the messages as tooltip', async () => {
    const table = new FakeTable(100, 4);
    const model = makeModel(table);
    await model.load();
    const loader = new ProfileLoader({ fetch: table.profile });
    const findings = new FindingsLoader({ fetch: table.findings });
    const panel = new SummaryPanel({
      model,
      loader,
      trans,
      onGoTo: () => undefined,
      numberFormat: DEFAULT_NUMBER_FORMAT,
      findings
    });
    Widget.attach(panel, document.body);
    await findings.settled(); // asked by the panel shown
    await flush();
    const badges = byTestId(panel.node, 'kernel-state-finding-badge');
    expect(badges.map(badge => badge.hidden)).toEqual([
      false,
      false,
      false,
      true
    ]);
    expect(badges.map(badge => badge.dataset.severity)).toEqual([
      'warning',
      'info',
      'info',
      undefined
    ]);
    expect(badges[0].textContent).toBe('▲ 2');
    expect(badges[0].getAttribute('aria-label')).toBe(
      '2 findings, the most severe: Warning'
    );
    expect(badges[0].title).toBe(
      'Warning: c0: 4 outliers (IQR rule: outside [2, 97])\n' +
        'Note: c0 and c1 are correlated (r = 0.99)'
    );
    // A new filter: forgotten, asked again by the panel.
    findings.setFilter({ column: 'c0', op: 'lt', value: '10' });
    expect(badges[0].hidden).toBe(true);
    await findings.settled();
    expect(table.findingsQueries).toHaveLength(2);
    expect(badges[0].hidden).toBe(false);
    panel.dispose();
    findings.dispose();
  });
});

describe('FindingsPanel', () => {
  async function setup() {
    const table = new FakeTable(100, 3);
    const model = makeModel(table);
    await model.load();
    const loader = new FindingsLoader({ fetch: table.findings });
    const shown: (FilterNode | null)[] = [];
    const inserted: string[] = [];
    let where: string | null = 'analysis.ipynb';
    const panel = new FindingsPanel({
      model,
      loader,
      trans,
      showRows: async filter => {
        shown.push(filter);
        await model.setFilter(filter);
        return model.filterError === null;
      },
      insert: async code => {
        inserted.push(code);
        return where;
      }
    });
    panel.hide();
    Widget.attach(panel, document.body);
    const lines = () => byTestId(panel.node, 'kernel-state-finding');
    const get = <T extends HTMLElement>(line: HTMLElement, id: string) =>
      line.querySelector(`[data-test-id="kernel-state-finding-${id}"]`) as T;
    const noWhere = () => (where = null);
    return {
      table,
      model,
      loader,
      panel,
      shown,
      inserted,
      lines,
      get,
      noWhere
    };
  }

  it('lists one line per finding once shown, its severity and message', async () => {
    const { table, loader, panel, lines } = await setup();
    await flush();
    expect(table.findingsQueries).toHaveLength(0); // hidden: nothing asked
    panel.show();
    await loader.settled();
    expect(lines().map(line => line.dataset.severity)).toEqual([
      'warning',
      'warning',
      'info',
      'info'
    ]);
    const first = lines()[0];
    expect(
      first.querySelector('.jp-KernelState-findingMessage')?.textContent
    ).toBe('c0: 4 outliers (IQR rule: outside [2, 97])');
    expect(
      first
        .querySelector('.jp-KernelState-findingMarker')
        ?.getAttribute('aria-label')
    ).toBe('Warning');
    const counts = byTestId(panel.node, 'kernel-state-findings-counts')[0];
    expect(counts.textContent).toBe('2 warnings · 2 notes');
    panel.dispose();
  });

  it('Show rows applies the finding’s filter; disabled with the kernel’s reason', async () => {
    const { model, loader, panel, shown, lines, get } = await setup();
    panel.show();
    await loader.settled();
    const duplicates = get<HTMLButtonElement>(lines()[1], 'show-rows');
    expect(duplicates.disabled).toBe(true);
    expect(duplicates.title).toBe('no filter says "equal to another row"');
    get<HTMLButtonElement>(lines()[0], 'show-rows').click();
    await flush(10);
    expect(shown).toEqual([OUTLIERS]);
    expect(model.filter).toEqual(OUTLIERS);
    // The finding shown stays above the list, with a way back.
    const line = byTestId(panel.node, 'kernel-state-findings-shown')[0];
    expect(line.hidden).toBe(false);
    expect(line.textContent).toContain('c0: 4 outliers');
    byTestId<HTMLButtonElement>(
      panel.node,
      'kernel-state-findings-back'
    )[0].click();
    await flush(10);
    expect(shown.at(-1)).toBeNull();
    expect(model.filter).toBeNull();
    expect(line.hidden).toBe(true);
    panel.dispose();
  });

  it('Insert fix inserts the fix code; disabled with the kernel’s reason', async () => {
    const { loader, panel, inserted, lines, get, noWhere } = await setup();
    panel.show();
    await loader.settled();
    const correlated = get<HTMLButtonElement>(lines()[3], 'insert-fix');
    expect(correlated.disabled).toBe(true);
    expect(correlated.title).toBe('correlated columns need no fix');
    get<HTMLButtonElement>(lines()[1], 'insert-fix').click();
    await flush();
    expect(inserted).toEqual(['df = df.drop_duplicates()']);
    const status = byTestId(panel.node, 'kernel-state-findings-status')[0];
    expect(status.textContent).toBe(
      'Inserted in analysis.ipynb: run it, and the findings are read again'
    );
    noWhere();
    get<HTMLButtonElement>(lines()[0], 'insert-fix').click();
    await flush();
    expect(status.textContent).toBe('No open notebook runs this kernel');
    panel.dispose();
  });

  it('offers the fixes in the value’s syntax or dplyr, and says a failure', async () => {
    const { table, loader, panel, inserted, lines, get } = await setup();
    panel.show();
    await loader.settled();
    const syntax = byTestId<HTMLSelectElement>(
      panel.node,
      'kernel-state-findings-syntax'
    )[0];
    expect([...syntax.options].map(o => o.textContent)).toEqual([
      'pandas (its own)',
      'dplyr'
    ]);
    syntax.value = 'dplyr';
    syntax.dispatchEvent(new Event('change'));
    await loader.settled();
    expect(table.findingsQueries.at(-1)?.syntax).toBe('dplyr');
    get<HTMLButtonElement>(lines()[2], 'insert-fix').click();
    await flush();
    expect(inserted).toEqual(["# dplyr\ndf = df.drop(columns=['c2'])"]);
    table.failures.push(responseError(400, 'dplyr fixes are for data frames'));
    loader.reload();
    await loader.settled();
    const empty = panel.node.querySelector('.jp-KernelState-findingsEmpty');
    expect(empty?.textContent).toBe('dplyr fixes are for data frames');
    expect(empty?.classList.contains('jp-mod-error')).toBe(true);
    panel.dispose();
  });
});

describe('findings in the explorer tab', () => {
  async function open(
    table: FakeTable,
    extra: Partial<DataExplorer.IOptions> = {}
  ): Promise<MainAreaWidget<DataExplorer>> {
    const model = makeModel(table);
    const panel = createExplorer({
      name: 'df',
      kernelId: 'k1',
      model,
      profile: table.profile,
      findings: table.findings,
      ...extra
    });
    Widget.attach(panel, document.body);
    await model.load();
    return panel;
  }

  it('toggles the list from the toolbar, its count on the toggle', async () => {
    const table = new FakeTable(100, 3);
    const panel = await open(table);
    const explorer = panel.content;
    const toggle = byTestId<HTMLButtonElement>(
      panel.toolbar.node,
      'kernel-state-findings-toggle'
    )[0];
    expect(explorer.findingsPanel.isHidden).toBe(true);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await explorer.profiles.settled();
    await explorer.findings.settled(); // the summary's badges asked them
    expect(toggle.textContent).toBe('Findings (4)');
    expect(toggle.dataset.severity).toBe('warning');
    toggle.click();
    expect(explorer.findingsPanel.isHidden).toBe(false);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(
      byTestId(explorer.findingsPanel.node, 'kernel-state-finding')
    ).toHaveLength(4);
    expect(table.findingsQueries).toHaveLength(1);
    panel.dispose();
  });

  it('Show rows filters the grid, the filter bar showing it', async () => {
    const table = new FakeTable(100, 3);
    const panel = await open(table);
    const explorer = panel.content;
    explorer.toggleFindings(true);
    await explorer.findings.settled();
    const line = byTestId(
      explorer.findingsPanel.node,
      'kernel-state-finding'
    )[0];
    byTestId<HTMLButtonElement>(
      line,
      'kernel-state-finding-show-rows'
    )[0].click();
    await flush(20);
    await explorer.model.settled();
    await flush();
    expect(explorer.model.filter).toEqual(OUTLIERS);
    expect(explorer.model.viewRows).toBe(4); // 0, 1, 98, 99
    expect(explorer.filterBar.draft.join).toBe('or');
    expect(
      explorer.filterBar.draft.items.map(item =>
        'op' in item ? [item.column, item.op, item.value] : null
      )
    ).toEqual([
      ['c0', 'lt', '2'],
      ['c0', 'gt', '97']
    ]);
    // The findings follow: those of the rows shown.
    await explorer.findings.settled();
    expect(table.findingsQueries.at(-1)?.filter).toEqual(OUTLIERS);
    panel.dispose();
  });

  it('inserts a fix as Convert to Code does, and reads the findings again once the variable changed', async () => {
    const table = new FakeTable(100, 3);
    const inserted: string[] = [];
    const panel = await open(table, {
      insertCode: async code => {
        inserted.push(code);
        return 'analysis.ipynb';
      }
    });
    const explorer = panel.content;
    explorer.toggleFindings(true);
    await explorer.findings.settled();
    const lines = byTestId(explorer.findingsPanel.node, 'kernel-state-finding');
    byTestId<HTMLButtonElement>(
      lines[1],
      'kernel-state-finding-insert-fix'
    )[0].click();
    await flush();
    expect(inserted).toEqual(['df = df.drop_duplicates()']);
    // The cell ran: the watch marks the rows stale; the findings are of the value now.
    table.findingsList = FINDINGS.filter(f => f.kind !== 'duplicate_rows');
    explorer.model.markStale('changed');
    await explorer.findings.settled();
    expect(table.findingsQueries).toHaveLength(2);
    expect(
      byTestId(explorer.findingsPanel.node, 'kernel-state-finding').map(
        line => line.dataset.kind
      )
    ).toEqual(['outliers', 'constant', 'correlated']);
    panel.dispose();
  });

  it('puts every string of the findings through the translator', async () => {
    const table = new FakeTable(100, 3);
    table.findingsList = [
      ...FINDINGS,
      makeFinding({ approximate: true, message: 'c0: 1 outlier' })
    ];
    table.findingsReply = {
      findings_cut: 1,
      not_checked: [{ kind: 'correlated', reason: 'engine' }]
    };
    const panel = await open(table, { translator: markingTranslator() });
    const explorer = panel.content;
    explorer.toggleFindings(true);
    await explorer.findings.settled();
    await flush();
    const data = [
      ...table.findingsList.flatMap(f => [
        f.message,
        f.filter_note,
        f.fix_note
      ]),
      'pandas',
      'dplyr',
      'df',
      'c0',
      'c1',
      'c2'
    ];
    const texts: string[] = [];
    const root = explorer.findingsPanel.node;
    for (const node of [root, ...root.querySelectorAll('*')]) {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          texts.push(child.textContent ?? '');
        }
      }
      for (const name of ['title', 'aria-label']) {
        texts.push(node.getAttribute(name) ?? '');
      }
    }
    const toggle = byTestId(
      panel.toolbar.node,
      'kernel-state-findings-toggle'
    )[0];
    texts.push(toggle.textContent ?? '', toggle.title);
    const untranslated = texts.filter(
      text =>
        /\p{L}/u.test(text) &&
        !(text.startsWith('⟦') && text.endsWith('⟧')) &&
        !data.includes(text)
    );
    expect(untranslated).toEqual([]);
    panel.dispose();
  });
});
