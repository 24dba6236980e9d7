/**
 * The explorer's new routes through the service and the REST layer, as
 * `serviceRoutes.spec.ts` checks the others: `profile` and `code` on the followed
 * kernel or the one named, their queries (the filter tree as JSON, several sort keys,
 * columns, syntax), and the server's refusals as `ResponseError`.
 */
import { ServerConnection } from '@jupyterlab/services';

import { FilterNode } from '../tokens';
import { followingService } from './following';
import { urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

const TREE: FilterNode = {
  and: [
    { column: 'price', op: 'between', value: [10, 20] },
    {
      or: [
        { column: 'region', op: 'in', value: ['north', 'a,b'] },
        { column: 'region', op: 'isnull' }
      ]
    },
    { column: 'name', op: 'regex', value: '^Sm[iy]th$', case: true }
  ]
};

describe('profile and code through the service', () => {
  it('reads a profile of some columns under a filter tree', async () => {
    const { service, requests } = followingService([
      { status: 200, body: { columns: [] } }
    ]);
    await service.profile('sales', { columns: '0,3,7', filter: TREE });
    await service.profile('a b', {}, 'k 2');
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe(
      '/base/api/kernel-state/kernels/k1/variables/sales/profile'
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      columns: '0,3,7',
      filter: JSON.stringify(TREE)
    });
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual(TREE);
    expect(urlOf(requests[1])).toBe(
      `${BASE}/kernels/k%202/variables/a%20b/profile`
    );
    service.dispose();
  });

  it('reads the code of a view: filter, sort keys, columns, syntax', async () => {
    const body = {
      syntax: 'polars',
      code: 'x',
      name: 'sales',
      view: { sort: [], filter: null, columns: null }
    };
    const { service, requests } = followingService([{ status: 200, body }]);
    expect(
      await service.code('sales', {
        filter: TREE,
        sort: 'price:desc,region:asc',
        columns: '5,0,1',
        syntax: 'polars'
      })
    ).toEqual(body);
    await service.code('sales');
    const url = new URL(urlOf(requests[0]));
    expect(url.pathname).toBe(
      '/base/api/kernel-state/kernels/k1/variables/sales/code'
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      filter: JSON.stringify(TREE),
      sort: 'price:desc,region:asc',
      columns: '5,0,1',
      syntax: 'polars'
    });
    expect(urlOf(requests[1])).toBe(`${BASE}/kernels/k1/variables/sales/code`);
    service.dispose();
  });

  it('sends a tree and a JSON sort on rows too', async () => {
    const { service, requests } = followingService([{ status: 200, body: {} }]);
    const sort = JSON.stringify([{ column: 'a,b', desc: true }]);
    await service.rows('sales', { offset: 0, limit: 1, filter: TREE, sort });
    const url = new URL(urlOf(requests[0]));
    expect(url.searchParams.get('sort')).toBe(sort);
    expect(JSON.parse(url.searchParams.get('filter')!)).toEqual(TREE);
    service.dispose();
  });

  it("rejects with the server's message and status", async () => {
    const { service } = followingService([
      { status: 409, body: { message: 'polars LazyFrame is lazy' } },
      {
        status: 400,
        body: { message: 'syntax dplyr does not fit a pandas DataFrame' }
      }
    ]);
    const lazy = await service.profile('lazy').catch(error => error);
    expect(lazy).toBeInstanceOf(ServerConnection.ResponseError);
    expect(lazy.response.status).toBe(409);
    expect(lazy.message).toBe('polars LazyFrame is lazy');
    const wrong = await service
      .code('sales', { syntax: 'dplyr' })
      .catch(error => error);
    expect(wrong.response.status).toBe(400);
    expect(wrong.message).toBe('syntax dplyr does not fit a pandas DataFrame');
    service.dispose();
  });

  it('needs a kernel', async () => {
    const { service, requests } = followingService([], null);
    await expect(service.profile('x')).rejects.toThrow('No kernel');
    await expect(service.code('x')).rejects.toThrow('No kernel');
    expect(requests).toHaveLength(0);
    service.dispose();
  });
});
