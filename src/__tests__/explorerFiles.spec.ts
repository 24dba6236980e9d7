/**
 * The explorer's source switched to a table file (issue 30): the `files/…` routes
 * bound to one path (the path, the view and the code's language in each request), the
 * tab of a file (its id, title and the loading code's syntaxes: pandas, polars,
 * DuckDB, dplyr whatever the engine), and which kernel language gets which code.
 */
import './canvasStub';

import { MainAreaWidget } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import {
  directoryOf,
  FileSource,
  isTableFile,
  syntaxForLanguage
} from '../explorer/files/source';
import { createExplorer, DataExplorer } from '../explorer/widget';
import { KernelStateRequests } from '../requests';
import { IViewCode } from '../tokens';
import { FakeTable, flush, makeModel } from './explorerFakes';
import { scriptedSettings, urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

/**
 * The service's requests, no kernel followed (a file needs none).
 */
class Requests extends KernelStateRequests {
  get kernelId(): string | null {
    return null;
  }

  protected annotated(): void {
    // no notes here
  }
}

function requestsOn(settings: ServerConnection.ISettings): Requests {
  return new Requests(settings);
}

describe('FileSource', () => {
  it('asks the files routes with the path, the view and the columns', async () => {
    const table = new FakeTable(10, 3);
    const { settings, requests } = scriptedSettings([
      { status: 200, body: table.window({ limit: 5 }) }
    ]);
    const source = new FileSource('data/sales 1.parquet', requestsOn(settings));
    await source.rows({
      offset: 5,
      limit: 5,
      sort: 'c1:desc',
      filter: { column: 'c0', op: 'gt', value: 3 }
    });
    const url = new URL(urlOf(requests[0]));
    expect(url.origin + url.pathname).toBe(`${BASE}/files/rows`);
    expect(url.searchParams.get('path')).toBe('data/sales 1.parquet');
    expect(url.searchParams.get('offset')).toBe('5');
    expect(url.searchParams.get('sort')).toBe('c1:desc');
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual({
      column: 'c0',
      op: 'gt',
      value: 3
    });
  });

  it('writes the loading code from the notebook directory, in a file syntax only', async () => {
    const code: IViewCode = {
      syntax: 'polars',
      code: 'sales = pl.scan_parquet("../data/sales.parquet")',
      name: 'sales',
      view: { sort: [], filter: null, columns: null }
    };
    const { settings, requests } = scriptedSettings([
      { status: 200, body: code }
    ]);
    const source = new FileSource('data/sales.parquet', requestsOn(settings));
    expect(
      await source.code({ syntax: 'polars', sort: 'id' }, 'analysis')
    ).toEqual(code);
    await source.code({ syntax: 'polars_lazy' }, null);
    const first = new URL(urlOf(requests[0]));
    expect(first.pathname).toBe('/base/api/kernel-state/files/code');
    expect(first.searchParams.get('syntax')).toBe('polars');
    expect(first.searchParams.get('relative_to')).toBe('analysis');
    const second = new URL(urlOf(requests[1]));
    expect(second.searchParams.has('syntax')).toBe(false); // the server's default
    expect(second.searchParams.has('relative_to')).toBe(false);
  });

  it('asks the findings with DuckDB or dplyr fixes only', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: {} }
    ]);
    const source = new FileSource('a.csv', requestsOn(settings));
    await source.findings({ syntax: 'pandas' });
    await source.findings({ syntax: 'dplyr' });
    expect(new URL(urlOf(requests[0])).searchParams.has('syntax')).toBe(false);
    expect(new URL(urlOf(requests[1])).searchParams.get('syntax')).toBe(
      'dplyr'
    );
  });
});

describe('table files', () => {
  it('are told by their extension', () => {
    for (const path of [
      'a.csv',
      'd/b.TSV',
      'c.parquet',
      'e.jsonl',
      'f.ndjson',
      'g.xlsx'
    ]) {
      expect(isTableFile(path)).toBe(true);
    }
    for (const path of ['a.txt', 'b.csv.gz', 'parquet', 'x.xls']) {
      expect(isTableFile(path)).toBe(false);
    }
    expect(directoryOf('a/b/c.csv')).toBe('a/b');
    expect(directoryOf('c.csv')).toBe('');
  });

  it('load as dplyr into R kernels, pandas into Python ones', () => {
    expect(syntaxForLanguage('R')).toBe('dplyr');
    expect(syntaxForLanguage('python')).toBe('pandas');
    expect(syntaxForLanguage(null)).toBe('pandas');
  });
});

describe('a file tab', () => {
  async function openFile(): Promise<MainAreaWidget<DataExplorer>> {
    const table = new FakeTable(20, 3);
    table.engine = FakeTable.engineInfo('duckdb', 'DuckDB');
    const model = makeModel(table);
    const panel = createExplorer({
      name: 'sales.parquet',
      kernelId: '',
      path: 'data/sales.parquet',
      model,
      profile: table.profile,
      codeSyntaxes: ['pandas', 'polars', 'duckdb', 'dplyr'],
      code: async query => ({
        syntax: query.syntax ?? 'pandas',
        code: `sales_view = sales  # ${query.syntax ?? 'pandas'}`,
        name: 'sales',
        view: { sort: [], filter: null, columns: null }
      })
    });
    Widget.attach(panel, document.body);
    await model.load();
    return panel;
  }

  it('is named by its path and offers the loading code in every file syntax', async () => {
    const panel = await openFile();
    expect(panel.id).toBe(
      `kernel-state-explorer-file-${encodeURIComponent('data/sales.parquet')}`
    );
    expect(panel.title.label).toBe('sales.parquet');
    expect(panel.title.caption).toBe('data/sales.parquet — Data Explorer');
    expect(panel.content.path).toBe('data/sales.parquet');
    expect(panel.content.kernelId).toBe('');
    panel.content.toggleCode(true);
    await flush();
    const select = panel.node.querySelector(
      '[data-test-id="kernel-state-explorer-code-syntax"]'
    ) as HTMLSelectElement;
    // A file is read by DuckDB, but its code is for the user's library.
    expect([...select.options].map(o => o.value)).toEqual([
      'pandas',
      'polars',
      'duckdb',
      'dplyr'
    ]);
    expect(
      panel.node.querySelector(
        '[data-test-id="kernel-state-explorer-code-text"]'
      )?.textContent
    ).toBe('sales_view = sales  # pandas');
    select.value = 'duckdb';
    select.dispatchEvent(new Event('change'));
    await flush(10);
    expect(
      panel.node.querySelector(
        '[data-test-id="kernel-state-explorer-code-text"]'
      )?.textContent
    ).toBe('sales_view = sales  # duckdb');
    panel.dispose();
  });

  it('a variable tab keeps its own id and its engine syntaxes', async () => {
    const model = makeModel(new FakeTable(20, 3));
    const panel = createExplorer({ name: 'rel', kernelId: 'k1', model });
    expect(panel.id).toBe('kernel-state-explorer-k1-rel');
    expect(panel.content.path).toBeNull();
    panel.dispose();
  });
});
