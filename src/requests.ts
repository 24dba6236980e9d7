/**
 * `KernelStateRequests`: every route of the REST API as a method on a kernel — the
 * followed one unless a `kernelId` is given — bound to the server settings. The
 * service (`service.ts`) extends it with following the kernel; views, models and other
 * extensions reach the server only through these methods, and they only through
 * `restapi.ts`'s one `request()`.
 */
import { ServerConnection } from '@jupyterlab/services';

import { request, SnapshotCache } from './restapi';
import {
  AccessKey,
  IAnnotation,
  IAnnotationUpdate,
  IBriefQuery,
  IBriefSnapshot,
  ICodeQuery,
  ICompareQuery,
  ICountQuery,
  ICountResult,
  IDetailQuery,
  IFileCodeQuery,
  IFileFindingsQuery,
  IFileProfileQuery,
  IFileRowsQuery,
  IFindingsQuery,
  IHistory,
  IImageList,
  IKernelList,
  IKernelStateRequests,
  IKeptVersions,
  IProfileQuery,
  IPromptQuery,
  IPromptResult,
  IRowsQuery,
  IRowsWindow,
  ISnapshot,
  ISnapshotQuery,
  ITableComparison,
  ITableFindings,
  ITableProfile,
  ITimeline,
  IVariableDetail,
  IViewCode
} from './tokens';

export abstract class KernelStateRequests implements IKernelStateRequests {
  constructor(serverSettings?: ServerConnection.ISettings) {
    this.serverSettings = serverSettings ?? ServerConnection.makeSettings();
  }

  /**
   * The settings of every request (base URL, token, fetch).
   */
  readonly serverSettings: ServerConnection.ISettings;

  /**
   * The one ETag cache of the snapshot requests (pages asked here, and the list's).
   */
  protected readonly snapshots = new SnapshotCache();

  /**
   * The followed kernel: the default target of every request.
   */
  abstract get kernelId(): string | null;

  async kernels(): Promise<IKernelList> {
    return request('kernels', {}, this.serverSettings);
  }

  async variables(
    query: ISnapshotQuery = {},
    kernelId?: string
  ): Promise<ISnapshot> {
    const kernel_id = this.target(kernelId);
    return request(
      'variables',
      { kernel_id, query },
      this.serverSettings,
      this.snapshots
    );
  }

  async listVariables(
    query: IBriefQuery,
    kernelId?: string
  ): Promise<IBriefSnapshot> {
    const kernel_id = this.target(kernelId);
    // detail=names|schema: the entries come brief, as they are
    const brief = await request(
      'variables',
      { kernel_id, query },
      this.serverSettings
    );
    return brief as unknown as IBriefSnapshot;
  }

  async inspect(
    name: string,
    path: AccessKey[] = [],
    kernelId?: string
  ): Promise<IVariableDetail> {
    return this.detail(name, { path }, kernelId);
  }

  async detail(
    name: string,
    query: IDetailQuery = {},
    kernelId?: string
  ): Promise<IVariableDetail> {
    const kernel_id = this.target(kernelId);
    return request('variable', { kernel_id, name, query }, this.serverSettings);
  }

  async rows(
    name: string,
    query: IRowsQuery = {},
    kernelId?: string
  ): Promise<IRowsWindow> {
    const kernel_id = this.target(kernelId);
    return request('rows', { kernel_id, name, query }, this.serverSettings);
  }

  async profile(
    name: string,
    query: IProfileQuery = {},
    kernelId?: string
  ): Promise<ITableProfile> {
    const kernel_id = this.target(kernelId);
    return request('profile', { kernel_id, name, query }, this.serverSettings);
  }

  async findings(
    name: string,
    query: IFindingsQuery = {},
    kernelId?: string
  ): Promise<ITableFindings> {
    const kernel_id = this.target(kernelId);
    return request('findings', { kernel_id, name, query }, this.serverSettings);
  }

  async count(
    name: string,
    query: ICountQuery = {},
    kernelId?: string
  ): Promise<ICountResult> {
    const kernel_id = this.target(kernelId);
    return request('count', { kernel_id, name, query }, this.serverSettings);
  }

  async code(
    name: string,
    query: ICodeQuery = {},
    kernelId?: string
  ): Promise<IViewCode> {
    const kernel_id = this.target(kernelId);
    return request('code', { kernel_id, name, query }, this.serverSettings);
  }

