/**
 * The Kernel State sidebar: renders the service's model and owns the view state
 * (filter, selection, inspector path). It tells the service when it is visible, so no
 * request is made while it is hidden.
 */
import { ITranslator, nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { KernelStatePanel } from '../components/KernelStatePanel';
import { VariableInspector } from '../components/VariableInspector';
import {
  AccessKey,
  IChild,
  IKernelStateService,
  IncludeGroup,
  IVariableDetail,
  SnapshotSort
} from '../tokens';

export const SIDEBAR_ID = 'jp-kernel-state-sidebar';

export class KernelStateSidebar extends ReactWidget {
  constructor(options: KernelStateSidebar.IOptions) {
    super();
    this._service = options.service;
    this._trans = (options.translator ?? nullTranslator).load('jupyter_kernel_state');
    this._onOptionsChange = options.onOptionsChange;
    this.id = SIDEBAR_ID;
    this.addClass('jp-KernelState-sidebar');
    this.title.caption = this._trans.__('Kernel State: the variables of the active kernel');
    this._service.changed.connect(this._onServiceChanged, this);
  }

  get showPreview(): boolean {
    return this._showPreview;
  }

  set showPreview(value: boolean) {
    this._showPreview = value;
    this.update();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._service.changed.disconnect(this._onServiceChanged, this);
    this._service.setVisible(false);
    super.dispose();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._service.setVisible(true);
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      this._service.setVisible(true);
    }
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this._service.setVisible(false);
  }

  protected onBeforeDetach(msg: Message): void {
    this._service.setVisible(false);
    super.onBeforeDetach(msg);
  }

  protected render(): JSX.Element {
    const model = this._service.model;
    const options = this._service.options;
    return (
      <KernelStatePanel
        status={model.status}
        kernel={model.kernel}
        snapshot={model.snapshot}
        error={model.error}
        isBusy={model.isBusy}
        filter={this._filter}
        onFilter={this._setFilter}
        sort={options.sort}
        onSort={this._setSort}
        include={options.include}
        onToggleInclude={this._toggleInclude}
        selected={this._selected}
        onSelect={this._select}
        onRefresh={this._refresh}
        showPreview={this._showPreview}
        inspector={this._renderInspector()}
        trans={this._trans}
      />
    );
  }

  private _renderInspector(): JSX.Element | null {
    if (!this._selected) {
      return null;
    }
    return (
      <VariableInspector
        crumbs={[this._selected, ...this._path.map(step => step.label)]}
        detail={this._detail}
        loading={this._loading}
        error={this._detailError}
        onCrumb={this._crumb}
        onDrill={this._drill}
        onClose={this._close}
        trans={this._trans}
      />
    );
  }

  private _onServiceChanged(): void {
    const snapshot = this._service.snapshot;
    const generation = snapshot ? `${snapshot.kernel_id}:${snapshot.epoch}:${snapshot.generation}` : '';
    if (this._selected && generation !== this._generation) {
      const row = snapshot?.variables.find(v => v.name === this._selected);
      const complete = snapshot && snapshot.variables.length >= snapshot.total;
      if (!snapshot || (!row && complete)) {
        this._close();
      } else if (row && row.change !== 'unchanged') {
        void this._load();
      }
    }
    this._generation = generation;
    this.update();
  }

  private _setFilter = (filter: string): void => {
    this._filter = filter;
    this.update();
  };

  private _setSort = (sort: SnapshotSort): void => {
    this._changeOptions({ sort });
  };

  private _toggleInclude = (group: IncludeGroup): void => {
    const include = this._service.options.include;
    const next = include.includes(group)
      ? include.filter(g => g !== group)
      : [...include, group];
    this._changeOptions({ include: next });
  };

  private _changeOptions(options: { sort?: SnapshotSort; include?: IncludeGroup[] }): void {
    if (this._onOptionsChange) {
      this._onOptionsChange(options);
    } else {
      this._service.setOptions(options);
    }
  }

  private _select = (name: string): void => {
    if (name === this._selected && !this._path.length) {
      return;
    }
    this._selected = name;
    this._path = [];
    void this._load();
  };

  private _refresh = (): void => {
    void this._service.refresh();
  };

  private _crumb = (depth: number): void => {
    this._path = this._path.slice(0, depth);
    void this._load();
  };

  private _drill = (child: IChild): void => {
    this._path = [...this._path, { key: child.access_key, label: child.label }];
    void this._load();
  };

  private _close = (): void => {
    this._selected = null;
    this._path = [];
    this._detail = null;
    this._detailError = null;
    this._loading = false;
    this._request++;
    this.update();
  };

  private async _load(): Promise<void> {
    const name = this._selected;
    if (!name) {
      return;
    }
    const request = ++this._request;
    this._loading = true;
    this._detailError = null;
    this.update();
    try {
      const detail = await this._service.inspect(
        name,
        this._path.map(step => step.key)
      );
      if (request === this._request) {
        this._detail = detail;
      }
    } catch (error) {
      if (request === this._request) {
        this._detail = null;
        this._detailError = error instanceof Error ? error.message : String(error);
      }
    } finally {
      if (request === this._request) {
        this._loading = false;
        this.update();
      }
    }
  }

  private _service: IKernelStateService;
  private _trans: TranslationBundle;
  private _onOptionsChange?: KernelStateSidebar.IOptions['onOptionsChange'];
  private _showPreview = true;
  private _filter = '';
  private _selected: string | null = null;
  private _path: { key: AccessKey; label: string }[] = [];
  private _detail: IVariableDetail | null = null;
  private _detailError: string | null = null;
  private _loading = false;
  private _request = 0;
  private _generation = '';
}

export namespace KernelStateSidebar {
  export interface IOptions {
    service: IKernelStateService;
    translator?: ITranslator;
    /**
     * Called when the user changes sort or include toggles, e.g. to store them in the
     * settings; without it the service options are changed directly.
     */
    onOptionsChange?: (options: {
      sort?: SnapshotSort;
      include?: IncludeGroup[];
    }) => void;
  }
}
