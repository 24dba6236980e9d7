/**
 * The inspector's model: the selected variable, the drill-down path into it, its
 * detail (`IKernelStateService.inspect`, and `detail` with `reveal` for a masked
 * secret), its change timeline, loading and error, the note shown at the top level,
 * and whether methods are listed among the attributes (hidden by default). It follows
 * the service: a new generation reloads a selected variable that changed and closes
 * one that is gone. Views render it and call its actions.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  AccessKey,
  IAnnotationUpdate,
  IAttribute,
  IChild,
  IKernelStateService,
  ITimeline,
  IVariableDetail
} from '../tokens';
import { snapshotKey } from './section';

/**
 * The attribute types that are methods: listed only when the methods toggle is on.
 */
export const METHOD_TYPES: ReadonlySet<string> = new Set([
  'method',
  'classmethod',
  'staticmethod'
]);

/**
 * The attributes the inspector lists, and what it leaves out.
 */
export interface IAttributesShown {
  /**
   * The attributes listed (data and properties; methods too when shown).
   */
  listed: IAttribute[];
  /**
   * Methods among those the server sent, left out while methods are hidden.
   */
  methods: number;
  /**
   * Attributes the server did not send (past its cap), counted only.
   */
  unsent: number;
}

/**
 * The attributes of a detail as the inspector lists them: methods left out unless
 * `showMethods` (the server sends data before methods).
 */
export function attributesShown(
  detail: Pick<IVariableDetail, 'attributes' | 'attributes_total'>,
  showMethods: boolean
): IAttributesShown {
  const methods = detail.attributes.filter(a => METHOD_TYPES.has(a.type));
  return {
    listed: showMethods
      ? detail.attributes
      : detail.attributes.filter(a => !METHOD_TYPES.has(a.type)),
    methods: methods.length,
    unsent: Math.max(0, detail.attributes_total - detail.attributes.length)
  };
}

/**
 * The keys of a detail are listed apart only when its children do not already show
 * them (a dict's items are its keys with their values).
 */
export function keysShown(
  detail: Pick<IVariableDetail, 'keys' | 'children'>
): boolean {
  return (
    !!detail.keys && detail.keys.length > 0 && detail.children.length === 0
  );
}

/**
 * What makes a value look like a credential, said once after "Looks like a
 * credential: " — `its name`, `a key inside`, `its value (an OpenAI-style key)` —
 * from the server's `secret_reason` (`its name looks like a credential` …).
 */
export function secretExplanation(reason: string | null | undefined): string {
  if (!reason) {
    return '';
  }
  const value = /^its value looks like (.+)$/.exec(reason);
  if (value) {
    return `its value (${value[1]})`;
  }
  return reason.replace(/ looks like a credential$/, '');
}

/**
 * Changes of the inspected name the inspector asks for.
 */
export const TIMELINE_LIMIT = 20;

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
   * The real values of a masked secret are shown (after `reveal()`), until another
   * variable is selected or the inspector closes.
   */
  get revealed(): boolean {
    return this._revealed;
  }

  /**
   * Whether the shown value is masked and can be revealed.
   */
  get canReveal(): boolean {
    const detail = this._detail;
    return (
      !this._revealed &&
      !!detail &&
      (detail.masked === true || detail.likely_secret)
    );
  }

  /**
   * Whether methods are listed among the attributes (off by default; kept while the
   * inspector shows other variables).
   */
  get showMethods(): boolean {
    return this._showMethods;
  }

  /**
   * Show or hide the methods among the attributes.
   */
  toggleMethods(): void {
    this._showMethods = !this._showMethods;
    this._emit();
  }

  /**
   * The change timeline of the inspected name (newest last, as the server sends it),
   * or null while none is loaded or when the server has none.
   */
  get timeline(): ITimeline | null {
    return this._timeline;
  }

  get timelineError(): string | null {
    return this._timelineError;
  }

  /**
   * Fetch and show the real values of the inspected masked secret; only this view
   * shows them, and only until another variable is selected.
   */
  async reveal(): Promise<void> {
    if (!this._selected || this._isDisposed) {
      return;
    }
    this._revealed = true;
    await this.load();
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
    this._revealed = false;
    this._timeline = null;
    this._timelineError = null;
    void this._loadTimeline();
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
    this._revealed = false;
    this._timeline = null;
    this._timelineError = null;
    this._timelineRequest++;
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
      const path = this._path.map(step => step.key);
      const detail = this._revealed
        ? await this._service.detail(name, { path, reveal: true })
        : await this._service.inspect(name, path);
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

  /**
   * Load the timeline of the selected name; a server without the route (404) or a
   * failure leaves the inspector without one, with the message.
   */
  private async _loadTimeline(): Promise<void> {
    const name = this._selected;
    if (!name || this._isDisposed) {
      return;
    }
    const request = ++this._timelineRequest;
    try {
      const timeline = await this._service.timeline(name, TIMELINE_LIMIT);
      if (request === this._timelineRequest && name === this._selected) {
        this._timeline = timeline;
        this._timelineError = null;
      }
    } catch (error) {
      if (request === this._timelineRequest && name === this._selected) {
        this._timeline = null;
        this._timelineError =
          error instanceof Error ? error.message : String(error);
      }
    }
    if (request === this._timelineRequest) {
      this._emit();
    }
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
      } else if (row) {
        if (row.change !== 'unchanged') {
          void this.load();
        }
        // a cell that only read the name is in its lineage (used in) all the same
        void this._loadTimeline();
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
  private _revealed = false;
  private _showMethods = false;
  private _timeline: ITimeline | null = null;
  private _timelineError: string | null = null;
  private _timelineRequest = 0;
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
