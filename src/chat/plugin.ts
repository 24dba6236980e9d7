/**
 * `@var:` and `@kernel` in jupyterlab-chat (Jupyter AI v3's chat), when it is there.
 *
 * `@jupyter/chat` is shared as a singleton that we never bundle (package.json
 * `sharedPackages`): the copy jupyterlab-chat ships is used, and ours can never win
 * the singleton over an older or newer host. Without jupyterlab-chat the shared module
 * is absent, so its token is imported lazily: a static import (and so a plain
 * `optional: [IChatCommandRegistry]`) would fail the loading of this whole extension.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';

import type { IChatCommandRegistry } from '@jupyter/chat';

import { kernelStateIcon } from '../icon';
import { IKernelStateService } from '../tokens';
import { KernelStateChatProvider } from './provider';

export const chatPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-kernel-state:chat',
  description:
    'In jupyterlab-chat, `@var:<name>` attaches a kernel variable’s card and `@kernel` the kernel state to the message.',
  autoStart: true,
  requires: [IKernelStateService],
  optional: [ITranslator],
  activate: async (
    app: JupyterFrontEnd,
    service: IKernelStateService,
    translator: ITranslator | null
  ): Promise<void> => {
    const registry = await chatCommandRegistry(app);
    if (!registry) {
      return;
    }
    registry.addProvider(
      new KernelStateChatProvider({
        service,
        icon: kernelStateIcon,
        trans: (translator ?? nullTranslator).load('jupyter_kernel_state')
      })
    );
  }
};

/**
 * jupyterlab-chat's command registry, or null when jupyterlab-chat is not installed
 * (its shared `@jupyter/chat` cannot be loaded) or provides none.
 */
async function chatCommandRegistry(
  app: JupyterFrontEnd
): Promise<IChatCommandRegistry | null> {
  let chat: typeof import('@jupyter/chat');
  try {
    chat = await import('@jupyter/chat');
  } catch {
    return null;
  }
  return app.resolveOptionalService(chat.IChatCommandRegistry);
}
