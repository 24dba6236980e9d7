/**
 * The detail of one variable: repr, table columns and first rows, keys, signature and
 * doc, attributes, and children to drill into (with a breadcrumb back up).
 *
 * Every kernel string is rendered as a React text node, never as HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { lockIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatShape } from '../format';
import { IChild, IVariableDetail } from '../tokens';

export interface IVariableInspectorProps {
  /**
   * Labels of the breadcrumb: the variable name, then each child's label.
   */
  crumbs: string[];
  detail: IVariableDetail | null;
  loading: boolean;
  error: string | null;
  onCrumb: (depth: number) => void;
  onDrill: (child: IChild) => void;
  onClose: () => void;
  /**
   * The note editor of the variable (only at the top of the path).
   */
  annotation?: React.ReactNode;
  /**
   * Whether the variable carries a note, which opens the note section.
   */
  annotated?: boolean;
  trans: TranslationBundle;
}

export function VariableInspector(props: IVariableInspectorProps): JSX.Element {
  const { detail, trans } = props;
  return (
    <section
      className="jp-KernelState-inspector"
      data-test-id="kernel-state-inspector"
      aria-label={trans.__('Variable inspector')}
    >
      <div className="jp-KernelState-inspectorHeader">
        <nav
          className="jp-KernelState-breadcrumb"
          aria-label={trans.__('Path')}
        >
          {props.crumbs.map((label, depth) => (
            <React.Fragment key={depth}>
              {depth > 0 && <span className="jp-KernelState-crumbSep">›</span>}
              <button
                className="jp-KernelState-crumb"
                disabled={depth === props.crumbs.length - 1}
                onClick={() => props.onCrumb(depth)}
              >
                {label}
              </button>
            </React.Fragment>
          ))}
        </nav>
        <button
          className="jp-KernelState-close"
          title={trans.__('Close the inspector')}
          aria-label={trans.__('Close the inspector')}
          onClick={props.onClose}
        >
          ×
        </button>
      </div>
      {props.loading && (
        <div className="jp-KernelState-note">{trans.__('Loading…')}</div>
      )}
      {props.error && (
        <div className="jp-KernelState-error" role="alert">
          {props.error}
        </div>
      )}
      {detail && !props.loading && <DetailBody {...props} detail={detail} />}
    </section>
  );
}

function DetailBody(
  props: IVariableInspectorProps & { detail: IVariableDetail }
): JSX.Element {
  const { detail, trans } = props;
  const shape = formatShape(detail);
  return (
    <div className="jp-KernelState-inspectorBody">
      <div className="jp-KernelState-summary">
        <span className="jp-KernelState-type">
          {detail.qualname || detail.type}
        </span>
        {shape && <span> · {shape}</span>}
        {detail.dtype && <span> · {detail.dtype}</span>}
      </div>
      {detail.error && (
        <div className="jp-KernelState-fieldError">{detail.error}</div>
      )}
      {detail.likely_secret && (
        <div
          className="jp-KernelState-secretNote"
          data-test-id="kernel-state-secret-note"
        >
          <lockIcon.react tag="span" className="jp-KernelState-secretIcon" />
          {trans.__(
            'Looks like a credential (%1): masked in the assistant’s text.',
            detail.secret_reason ?? trans.__('name or value')
          )}
        </div>
      )}
      {props.annotation && (
        <Section
          title={
            detail.hidden_from_prompt
              ? trans.__('Note for the assistant (hidden from it)')
              : trans.__('Note for the assistant')
          }
          open={!!props.annotated}
        >
          {props.annotation}
        </Section>
      )}
      {detail.signature && (
        <pre className="jp-KernelState-code">{detail.signature}</pre>
      )}
      {detail.doc && <p className="jp-KernelState-doc">{detail.doc}</p>}
      {detail.columns && detail.columns.length > 0 && (
        <Section
          title={trans.__(
            'Columns (%1 of %2)',
            detail.columns.length,
            detail.columns_total ?? detail.columns.length
          )}
        >
          <table className="jp-KernelState-table">
            <tbody>
              {detail.columns.map((column, i) => (
                <tr key={i}>
                  <td>{column.name}</td>
                  <td className="jp-KernelState-dim">{column.dtype}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
      {detail.head && detail.head.rows.length > 0 && (
        <Section title={trans.__('First rows')}>
          <div className="jp-KernelState-tableScroll">
            <table className="jp-KernelState-table">
              <thead>
                <tr>
                  <th />
                  {detail.head.columns.map((name, i) => (
                    <th key={i}>{name}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {detail.head.rows.map((row, r) => (
                  <tr key={r}>
                    <th>{detail.head?.index[r] ?? ''}</th>
                    {row.map((cell, c) => (
                      <td key={c}>{String(cell)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </Section>
      )}
      {detail.keys && detail.keys.length > 0 && (
        <Section
          title={trans.__(
            'Keys (%1 of %2)',
            detail.keys.length,
            detail.keys_total ?? detail.keys.length
          )}
        >
          <ul className="jp-KernelState-keys">
            {detail.keys.map((key, i) => (
              <li key={i}>{String(key)}</li>
            ))}
          </ul>
        </Section>
      )}
      {detail.children.length > 0 && (
        <Section
          title={trans.__(
            'Items (%1 of %2)',
            detail.children.length,
            detail.children_total
          )}
        >
          <ul className="jp-KernelState-children">
            {detail.children.map((child, i) => (
              <li key={i}>
                <button
                  className="jp-KernelState-child"
                  onClick={() => props.onDrill(child)}
                  title={trans.__('Inspect %1', child.label)}
                >
                  <span className="jp-KernelState-name">{child.label}</span>{' '}
                  <span className="jp-KernelState-dim">{child.type}</span>{' '}
                  <span className="jp-KernelState-preview">
                    {child.preview}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </Section>
      )}
      <Section title={trans.__('Value')}>
        <pre className="jp-KernelState-code" data-test-id="kernel-state-repr">
          {detail.repr}
          {detail.repr_truncated ? '\n…' : ''}
        </pre>
      </Section>
      {detail.attributes.length > 0 && (
        <Section
          title={trans.__(
            'Attributes (%1 of %2)',
            detail.attributes.length,
            detail.attributes_total
          )}
        >
          <table className="jp-KernelState-table">
            <tbody>
              {detail.attributes.map((attribute, i) => (
                <tr key={i}>
                  <td>{attribute.name}</td>
                  <td className="jp-KernelState-dim">{attribute.type}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
    </div>
  );
}

function Section(props: {
  title: string;
  open?: boolean;
  children: React.ReactNode;
}): JSX.Element {
  return (
    <details className="jp-KernelState-section" open={props.open ?? true}>
      <summary>{props.title}</summary>
      {props.children}
    </details>
  );
}
