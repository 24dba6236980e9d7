/**
 * "Keep this version": the user asks the kernel to keep a copy of the tab's table as it
 * is now (`POST variables/{name}/kept`), to compare the table with it after later
 * cells ("Compare with…" lists it as `sales as of [12]`). Nothing is kept unless asked;
 * when the kept versions leave no room under the server's caps the user is asked
 * whether to drop the oldest, and told which were dropped. Also the words for a kept
 * version and the `with` value that names one (`@12`). No REST here but through the
 * service.
 */
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { CommandRegistry } from '@lumino/commands';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { Widget } from '@lumino/widgets';

import { CommandIDs } from '../../commands';
import { IKeptVersion, IKeptVersions, IKernelStateService } from '../../tokens';
import { button } from '../dom';
import { describeError } from '../errors';

const numberFormat = new Intl.NumberFormat('en-US', {
  maximumFractionDigits: 1
});

/**
 * `compare`'s `with` for a kept version of the table itself: `@12`.
 */
export function keptWith(execution: number): string {
  return `@${execution}`;
}

/**
 * The table a `with` value names, as people read it: `raw`, `sales as of [12]` (for
 * `@12` of `sales`), `raw as of [3]` (for `raw@3`).
 */
export function withLabel(
  trans: TranslationBundle,
  name: string,
  other: string
): string {
  const match = /^(.*)@(\d+)$/.exec(other);
  if (!match) {
    return other;
  }
  return trans.__('%1 as of [%2]', match[1] || name, match[2]);
}

/**
 * `1.2 MiB`.
 */
export function bytesText(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let size = n;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${n} B` : `${numberFormat.format(size)} ${units[unit]}`;
}

/**
 * What keeping did, in a sentence: kept, replaced, and what was dropped to make room.
 */
export function keptText(trans: TranslationBundle, got: IKeptVersions): string {
  const kept = got.kept;
  const parts: string[] = [];
  if (kept) {
    parts.push(
      trans.__(
        'Kept %1 (%2); compare with it through Compare with….',
        withLabel(trans, kept.name, keptWith(kept.execution_count)),
        bytesText(kept.bytes)
      )
    );
    if (got.replaced) {
      parts.push(trans.__('It replaces the version kept at that execution.'));
    }
  }
  if (got.dropped.length) {
    parts.push(
      trans.__(
        'Dropped to make room: %1.',
        got.dropped.map(v => versionText(trans, v)).join(', ')
      )
    );
  }
  parts.push(
    trans.__(
      '%1 of %2 versions, %3 of %4 kept in this kernel.',
      got.kept_total,
      got.max_kept,
      bytesText(got.bytes_total),
      bytesText(got.max_kept_bytes)
    )
  );
  return parts.join(' ');
}

function versionText(trans: TranslationBundle, v: IKeptVersion): string {
  return trans.__('%1 as of [%2]', v.name, v.execution_count);
}

/**
 * Keep the current version of `name`; when the caps leave no room, ask whether to drop
 * the oldest versions. The reply, or null when nothing was kept (the reason shown).
 */
export async function keepVersion(
  service: IKernelStateService,
  kernelId: string,
  name: string,
  trans: TranslationBundle
): Promise<IKeptVersions | null> {
  const title = trans.__('Keep this version of %1', name);
  let got: IKeptVersions;
  try {
    got = await service.keep(name, false, kernelId);
  } catch (reason) {
    const { status, message } = describeError(reason);
    if (status !== 409 || !message.startsWith('no room')) {
      await showDialog({ title, body: message, buttons: [Dialog.okButton()] });
      return null;
    }
    const answer = await showDialog({
      title,
      body: `${message}\n\n${trans.__('Drop the oldest kept versions to make room for this one?')}`,
      buttons: [
        Dialog.cancelButton(),
        Dialog.warnButton({ label: trans.__('Drop the oldest and keep') })
      ]
    });
    if (!answer.button.accept) {
      return null;
    }
    try {
      got = await service.keep(name, true, kernelId);
    } catch (again) {
      await showDialog({
        title,
        body: describeError(again).message,
        buttons: [Dialog.okButton()]
      });
      return null;
    }
  }
  Notification.success(keptText(trans, got), { autoClose: 5000 });
  return got;
}

/**
 * The explorer toolbar's "Keep this version" button, for the tab of `name`.
 */
export function keepButton(
  commands: CommandRegistry,
  trans: TranslationBundle,
  args: { kernelId: string; name: string }
): Widget {
  const node = button(
    trans.__('Keep this version'),
    'kernel-state-explorer-keep',
    {
      title: trans.__(
        'Keep a copy of %1 as it is now, to compare it with after later cells (held by the kernel until dropped, the variable deleted or the kernel restarted)',
        args.name
      )
    }
  );
  const payload: ReadonlyPartialJSONObject = { ...args };
  node.addEventListener('click', () => {
    void commands.execute(CommandIDs.explorerKeepVersion, payload);
  });
  const item = new Widget({ node });
  item.addClass('jp-KernelState-explorerKeep');
  return item;
}