  async fileRows(
    path: string,
    query: Omit<IFileRowsQuery, 'path'> = {}
  ): Promise<IRowsWindow> {
    return request(
      'file_rows',
      { query: { ...query, path } },
      this.serverSettings
    );
  }

  async fileProfile(
    path: string,
    query: Omit<IFileProfileQuery, 'path'> = {}
  ): Promise<ITableProfile> {
    return request(
      'file_profile',
      { query: { ...query, path } },
      this.serverSettings
    );
  }

  async fileFindings(
    path: string,
    query: Omit<IFileFindingsQuery, 'path'> = {}
  ): Promise<ITableFindings> {
    return request(
      'file_findings',
      { query: { ...query, path } },
      this.serverSettings
    );
  }

  async fileCode(
    path: string,
    query: Omit<IFileCodeQuery, 'path'> = {}
  ): Promise<IViewCode> {
    return request(
      'file_code',
      { query: { ...query, path } },
      this.serverSettings
    );
  }

  async compare(
    name: string,
    query: ICompareQuery,
    kernelId?: string
  ): Promise<ITableComparison> {
    const kernel_id = this.target(kernelId);
    return request('compare', { kernel_id, name, query }, this.serverSettings);
  }

  async keep(
    name: string,
    evict = false,
    kernelId?: string
  ): Promise<IKeptVersions> {
    const kernel_id = this.target(kernelId);
    const query = { evict };
    return request('keep', { kernel_id, name, query }, this.serverSettings);
  }

  async keptVersions(name: string, kernelId?: string): Promise<IKeptVersions> {
    const kernel_id = this.target(kernelId);
    return request('kept', { kernel_id, name }, this.serverSettings);
  }

  async dropKept(
    name: string,
    execution: number,
    kernelId?: string
  ): Promise<IKeptVersions> {
    const kernel_id = this.target(kernelId);
    return request(
      'drop_kept',
      { kernel_id, name, execution },
      this.serverSettings
    );
  }

  async timeline(
    name: string,
    limit?: number,
    kernelId?: string
  ): Promise<ITimeline> {
    const kernel_id = this.target(kernelId);
    const query = { limit };
    return request('timeline', { kernel_id, name, query }, this.serverSettings);
  }

  async deleteVariable(name: string, kernelId?: string): Promise<void> {
    const kernel_id = this.target(kernelId);
    return request('delete_variable', { kernel_id, name }, this.serverSettings);
  }

  async annotate(
    name: string,
    annotation: IAnnotationUpdate,
    kernelId?: string
  ): Promise<IAnnotation> {
    const kernel_id = this.target(kernelId);
    const body = annotation;
    const note = await request(
      'annotate',
      { kernel_id, name, body },
      this.serverSettings
    );
    this.annotated(kernel_id, name);
    return note;
  }

  async clearAnnotation(name: string, kernelId?: string): Promise<void> {
    const kernel_id = this.target(kernelId);
    await request('clear_annotation', { kernel_id, name }, this.serverSettings);
    this.annotated(kernel_id, name);
  }

  async images(
    since?: number,
    limit?: number,
    kernelId?: string
  ): Promise<IImageList> {
    const kernel_id = this.target(kernelId);
    const query = { since, limit };
    return request('images', { kernel_id, query }, this.serverSettings);
  }

  async imageBlob(imageId: string, kernelId?: string): Promise<Blob> {
    const kernel_id = this.target(kernelId);
    const image_id = imageId;
    return request('image', { kernel_id, image_id }, this.serverSettings);
  }

  async history(limit?: number, kernelId?: string): Promise<IHistory> {
    const kernel_id = this.target(kernelId);
    const query = { limit };
    return request('history', { kernel_id, query }, this.serverSettings);
  }

  async prompt(
    options: IPromptQuery = {},
    kernelId?: string
  ): Promise<IPromptResult> {
    const kernel_id = this.target(kernelId);
    const query = { ...options, format: 'json' as const };
    return request('prompt', { kernel_id, query }, this.serverSettings);
  }

  /**
   * The kernel a request acts on: `kernelId`, else the followed one.
   */
  protected target(kernelId?: string): string {
    const target = kernelId ?? this.kernelId;
    if (!target) {
      throw new Error('No kernel');
    }
    return target;
  }

  /**
   * A note on `name` of `kernelId` was stored or removed.
   */
  protected abstract annotated(kernelId: string, name: string): void;
}
