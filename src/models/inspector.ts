/**
 * The inspector's model: the selected variable, the drill-down path into it, its
 * detail (`GET variables/{name}`), loading and error, and the note shown at the top
 * level. It follows the service: a new generation reloads a selected variable that
 * changed and closes one that is gone. Views render it and call its actions.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  AccessKey,
  IAnnotationUpdate,
  IChild,
  IKernelStateService,
  IVariableDetail
} from '../tokens';
import { snapshotKey } from './section';

/**
 * One step of the drill-down path: the probe's access key and the child's label.
 */
export interface IInspectorStep {
  key: AccessKey;
  label: string;
}

/**
 * A variable's note as the inspector shows it.
 */
export type InspectorNote = Pick<
  IVariableDetail,
  'description' | 'constraints' | 'hidden_from_prompt'
>;

export class InspectorModel implements IDisposable {
  constructor(options: InspectorModel.IOptions) {
    this._service = options.service;
    this._generation = snapshotKey(this._service);
    this._service.changed.connect(this._onServiceChanged, this);
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * The inspected variable, or null when the inspector is closed.
   */
  get selected(): string | null {
    return this._selected;
  }

  get path(): readonly IInspectorStep[] {
    return this._path;
  }

  /**
   * The breadcrumb: the variable's name, then each step's label.
   */
  get crumbs(): string[] {
    return this._selected
      ? [this._selected, ...this._path.map(step => step.label)]
      : [];
  }

  /**
   * The detail of the value at `path`, or null while none is loaded.
   */
  get detail(): IVariableDetail | null {
    return this._detail;
  }

  get loading(): boolean {
    return this._loading;
  }

  /**
   * The server's message for the last failed load, or null.
   */
  get error(): string | null {
    return this._error;
  }

  /**
   * The variable itself (not a child) is shown: its note can be edited.
   */
  get atTop(): boolean {
    return this._path.length === 0 && this._detail !== null;
  }

  /**
   * The variable itself is shown and carries a note.
   */
  get annotated(): boolean {
    const detail = this._detail;
    return (
      this.atTop &&
      !!detail &&
      (!!detail.description ||
        !!detail.constraints ||
        detail.hidden_from_prompt)
    );
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Inspect a variable (from the top); selecting the shown variable again does nothing.
   */
  select(name: string): Promise<void> {
    if (name === this._selected && !this._path.length) {
      return Promise.resolve();
    }
    this._selected = name;
    this._path = [];
    return this.load();
  }

  /**
   * Go back to a breadcrumb: 0 is the variable itself.
   */
  crumb(depth: number): Promise<void> {
    this._path = this._path.slice(0, depth);
    return this.load();
  }

  /**
   * Open a child of the shown value.
   */
  drill(child: IChild): Promise<void> {
    this._path = [...this._path, { key: child.access_key, label: child.label }];
    return this.load();
  }

  /**
   * Close the inspector; an answer still on its way is dropped.
   */
  close(): void {
    this._selected = null;
    this._path = [];
    this._detail = null;
    this._error = null;
    this._loading = false;
    this._request++;
    this._emit();
  }

  /**
   * Load the detail of the value at `path`; only the last request's answer is kept.
   */
  async load(): Promise<void> {
    const name = this._selected;
    if (!name || this._isDisposed) {
      return;
    }
    const request = ++this._request;
    this._loading = true;
    this._error = null;
    this._emit();
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
        this._error = error instanceof Error ? error.message : String(error);
      }
    } finally {
      if (request === this._request) {
        this._loading = false;
        this._emit();
      }
    }
  }

  /**
   * Store the note of the selected variable; it shows at once (the snapshot refresh
   * brings it to the list). Rejects with the server's error.
   */
  async annotate(annotation: IAnnotationUpdate): Promise<void> {
    const name = this._selected;
    if (!name) {
      return;
    }
    const note = await this._service.annotate(name, annotation);
    this._setNote(name, note);
  }

  /**
   * Remove the note of the selected variable.
   */
  async clearAnnotation(): Promise<void> {
    const name = this._selected;
    if (!name) {
      return;
    }
    await this._service.clearAnnotation(name);
    this._setNote(name, {
      description: null,
      constraints: null,
      hidden_from_prompt: false
    });
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._request++;
    this._service.changed.disconnect(this._onServiceChanged, this);
    Signal.clearData(this);
  }

  private _setNote(name: string, note: InspectorNote): void {
    const detail = this._detail;
    if (detail && detail.name === name && this._selected === name) {
      this._detail = {
        ...detail,
        description: note.description,
        constraints: note.constraints,
        hidden_from_prompt: note.hidden_from_prompt
      };
      this._emit();
    }
  }

  /**
   * On a new generation: close when the variable is gone (and the snapshot lists every
   * name), reload when it changed.
   */
  private _onServiceChanged(): void {
    const generation = snapshotKey(this._service);
    if (this._selected && generation !== this._generation) {
      const snapshot = this._service.snapshot;
      const row = snapshot?.variables.find(v => v.name === this._selected);
      const complete = snapshot && snapshot.variables.length >= snapshot.total;
      if (!snapshot || (!row && complete)) {
        this.close();
      } else if (row && row.change !== 'unchanged') {
        void this.load();
      }
    }
    this._generation = generation;
  }

  private _emit(): void {
    if (!this._isDisposed) {
      this._changed.emit();
    }
  }

  private _service: IKernelStateService;
  private _changed = new Signal<this, void>(this);
  private _selected: string | null = null;
  private _path: IInspectorStep[] = [];
  private _detail: IVariableDetail | null = null;
  private _error: string | null = null;
  private _loading = false;
  private _request = 0;
  private _generation: string;
  private _isDisposed = false;
}

export namespace InspectorModel {
  export interface IOptions {
    service: IKernelStateService;
  }
}
