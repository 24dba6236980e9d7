/**
 * `KernelStateRequests`: every route of the REST API as a method on a kernel — the
 * followed one unless a `kernelId` is given — bound to the server settings. The
 * service (`service.ts`) extends it with following the kernel; views, models and other
 * extensions reach the server only through these methods, and they only through
 * `restapi.ts`.
 */
import { ServerConnection } from '@jupyterlab/services';

import {
  deleteAnnotation,
  deleteVariable,
  getCode,
  getHistory,
  getImage,
  getProfile,
  getPrompt,
  getRows,
  getSnapshot,
  getTimeline,
  getVariable,
  getVariableBriefs,
  listImages,
  listKernels,
  postCount,
  putAnnotation,
  SnapshotCache
} from './restapi';
import {
  AccessKey,
  IAnnotation,
  IAnnotationUpdate,
  IBriefQuery,
  IBriefSnapshot,
  ICodeQuery,
  ICountQuery,
  ICountResult,
  IDetailQuery,
  IHistory,
  IImageList,
  IKernelList,
  IKernelStateRequests,
  IProfileQuery,
  IPromptQuery,
  IPromptResult,
  IRowsQuery,
  IRowsWindow,
  ISnapshot,
  ISnapshotQuery,
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
   * The followed kernel: the default target of every request.
   */
  abstract get kernelId(): string | null;

  async kernels(): Promise<IKernelList> {
    return listKernels(this.serverSettings);
  }

  async variables(
    query: ISnapshotQuery = {},
    kernelId?: string
  ): Promise<ISnapshot> {
    return getSnapshot(
      this.target(kernelId),
      query,
      this.serverSettings,
      this._pages
    );
  }

  async listVariables(
    query: IBriefQuery,
    kernelId?: string
  ): Promise<IBriefSnapshot> {
    return getVariableBriefs(this.target(kernelId), query, this.serverSettings);
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
    return getVariable(this.target(kernelId), name, query, this.serverSettings);
  }

  async rows(
    name: string,
    query: IRowsQuery = {},
    kernelId?: string
  ): Promise<IRowsWindow> {
    return getRows(this.target(kernelId), name, query, this.serverSettings);
  }

  async profile(
    name: string,
    query: IProfileQuery = {},
    kernelId?: string
  ): Promise<ITableProfile> {
    return getProfile(this.target(kernelId), name, query, this.serverSettings);
  }

  async count(
    name: string,
    query: ICountQuery = {},
    kernelId?: string
  ): Promise<ICountResult> {
    return postCount(this.target(kernelId), name, query, this.serverSettings);
  }

  async code(
    name: string,
    query: ICodeQuery = {},
    kernelId?: string
  ): Promise<IViewCode> {
    return getCode(this.target(kernelId), name, query, this.serverSettings);
  }

  async timeline(
    name: string,
    limit?: number,
    kernelId?: string
  ): Promise<ITimeline> {
    return getTimeline(this.target(kernelId), name, limit, this.serverSettings);
  }

  async deleteVariable(name: string, kernelId?: string): Promise<void> {
    return deleteVariable(this.target(kernelId), name, this.serverSettings);
  }

  async annotate(
    name: string,
    annotation: IAnnotationUpdate,
    kernelId?: string
  ): Promise<IAnnotation> {
    const target = this.target(kernelId);
    const note = await putAnnotation(
      target,
      name,
      annotation,
      this.serverSettings
    );
    this.annotated(target, name);
    return note;
  }

  async clearAnnotation(name: string, kernelId?: string): Promise<void> {
    const target = this.target(kernelId);
    await deleteAnnotation(target, name, this.serverSettings);
    this.annotated(target, name);
  }

  async images(
    since?: number,
    limit?: number,
    kernelId?: string
  ): Promise<IImageList> {
    return listImages(
      this.target(kernelId),
      { since, limit },
      this.serverSettings
    );
  }

  async imageBlob(imageId: string, kernelId?: string): Promise<Blob> {
    return getImage(this.target(kernelId), imageId, this.serverSettings);
  }

  async history(limit?: number, kernelId?: string): Promise<IHistory> {
    return getHistory(this.target(kernelId), limit, this.serverSettings);
  }

  async prompt(
    options: IPromptQuery = {},
    kernelId?: string
  ): Promise<IPromptResult> {
    return getPrompt(this.target(kernelId), options, this.serverSettings);
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

  /**
   * The ETag cache of `variables()` (the service's own list has another).
   */
  private _pages = new SnapshotCache();
}
