/**
 * The REST client's routes for the list, the inspector and the explorer: delete,
 * reveal, brief entries, timeline, rows.
 */
import { ServerConnection } from '@jupyterlab/services';

import { describeError } from '../explorer/errors';
import { request } from '../restapi';
import { IRowsQuery, IRowsWindow } from '../tokens';
import { makeSnapshot, makeVariable, scriptedSettings, urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

describe('restapi for the list', () => {
  it('deletes a variable with DELETE and expects 204', async () => {
    const { settings, requests } = scriptedSettings([{ status: 204 }]);
    await request(
      'delete_variable',
      { kernel_id: 'k1', name: 'x y' },
      settings
    );
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k1/variables/x%20y`);
    expect(requests[0].method).toBe('DELETE');
  });

  it('rejects with the server message on 404 and 409', async () => {
    for (const status of [404, 409]) {
      const { settings } = scriptedSettings([
        { status, body: { message: `no: ${status}` } }
      ]);
      await expect(
        request('delete_variable', { kernel_id: 'k1', name: 'x' }, settings)
      ).rejects.toBeInstanceOf(ServerConnection.ResponseError);
    }
  });

  it('asks reveal=true only when told', async () => {
    const body = { ...makeVariable('k'), repr: "'s'" };
    const { settings, requests } = scriptedSettings([{ status: 200, body }]);
    const args = { kernel_id: 'k1', name: 'k' };
    await request('variable', { ...args, query: {} }, settings);
    await request('variable', { ...args, query: { reveal: true } }, settings);
    await request('variable', { ...args, query: { reveal: false } }, settings);
    expect(requests.map(urlOf)).toEqual([
      `${BASE}/kernels/k1/variables/k`,
      `${BASE}/kernels/k1/variables/k?reveal=true`,
      `${BASE}/kernels/k1/variables/k`
    ]);
  });

  it('asks brief entries with their detail level and filter', async () => {
    const body = { ...makeSnapshot({ variables: [] }), detail: 'names' };
    const { settings, requests } = scriptedSettings([{ status: 200, body }]);
    expect(
      await request(
        'variables',
        {
          kernel_id: 'k1',
          query: { detail: 'names', filter: 'sa*', limit: 50, sort: 'name' }
        },
        settings
      )
    ).toEqual(body);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables?limit=50&sort=name&filter=sa*&detail=names`
    );
  });

  it('gets a timeline with its limit', async () => {
    const body = {
      name: 'x',
      total: 0,
      limit: 5,
      entries: [],
      complete_after: null,
      exists: true
    };
    const { settings, requests } = scriptedSettings([{ status: 200, body }]);
    expect(
      await request(
        'timeline',
        { kernel_id: 'k1', name: 'x', query: { limit: 5 } },
        settings
      )
    ).toEqual(body);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables/x/timeline?limit=5`
    );
  });

  it('asks GET .../variables/{name}/rows with the window, the name encoded', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: rowsWindow() }
    ]);
    const window = await rows(
      'a b/c',
      { offset: 200, limit: 200, columns: '0:100', sort: 'price:desc' },
      settings
    );
    expect(window.total_rows).toBe(10);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables/a%20b%2Fc/rows?offset=200&limit=200&columns=0%3A100&sort=price%3Adesc`
    );
  });

  it('sends a rows filter as JSON', async () => {
    const { settings, requests } = scriptedSettings([
      { status: 200, body: rowsWindow() }
    ]);
    await rows(
      'df',
      { filter: { column: 'region', op: 'contains', value: 'nor' } },
      settings
    );
    const url = new URL(urlOf(requests[0]));
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual({
      column: 'region',
      op: 'contains',
      value: 'nor'
    });
  });

  it('rejects rows with the server message and status', async () => {
    const { settings } = scriptedSettings([
      { status: 409, body: { message: 'polars LazyFrame is lazy' } }
    ]);
    const error = await rows('lf', {}, settings).catch(e => e);
    expect(describeError(error)).toEqual({
      status: 409,
      message: 'polars LazyFrame is lazy',
      retryAfter: null
    });
  });
});

/**
 * `rows` of `name` in kernel `k1`.
 */
function rows(
  name: string,
  query: IRowsQuery,
  settings: ServerConnection.ISettings
): Promise<IRowsWindow> {
  return request('rows', { kernel_id: 'k1', name, query }, settings);
}

/**
 * A window of 10 rows × 1 column of `df`.
 */
function rowsWindow(): IRowsWindow {
  return {
    name: 'df',
    kind: 'dataframe',
    type: 'DataFrame',
    shape: [10, 1],
    total_rows: 10,
    filtered_rows: null,
    engine: null,
    filter: null,
    offset: 0,
    limit: 5,
    columns: [{ name: 'c0', dtype: 'int64', position: 0 }],
    columns_total: 1,
    index_name: null,
    index: ['0', '1', '2', '3', '4'],
    rows: [['0'], ['1'], ['2'], ['3'], ['4']],
    sort: null,
    stale: false,
    kernel_busy: false,
    generation: 1,
    changed_at: 1,
    cells_truncated: 0,
    cells_unread: 0
  };
}
