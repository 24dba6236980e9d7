/**
 * The assistant view: the exact text an assistant would get for this kernel, its size,
 * what it includes and leaves out, a Copy button, and "Open in a tab" for the whole
 * text at full width (`AssistantDocument`).
 *
 * The text comes from the kernel's values: it is shown as a text node in a `<pre>`.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { copyIcon, launchIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { IPromptResult } from '../tokens';

export interface IAssistantViewProps {
  result: IPromptResult | null;
  error: string | null;
  loading: boolean;
  /**
   * The character budget asked for.
   */
  budget: number;
  onCopy: (text: string) => void;
  /**
   * Open the whole text in a main-area tab, when that command exists.
   */
  onOpenTab?: () => void;
  trans: TranslationBundle;
}

/**
 * "Copied" shown for 1.5 s after a copy, and again false when the text changes.
 */
export function useCopiedFlag(
  text: unknown
): [boolean, React.Dispatch<React.SetStateAction<boolean>>] {
  const [copied, setCopied] = React.useState(false);
  React.useEffect(() => {
    if (!copied) {
      return;
    }
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  React.useEffect(() => setCopied(false), [text]);
  return [copied, setCopied];
}

export function AssistantView(props: IAssistantViewProps): JSX.Element {
  const { result, trans } = props;
  const [copied, setCopied] = useCopiedFlag(result);

  return (
    <div className="jp-KernelState-assistant">
      {props.error && (
        <div className="jp-KernelState-error" role="alert">
          {props.error}
        </div>
      )}
      {!result && !props.error && (
        <div className="jp-KernelState-note">
          {props.loading
            ? trans.__('Loading…')
            : trans.__('Nothing to show yet')}
        </div>
      )}
      {result && (
        <>
          <div className="jp-KernelState-promptBar">
            <span
              className="jp-KernelState-dim jp-KernelState-promptSize"
              data-test-id="kernel-state-prompt-size"
              title={trans.__(
                'Budget: %1 characters',
                props.budget.toLocaleString('en-US')
              )}
            >
              {sizeText(result, trans)}
            </span>
            <button
              className="jp-KernelState-button"
              data-test-id="kernel-state-prompt-copy"
              aria-label={trans.__('Copy the assistant text')}
              title={trans.__('Copy the assistant text')}
              onClick={() => {
                props.onCopy(result.text);
                setCopied(true);
              }}
            >
              <copyIcon.react
                tag="span"
                className="jp-KernelState-buttonIcon"
              />
              {copied ? trans.__('Copied') : trans.__('Copy')}
            </button>
            {props.onOpenTab && (
              <button
                className="jp-KernelState-button"
                data-test-id="kernel-state-prompt-open-tab"
                onClick={props.onOpenTab}
                title={trans.__(
                  'Show the whole text in a tab, with what it leaves out'
                )}
              >
                <launchIcon.react
                  tag="span"
                  className="jp-KernelState-buttonIcon"
                />
                {trans.__('Open in a tab')}
              </button>
            )}
          </div>
          <div className="jp-KernelState-dim jp-KernelState-promptCounts">
            {countsText(result, trans)}
          </div>
          <pre
            className="jp-KernelState-code jp-KernelState-promptText"
            data-test-id="kernel-state-prompt-text"
            tabIndex={0}
            aria-label={trans.__('Text an assistant would get')}
          >
            {result.text}
          </pre>
        </>
      )}
    </div>
  );
}

/**
 * `1,619 characters · ~405 tokens`.
 */
export function sizeText(
  result: IPromptResult,
  trans: TranslationBundle
): string {
  return [
    trans
      ._n('%1 character', '%1 characters', result.chars)
      .replace(String(result.chars), result.chars.toLocaleString('en-US')),
    trans.__('~%1 tokens', result.tokens_estimate.toLocaleString('en-US'))
  ].join(' · ');
}

/**
 * `~309 tokens`: the size in the folded section's header, beside its title at the
 * sidebar's default width (characters and tokens together were cut there); the header's
 * tooltip gives both (`sizeText`).
 */
export function shortSizeText(
  result: IPromptResult,
  trans: TranslationBundle
): string {
  return trans.__('~%1 tokens', result.tokens_estimate.toLocaleString('en-US'));
}

function countsText(result: IPromptResult, trans: TranslationBundle): string {
  const parts = [
    trans.__(
      '%1 variables included',
      result.variables_included.toLocaleString('en-US')
    ),
    trans.__('%1 omitted', result.variables_omitted.toLocaleString('en-US'))
  ];
  if (result.variables_hidden > 0) {
    parts.push(
      trans.__('%1 hidden', result.variables_hidden.toLocaleString('en-US'))
    );
  }
  return parts.join(' · ');
}
