import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import {
  IAttachedArgs,
  ISessionWidgetTracker,
  KernelFollower,
  SessionWidget
} from '../kernelFollower';

class FakeKernel {
  constructor(readonly id: string) {}
  readonly name = 'python3';
  readonly iopubMessage = new Signal<this, unknown>(this);

  emit(
    msgType: string,
    parent: string,
    content: unknown = {},
    username = 'notebook-user'
  ): void {
    this.iopubMessage.emit({
      header: { msg_type: msgType, msg_id: `${parent}-${msgType}` },
      parent_header: { msg_id: parent, username },
      content
    });
  }
}

function makeWidget(kernel: FakeKernel | null, label: string): SessionWidget {
  const widget = new Widget();
  widget.title.label = label;
  Object.assign(widget, {
    sessionContext: {
      session: kernel ? { kernel } : null,
      kernelChanged: new Signal<unknown, unknown>(widget),
      statusChanged: new Signal<unknown, unknown>(widget),
      kernelDisplayName: 'Python 3'
    }
  });
  return widget as unknown as SessionWidget;
}

function makeTracker(widgets: SessionWidget[]): ISessionWidgetTracker & {
  currentWidget: SessionWidget | null;
  currentChanged: Signal<unknown, SessionWidget | null>;
} {
  return {
    currentWidget: widgets[0] ?? null,
    currentChanged: new Signal<unknown, SessionWidget | null>({}),
    has: (w: Widget) => widgets.includes(w as SessionWidget)
  };
}

function makeShell(current: Widget | null) {
  return {
    currentWidget: current,
    currentChanged: new Signal<unknown, unknown>({})
  };
}

describe('KernelFollower', () => {
  it('follows the shell’s current session widget and keeps it while another widget is focused', () => {
    const k1 = new FakeKernel('k1');
    const k2 = new FakeKernel('k2');
    const a = makeWidget(k1, 'a.ipynb');
    const b = makeWidget(k2, 'b.ipynb');
    const tracker = makeTracker([a, b]);
    const shell = makeShell(b);
    const follower = new KernelFollower({ trackers: [tracker], shell });
    const attached: IAttachedArgs[] = [];
    follower.attached.connect((_, args) => attached.push(args));
    follower.start();
    expect(follower.widget).toBe(b);
    expect(attached[0].info).toEqual({
      id: 'k2',
      name: 'Python 3',
      source: 'b.ipynb'
    });
    expect(attached[0].kernelChanged).toBe(true);

    shell.currentWidget = new Widget(); // the file browser, an editor…
    shell.currentChanged.emit(undefined);
    expect(follower.widget).toBe(b);
    expect(attached).toHaveLength(1);

    shell.currentWidget = a;
    shell.currentChanged.emit(undefined);
    expect(follower.kernel?.id).toBe('k1');

    // Disposed: back to the tracker's current widget.
    tracker.currentWidget = b;
    shell.currentWidget = null;
    a.dispose();
    expect(follower.widget).toBe(b);
    follower.dispose();
    expect(follower.isDisposed).toBe(true);
  });

  it('names a notebook by its path, and again after a rename', () => {
    const kernel = new FakeKernel('k1');
    const notebook = makeWidget(kernel, 'a.ipynb');
    const context = {
      path: 'work/a.ipynb',
      pathChanged: new Signal<unknown, string>({})
    };
    Object.assign(notebook, { context });
    const follower = new KernelFollower({
      trackers: [makeTracker([notebook])],
      shell: makeShell(notebook)
    });
    const attached: IAttachedArgs[] = [];
    follower.attached.connect((_, args) => attached.push(args));
    follower.start();
    expect(attached[0].info).toEqual({
      id: 'k1',
      name: 'Python 3',
      source: 'a.ipynb',
      path: 'work/a.ipynb'
    });
    // The dirty mark changes the title too: nothing to say.
    notebook.title.className = 'jp-mod-dirty';
    expect(attached).toHaveLength(1);
    context.path = 'work/b.ipynb';
    notebook.title.label = 'b.ipynb';
    expect(attached).toHaveLength(2);
    expect(attached[1]).toMatchObject({
      kernelChanged: false,
      info: { source: 'b.ipynb', path: 'work/b.ipynb' }
    });
    // Moved to another folder: same label, another path.
    context.path = 'done/b.ipynb';
    context.pathChanged.emit(context.path);
    expect(attached).toHaveLength(3);
    expect(attached[2].info?.path).toBe('done/b.ipynb');
    follower.dispose();
  });

  it('tells the user’s executions from silent runs', () => {
    const kernel = new FakeKernel('k1');
    const widget = makeWidget(kernel, 'a.ipynb');
    const follower = new KernelFollower({ trackers: [makeTracker([widget])] });
    follower.start();
    const started: string[] = [];
    const ended: string[] = [];
    follower.runStarted.connect((_, id) => started.push(id));
    follower.runEnded.connect((_, id) => ended.push(id));

    kernel.emit('execute_input', 'm1');
    expect(follower.isRunning('m1')).toBe(true);
    expect(follower.isRunning()).toBe(true);
    kernel.emit('status', 'probe', { execution_state: 'busy' });
    kernel.emit('status', 'probe', { execution_state: 'idle' });
    // IRkernel publishes execute_input for the server's silent probe requests too.
    kernel.emit('execute_input', 'r-probe', {}, 'jupyter_kernel_state');
    kernel.emit(
      'status',
      'r-probe',
      { execution_state: 'idle' },
      'jupyter_kernel_state'
    );
    kernel.emit('status', 'm1', { execution_state: 'idle' });
    expect(started).toEqual(['m1']);
    expect(ended).toEqual(['m1']);
    expect(follower.isRunning()).toBe(false);

    kernel.emit('execute_input', 'm2');
    follower.forgetRuns();
    kernel.emit('status', 'm2', { execution_state: 'idle' });
    expect(ended).toEqual(['m1']);

    follower.dispose();
    kernel.emit('execute_input', 'm3');
    expect(started).toEqual(['m1', 'm2']);
  });

  it('reattaches on a kernel change in the same widget and relays its status', () => {
    const widget = makeWidget(new FakeKernel('k1'), 'a.ipynb');
    const follower = new KernelFollower({ trackers: [makeTracker([widget])] });
    const attached: IAttachedArgs[] = [];
    const statuses: string[] = [];
    follower.attached.connect((_, args) => attached.push(args));
    follower.statusChanged.connect((_, status) => statuses.push(status));
    follower.start();
    const context = widget.sessionContext as unknown as {
      session: { kernel: FakeKernel } | null;
      kernelChanged: Signal<unknown, unknown>;
      statusChanged: Signal<unknown, unknown>;
    };
    context.session = { kernel: new FakeKernel('k2') };
    context.kernelChanged.emit({});
    expect(attached.map(a => [a.info?.id, a.kernelChanged])).toEqual([
      ['k1', true],
      ['k2', true]
    ]);
    context.statusChanged.emit('restarting');
    expect(statuses).toEqual(['restarting']);
    follower.dispose();
  });
});
