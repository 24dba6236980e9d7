/**
 * The REST client's functions for the list and inspector: delete, reveal, timeline.
 */
import { ServerConnection } from '@jupyterlab/services';

import {
  deleteVariable,
  getTimeline,
  getVariable,
  getVariableBriefs
} from '../restapi';
import { restVariableApi } from '../models/variableApi';
import { makeSnapshot, makeVariable, scriptedSettings, urlOf } from './helpers';

const BASE = 'http://localhost:8888/base/api/kernel-state';

describe('restapi for the list', () => {
  it('deletes a variable with DELETE and expects 204', async () => {
    const { settings, requests } = scriptedSettings([{ status: 204 }]);
    await deleteVariable('k1', 'x y', settings);
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k1/variables/x%20y`);
    expect(requests[0].method).toBe('DELETE');
  });

  it('rejects with the server message on 404 and 409', async () => {
    for (const status of [404, 409]) {
      const { settings } = scriptedSettings([
        { status, body: { message: `no: ${status}` } }
      ]);
      await expect(deleteVariable('k1', 'x', settings)).rejects.toBeInstanceOf(
        ServerConnection.ResponseError
      );
    }
  });

  it('asks reveal=true only when told', async () => {
    const body = { ...makeVariable('k'), repr: "'s'" };
    const { settings, requests } = scriptedSettings([{ status: 200, body }]);
    await getVariable('k1', 'k', {}, settings);
    await getVariable('k1', 'k', { reveal: true }, settings);
    await getVariable('k1', 'k', { reveal: false }, settings);
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
      await getVariableBriefs(
        'k1',
        { detail: 'names', filter: 'sa*', limit: 50, sort: 'name' },
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
    expect(await getTimeline('k1', 'x', 5, settings)).toEqual(body);
    expect(urlOf(requests[0])).toBe(
      `${BASE}/kernels/k1/variables/x/timeline?limit=5`
    );
  });

  it('acts on the followed kernel, and rejects without one', async () => {
    const { settings, requests } = scriptedSettings([{ status: 204 }]);
    const service = { kernelId: 'k9', inspect: jest.fn() };
    await restVariableApi(service, settings).remove('x');
    expect(urlOf(requests[0])).toBe(`${BASE}/kernels/k9/variables/x`);
    await restVariableApi(service, settings).detail('x', ['a']);
    expect(service.inspect).toHaveBeenCalledWith('x', ['a']);
    await expect(
      restVariableApi({ kernelId: null, inspect: jest.fn() }, settings).remove(
        'x'
      )
    ).rejects.toThrow('No kernel');
  });
});
