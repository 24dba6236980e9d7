/**
 * The variable actions the list and the inspector need beyond the service's
 * `inspect`: a detail with the real values of a masked secret, a name's change
 * timeline, and deleting a name. Each acts on the service's followed kernel.
 */
import { ServerConnection } from '@jupyterlab/services';

import { deleteVariable, getTimeline, getVariable } from '../restapi';
import {
  AccessKey,
  IKernelStateService,
  ITimeline,
  IVariableDetail
} from '../tokens';

export interface IVariableApi {
  /**
   * The detail of `name` (at `path`); with `reveal`, the real values of a masked
   * secret.
   */
  detail(
    name: string,
    path?: AccessKey[],
    reveal?: boolean
  ): Promise<IVariableDetail>;
  /**
   * The last changes of `name`, oldest first.
   */
  timeline(name: string, limit?: number): Promise<ITimeline>;
  /**
   * Delete `name` from the kernel's namespace.
   */
  remove(name: string): Promise<void>;
}

/**
 * The REST implementation on `service`'s followed kernel.
 */
export function restVariableApi(
  service: Pick<IKernelStateService, 'kernelId' | 'inspect'>,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): IVariableApi {
  const kernel = (): string => {
    const id = service.kernelId;
    if (!id) {
      throw new Error('No kernel');
    }
    return id;
  };
  return {
    detail: async (name, path = [], reveal = false) =>
      reveal
        ? getVariable(kernel(), name, { path, reveal: true }, settings)
        : service.inspect(name, path),
    timeline: async (name, limit) =>
      getTimeline(kernel(), name, limit, settings),
    remove: async name => deleteVariable(kernel(), name, settings)
  };
}
