/**
 * The note a person leaves on a variable for the assistant: a description, constraints
 * and "hide from assistant". Save stores it (PUT), Clear removes it (DELETE); the
 * server's message is shown when it refuses.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { ANNOTATION_MAX_CHARS, IAnnotationUpdate } from '../tokens';

export interface IAnnotationEditorProps {
  name: string;
  description: string | null;
  constraints: string | null;
  hidden: boolean;
  onSave: (annotation: IAnnotationUpdate) => Promise<unknown>;
  onClear: () => Promise<unknown>;
  trans: TranslationBundle;
}

type Status =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'done'; text: string }
  | { kind: 'error'; text: string };

export function AnnotationEditor(props: IAnnotationEditorProps): JSX.Element {
  const { trans } = props;
  const [description, setDescription] = React.useState(props.description ?? '');
  const [constraints, setConstraints] = React.useState(props.constraints ?? '');
  const [hidden, setHidden] = React.useState(props.hidden);
  const [status, setStatus] = React.useState<Status>({ kind: 'idle' });
  const id = React.useId();

  React.useEffect(() => {
    setDescription(props.description ?? '');
    setConstraints(props.constraints ?? '');
    setHidden(props.hidden);
  }, [props.name, props.description, props.constraints, props.hidden]);
  React.useEffect(() => setStatus({ kind: 'idle' }), [props.name]);

  const stored = !!props.description || !!props.constraints || props.hidden;
  const dirty =
    description !== (props.description ?? '') ||
    constraints !== (props.constraints ?? '') ||
    hidden !== props.hidden;
  const busy = status.kind === 'busy';

  const run = async (action: () => Promise<unknown>, done: string) => {
    setStatus({ kind: 'busy' });
    try {
      await action();
      setStatus({ kind: 'done', text: done });
    } catch (reason) {
      setStatus({
        kind: 'error',
        text: reason instanceof Error ? reason.message : String(reason)
      });
    }
  };

  const save = () =>
    run(
      () =>
        props.onSave({
          description: description.trim() || null,
          constraints: constraints.trim() || null,
          hidden_from_prompt: hidden
        }),
      trans.__('Saved')
    );

  const clear = () =>
    run(async () => {
      await props.onClear();
      setDescription('');
      setConstraints('');
      setHidden(false);
    }, trans.__('Cleared'));

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !busy) {
      event.preventDefault();
      void save();
    }
  };

  return (
    <form
      className="jp-KernelState-annotation"
      data-test-id="kernel-state-annotation"
      aria-label={trans.__('Note for the assistant on %1', props.name)}
      onSubmit={event => {
        event.preventDefault();
        void save();
      }}
    >
      <label htmlFor={`${id}-description`}>{trans.__('Description')}</label>
      <textarea
        id={`${id}-description`}
        className="jp-mod-styled"
        rows={2}
        maxLength={ANNOTATION_MAX_CHARS}
        placeholder={trans.__(
          'What this variable is, e.g. “raw export of the sales table”'
        )}
        value={description}
        onChange={event => setDescription(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <label htmlFor={`${id}-constraints`}>{trans.__('Constraints')}</label>
      <textarea
        id={`${id}-constraints`}
        className="jp-mod-styled"
        rows={2}
        maxLength={ANNOTATION_MAX_CHARS}
        placeholder={trans.__('e.g. “read-only; never modify in place”')}
        value={constraints}
        onChange={event => setConstraints(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <label className="jp-KernelState-toggle">
        <input
          type="checkbox"
          checked={hidden}
          onChange={event => setHidden(event.target.checked)}
        />
        {trans.__('Hide from assistant')}
      </label>
      <div className="jp-KernelState-annotationActions">
        <button
          type="submit"
          className="jp-KernelState-button jp-mod-accept"
          data-test-id="kernel-state-annotation-save"
          disabled={busy || !dirty}
          title={trans.__('Save the note (Ctrl+Enter)')}
        >
          {trans.__('Save')}
        </button>
        <button
          type="button"
          className="jp-KernelState-button"
          data-test-id="kernel-state-annotation-clear"
          disabled={busy || !stored}
          onClick={() => void clear()}
        >
          {trans.__('Clear')}
        </button>
        <span
          className={
            status.kind === 'error'
              ? 'jp-KernelState-fieldError'
              : 'jp-KernelState-dim'
          }
          role={status.kind === 'error' ? 'alert' : 'status'}
          data-test-id="kernel-state-annotation-status"
        >
          {status.kind === 'done' || status.kind === 'error' ? status.text : ''}
        </span>
      </div>
    </form>
  );
}
