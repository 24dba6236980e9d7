/**
 * A real `KernelStateService` following a fake kernel: the kernel's IOPub, a
 * notebook-like widget's session context and a tracker, driven by the tests.
 */
import { ServerConnection } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { ISessionWidgetTracker, SessionWidget } from '../kernelFollower';
import { KernelStateService } from '../service';
import { IScriptedReply, scriptedSettings } from './helpers';

/**
 * Server settings whose fetch records each request.
 */
export interface IRecordingSettings {
  settings: ServerConnection.ISettings;
  requests: Request[];
}

export class FakeKernel {
  constructor(readonly id: string) {}
  readonly name = 'python3';
  status = 'idle';
  readonly iopubMessage = new Signal<this, unknown>(this);

  /** IOPub of one execution; a silent probe run has no execute_input. */
  run(msgId: string, silent = false): void {
    if (!silent) {
      this.emit('execute_input', msgId, { code: 'x = 1', execution_count: 1 });
    }
    this.emit('status', msgId, { execution_state: 'busy' });
    this.emit('status', msgId, { execution_state: 'idle' });
  }

  emit(msgType: string, parent: string, content: unknown): void {
    this.iopubMessage.emit({
      header: { msg_type: msgType, msg_id: `${parent}-${msgType}` },
      parent_header: { msg_id: parent, msg_type: 'execute_request' },
      channel: 'iopub',
      content,
      metadata: {}
    });
  }
}

/** The parts of a notebook's session context the service reads, writable for tests. */
interface IFakeSessionContext {
  session: { kernel: FakeKernel } | null;
  kernelChanged: Signal<unknown, unknown>;
  statusChanged: Signal<unknown, unknown>;
  kernelDisplayName: string;
}

/** A notebook-like widget whose session context the tests drive. */
type FakeWidget = Widget & { sessionContext: IFakeSessionContext };

export function makeWidget(kernel: FakeKernel | null): FakeWidget {
  const widget = new Widget() as FakeWidget;
  widget.title.label = 'Untitled.ipynb';
  widget.sessionContext = {
    session: kernel ? { kernel } : null,
    kernelChanged: new Signal<unknown, unknown>(widget),
    statusChanged: new Signal<unknown, unknown>(widget),
    kernelDisplayName: 'Python 3'
  };
  return widget;
}

/** The service's view of a fake widget (it reads only what the fake provides). */
export const asSessionWidget = (widget: FakeWidget): SessionWidget =>
  widget as unknown as SessionWidget;

export function makeTracker(
  widget: SessionWidget | null
): ISessionWidgetTracker & {
  currentWidget: SessionWidget | null;
  currentChanged: Signal<unknown, SessionWidget | null>;
} {
  const tracker = {
    currentWidget: widget,
    currentChanged: new Signal<unknown, SessionWidget | null>({}),
    has: (w: Widget) => w === tracker.currentWidget
  };
  return tracker;
}

/**
 * A real service following `kernel` (none: null) in a notebook-like widget, its
 * requests answered by `replies` (see `scriptedSettings`) or by settings of your own.
 */
export function followingService<K extends FakeKernel | null = FakeKernel>(
  replies: IScriptedReply[] | IRecordingSettings,
  kernel: K = new FakeKernel('k1') as K
) {
  const { settings, requests } = Array.isArray(replies)
    ? scriptedSettings(replies)
    : replies;
  const widget = makeWidget(kernel);
  const tracker = makeTracker(asSessionWidget(widget));
  const service = new KernelStateService({
    serverSettings: settings,
    trackers: [tracker],
    debounce: 5,
    busyDelay: 30
  });
  return { service, requests, kernel, widget, tracker };
}
