/**
 * The assistant view in a tab: the whole text an assistant would get about the followed
 * kernel, as text (monospace, wrapped), its size against the budget, a Copy button, and
 * what the text leaves out and why — the prompt's own lines that name what the budget
 * dropped, and the variables the user hid from assistants.
 *
 * The text comes from the kernel's values: it is a text node in a `<pre>`, never HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { copyIcon, refreshIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { omittedLines } from '../models/prompt';
import { IPromptResult } from '../tokens';
import { sizeText, useCopiedFlag } from './AssistantView';

export interface IAssistantDocumentProps {
  /**
   * The notebook or console whose kernel it describes (null: none followed).
   */
  source: string | null;
  result: IPromptResult | null;
  error: string | null;
  loading: boolean;
  budget: number;
  onCopy: (text: string) => void;
  onRefresh: () => void;
  trans: TranslationBundle;
}

export function AssistantDocument(props: IAssistantDocumentProps): JSX.Element {
  const { result, trans } = props;
  const [copied, setCopied] = useCopiedFlag(result);
  const left = result ? omittedLines(result.text) : [];
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    <div
      className="jp-KernelState-assistantDoc"
      data-test-id="kernel-state-assistant-tab"
    >
      <div className="jp-KernelState-galleryHeader">
        <h2 className="jp-KernelState-galleryTitle">
          {props.source
            ? trans.__('What an assistant gets about %1', props.source)
            : trans.__('What an assistant gets')}
        </h2>
        {result && (
          <span
            className="jp-KernelState-dim"
            data-test-id="kernel-state-assistant-tab-size"
          >
            {trans.__(
              '%1 of a %2-character budget',
              sizeText(result, trans),
              n(props.budget)
            )}
          </span>
        )}
        <button
          className="jp-KernelState-button"
          onClick={props.onRefresh}
          disabled={props.loading}
          aria-label={trans.__('Read the prompt again')}
          title={trans.__('Read the prompt again')}
        >
          <refreshIcon.react tag="span" className="jp-KernelState-buttonIcon" />
          {props.loading ? trans.__('Loading…') : trans.__('Refresh')}
        </button>
        <button
          className="jp-KernelState-button jp-mod-accept"
          data-test-id="kernel-state-assistant-tab-copy"
          disabled={!result}
          onClick={() => {
            if (result) {
              props.onCopy(result.text);
              setCopied(true);
            }
          }}
        >
          <copyIcon.react tag="span" className="jp-KernelState-buttonIcon" />
          {copied ? trans.__('Copied') : trans.__('Copy')}
        </button>
      </div>
      {props.error && (
        <div
          className="jp-KernelState-error jp-KernelState-banner"
          role="alert"
        >
          {props.error}
        </div>
      )}
      {!result ? (
        <div className="jp-KernelState-message">
          {props.source
            ? props.loading
              ? trans.__('Loading…')
              : trans.__('Nothing to show yet')
            : trans.__(
                'Open a notebook or console with a running kernel to see what an assistant gets about it.'
              )}
        </div>
      ) : (
        <>
          <section
            className="jp-KernelState-assistantLeft"
            aria-label={trans.__('What the text leaves out')}
            data-test-id="kernel-state-assistant-tab-left"
          >
            <div className="jp-KernelState-dim">
              {[
                trans.__('%1 variables included', n(result.variables_included)),
                trans.__(
                  '%1 left out for the budget',
                  n(result.variables_omitted)
                ),
                trans.__('%1 hidden by you', n(result.variables_hidden))
              ].join(' · ')}
            </div>
            {left.length > 0 ? (
              <ul className="jp-KernelState-assistantLeftList">
                {left.map((line, i) => (
                  <li key={i} className="jp-KernelState-code">
                    {line}
                  </li>
                ))}
              </ul>
            ) : (
              <div className="jp-KernelState-dim">
                {trans.__(
                  'Nothing was left out for the budget: the whole state fits.'
                )}
              </div>
            )}
            {result.variables_hidden > 0 && (
              <div className="jp-KernelState-dim">
                {trans._n(
                  '%1 variable is hidden from assistants by its note (never named in the text).',
                  '%1 variables are hidden from assistants by their notes (never named in the text).',
                  result.variables_hidden
                )}
              </div>
            )}
          </section>
          <pre
            className="jp-KernelState-code jp-KernelState-assistantDocText"
            data-test-id="kernel-state-assistant-tab-text"
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
