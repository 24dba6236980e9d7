/**
 * The chat command provider of `@var:` and `@kernel` (jupyterlab-chat's
 * `IChatCommandProvider`): completes variable names of the kernel the service follows,
 * and on send puts their cards and the kernel-state block into the message, so the
 * user sees exactly what the assistant gets.
 *
 * Only types come from `@jupyter/chat` here; the plugin loads its token at run time.
 */
import type {
  ChatCommand,
  IChatCommandProvider,
  IInputModel
} from '@jupyter/chat';
import { ServerConnection } from '@jupyterlab/services';
import { nullTranslator, TranslationBundle } from '@jupyterlab/translation';
import type { LabIcon } from '@jupyterlab/ui-components';

import { IKernelInfo, IKernelStateService } from '../tokens';
import {
  buildCards,
  cutNote,
  fence,
  kernelBlock,
  kernelErrorBlock,
  noKernelText,
  typeText,
  VariableLookup
} from './cards';
import {
  findMentions,
  KERNEL_COMMAND,
  markMentions,
  MAX_VARIABLE_MENTIONS,
  NAME_PREFIX,
  VAR_PREFIX
} from './mentions';

/**
 * The provider's id in the chat command registry.
 */
export const CHAT_PROVIDER_ID = 'jupyter-kernel-state:chat-commands';

/**
 * Names one completion request asks the server for.
 */
export const COMPLETION_LIMIT = 50;

export class KernelStateChatProvider implements IChatCommandProvider {
  constructor(options: KernelStateChatProvider.IOptions) {
    this._service = options.service;
    this._icon = options.icon ?? null;
    this._trans = options.trans ?? nullTranslator.load('jupyter_kernel_state');
  }

  readonly id = CHAT_PROVIDER_ID;

  /**
   * `@` … `@var` offers `@var:`, `@` … `@kernel` offers `@kernel`, and `@var:<prefix>`
   * lists the kernel's variables whose names start with the prefix (case-insensitive),
   * each with its type and size.
   */
  async listCommandCompletions(
    inputModel: IInputModel
  ): Promise<ChatCommand[]> {
    const word = inputModel.currentWord;
    if (!word || !word.startsWith('@')) {
      return [];
    }
    if (word.startsWith(VAR_PREFIX)) {
      return this._variableCompletions(word.slice(VAR_PREFIX.length));
    }
    const commands: ChatCommand[] = [];
    if (VAR_PREFIX.startsWith(word)) {
      commands.push({
        name: VAR_PREFIX,
        providerId: this.id,
        icon: this._icon,
        description: this._trans.__(
          'Attach a kernel variable’s state to your message'
        )
      });
    }
    if (KERNEL_COMMAND.startsWith(word)) {
      commands.push({
        name: KERNEL_COMMAND,
        providerId: this.id,
        icon: this._icon,
        description: this._trans.__(
          'Attach the kernel state (as the assistant view shows it)'
        ),
        spaceOnAccept: true
      });
    }
    return commands;
  }

  /**
   * Append the cards of the message's `@var:` mentions and the `@kernel` block to the
   * message, and mark the mentions as handled (code spans).
   */
  async onSubmit(inputModel: IInputModel): Promise<void> {
    const mentions = findMentions(inputModel.value);
    if (!mentions.variables.length && !mentions.kernel) {
      return;
    }
    const attached = await this.attachments(
      mentions.variables,
      mentions.kernel
    );
    inputModel.value = `${markMentions(inputModel.value)}\n\n${attached}`;
  }

  /**
   * The text attached for these mentions: the kernel block first, then one card per
   * variable within the cards' budget, then what was cut or skipped.
   */
  async attachments(names: string[], kernel: boolean): Promise<string> {
    const info = this._service.model.kernel;
    if (this._service.kernelId === null || !info) {
      const typed = names.map(name => `${VAR_PREFIX}${name}`);
      return fence(noKernelText(kernel ? [...typed, KERNEL_COMMAND] : typed));
    }
    const label = kernelLabel(info);
    const read = names.slice(0, MAX_VARIABLE_MENTIONS);
    const [lookups, block] = await Promise.all([
      Promise.all(read.map(name => this._lookup(name))),
      kernel ? this._kernelBlock(label) : Promise.resolve(null)
    ]);
    const cards = buildCards(lookups, label);
    const parts = block ? [block, ...cards.blocks] : cards.blocks;
    const notes = [cutNote(cards)];
    const skipped = names.slice(MAX_VARIABLE_MENTIONS);
    if (skipped.length) {
      notes.push(
        `(At most ${MAX_VARIABLE_MENTIONS} variables per message: skipped ${skipped
          .map(name => `\`${name}\``)
          .join(', ')}.)`
      );
    }
    return [...parts, ...notes.filter(Boolean)].join('\n\n');
  }

  /**
   * The kernel's variables whose names start with `prefix`, except those the user hid
   * from the assistant: a name that cannot be attached is not offered. (The full
   * listing: only it says `hidden_from_prompt`; the probe summarizes each variable
   * whole at every detail level, so it costs no more than `detail=schema`.)
   */
  private async _variableCompletions(prefix: string): Promise<ChatCommand[]> {
    if (!NAME_PREFIX.test(prefix) || this._service.kernelId === null) {
      return [];
    }
    let entries;
    try {
      const page = await this._service.variables({
        filter: prefix ? `${prefix}*` : undefined,
        include: this._service.options.include,
        sort: 'name',
        limit: COMPLETION_LIMIT
      });
      entries = page.variables;
    } catch {
      return []; // no completions rather than an error while typing
    }
    const lower = prefix.toLowerCase();
    return entries
      .filter(
        entry =>
          !entry.hidden_from_prompt &&
          entry.name.toLowerCase().startsWith(lower)
      )
      .map(entry => ({
        name: entry.name,
        providerId: this.id,
        icon: this._icon,
        description: entry.likely_secret
          ? this._trans.__('%1 (masked)', typeText(entry))
          : typeText(entry),
        replaceWith: `${VAR_PREFIX}${entry.name}`,
        spaceOnAccept: true
      }));
  }

  private async _lookup(name: string): Promise<VariableLookup> {
    try {
      // Never `reveal`: likely secrets come masked.
      return { name, detail: await this._service.inspect(name) };
    } catch (reason) {
      if (
        reason instanceof ServerConnection.ResponseError &&
        reason.response.status === 404
      ) {
        return { name, missing: true };
      }
      return { name, error: messageOf(reason) };
    }
  }

  private async _kernelBlock(label: string): Promise<string> {
    try {
      return kernelBlock(await this._service.prompt(), label);
    } catch (reason) {
      return kernelErrorBlock(label, messageOf(reason));
    }
  }

  private _service: IKernelStateService;
  private _icon: LabIcon | null;
  private _trans: TranslationBundle;
}

export namespace KernelStateChatProvider {
  export interface IOptions {
    service: IKernelStateService;
    icon?: LabIcon;
    trans?: TranslationBundle;
  }
}

/**
 * How cards name the kernel: its notebook's path, else its console's label.
 */
export function kernelLabel(info: IKernelInfo): string {
  return info.path ?? info.source;
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
