/**
 * The detail of one variable: repr, table columns and first rows, keys, signature and
 * doc, attributes, and children to drill into (with a breadcrumb back up).
 *
 * Every kernel string is rendered as a React text node, never as HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { lockIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import {
  errorLine,
  formatShape,
  isExplorable,
  isMasked,
  MASKED_TEXT
} from '../format';
import {
  attributesShown,
  keysShown,
  secretExplanation
} from '../models/inspector';
import { ITableHead } from '../payloads';
import {
  IChild,
  ILineageExecution,
  ITimeline,
  ITimelineEntry,
  IVariableDetail
} from '../tokens';

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
  /**
   * The real values of a masked secret are shown.
   */
  revealed?: boolean;
  /**
   * Fetch the real values of a masked secret (shown only when given).
   */
  onReveal?: () => void;
  /**
   * The name's change timeline (oldest first), and why it is missing.
   */
  timeline?: ITimeline | null;
  timelineError?: string | null;
  /**
   * Scroll to a notebook cell by its id (lineage entries that know their cell); false
   * when the active notebook does not hold it.
   */
  onGoToCell?: (cellId: string) => boolean;
  /**
   * Open the variable in the Data Explorer (a table or an array at the top level).
   */
  onOpenExplorer?: () => void;
  /**
   * Methods are listed among the attributes (hidden by default), and the toggle.
   */
  showMethods?: boolean;
  onToggleMethods?: () => void;
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
          {errorLine(props.error)}
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
  const masked = isMasked(detail) && !props.revealed;
  const error = errorLine(detail.error);
  const explorable = !!props.onOpenExplorer && isExplorable(detail);
  const attributes = attributesShown(detail, !!props.showMethods);
  const keys = detail.keys;
  const why =
    secretExplanation(detail.secret_reason) || trans.__('its name or value');
  return (
    <div className="jp-KernelState-inspectorBody">
      <div className="jp-KernelState-typeLine">
        <span className="jp-KernelState-type">
          {detail.qualname || detail.type}
        </span>
        {/* "·" joined to what follows (a no-break space): "dict ·" never ends a line */}
        {shape && (
          <span>
            {' '}
            ·{'\u00a0'}
            {shape}
          </span>
        )}
        {detail.dtype && (
          <span>
            {' '}
            ·{'\u00a0'}
            {detail.dtype}
          </span>
        )}
      </div>
      {error && (
        <div
          className="jp-KernelState-fieldError"
          data-test-id="kernel-state-field-error"
        >
          {error}
        </div>
      )}
      {explorable && (
        <button
          className="jp-KernelState-button"
          data-test-id="kernel-state-open-explorer"
          onClick={props.onOpenExplorer}
          title={trans.__('Show every row in the Data Explorer')}
        >
          {trans.__('Open in Data Explorer')}
        </button>
      )}
      {(detail.likely_secret || detail.masked) && (
        <div
          className="jp-KernelState-secretNote"
          data-test-id="kernel-state-secret-note"
        >
          <lockIcon.react tag="span" className="jp-KernelState-secretIcon" />
          <span>
            {props.revealed
              ? trans.__(
                  'Looks like a credential: %1. Shown here only; masked everywhere else.',
                  why
                )
              : trans.__('Looks like a credential: %1. Masked.', why)}
          </span>
          {masked && props.onReveal && (
            <button
              className="jp-KernelState-button"
              data-test-id="kernel-state-reveal"
              onClick={props.onReveal}
              title={trans.__(
                'Show the real value here, until another variable is selected'
              )}
            >
              {trans.__('Reveal')}
            </button>
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
      {props.timeline && props.timeline.entries.length > 0 && (
        <Section
          title={trans.__(
            'Changes (%1 of %2)',
            props.timeline.entries.length,
            props.timeline.total
          )}
        >
          <ol
            className="jp-KernelState-timeline"
            data-test-id="kernel-state-timeline"
          >
            {[...props.timeline.entries].reverse().map((entry, i) => (
              <li key={i}>{timelineText(entry, trans)}</li>
            ))}
          </ol>
          {props.timeline.complete_after !== null &&
            props.timeline.complete_after !== undefined && (
              <div className="jp-KernelState-dim">
                {trans.__(
                  'Changes before execution %1 are not kept.',
                  props.timeline.complete_after + 1
                )}
              </div>
            )}
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
          <HeadTable head={detail.head} />
        </Section>
      )}
      {keysShown(detail) && keys && (
        <Section
          title={trans.__(
            'Keys (%1 of %2)',
            keys.length,
            detail.keys_total ?? keys.length
          )}
        >
          <ul className="jp-KernelState-keys">
            {keys.map((key, i) => (
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
          {masked ? MASKED_TEXT : detail.repr}
          {!masked && detail.repr_truncated ? '\n…' : ''}
        </pre>
      </Section>
      {/* Where it was defined and used: after its value, which comes first. */}
      {props.timeline && (
        <Lineage
          timeline={props.timeline}
          onGoToCell={props.onGoToCell}
          trans={trans}
        />
      )}
      {detail.attributes.length > 0 && (
        <Section
          title={trans.__(
            'Attributes (%1 of %2)',
            attributes.listed.length,
            detail.attributes_total
          )}
        >
          {attributes.listed.length > 0 && (
            <table
              className="jp-KernelState-table"
              data-test-id="kernel-state-attributes"
            >
              <tbody>
                {attributes.listed.map((attribute, i) => (
                  <tr key={i}>
                    <td>{attribute.name}</td>
                    <td className="jp-KernelState-dim">{attribute.type}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {(attributes.methods > 0 || attributes.unsent > 0) && (
            <div className="jp-KernelState-dim">
              {attributes.unsent > 0 &&
                trans.__('%1 more not listed. ', attributes.unsent)}
              {attributes.methods > 0 && props.onToggleMethods && (
                <button
                  className="jp-KernelState-button"
                  data-test-id="kernel-state-methods-toggle"
                  aria-pressed={!!props.showMethods}
                  onClick={props.onToggleMethods}
                >
                  {props.showMethods
                    ? trans.__('Hide methods')
                    : trans._n(
                        'Show %1 method',
                        'Show %1 methods',
                        attributes.methods
                      )}
                </button>
              )}
            </div>
          )}
        </Section>
      )}
    </div>
  );
}

/**
 * `[11] modified — column revenue added; rows 100 → 95`.
 */
export function timelineText(
  entry: ITimelineEntry,
  trans: TranslationBundle
): string {
  const at = `[${entry.execution_count}]`;
  const change =
    entry.change === 'new'
      ? trans.__('new')
      : entry.change === 'modified'
        ? trans.__('modified')
        : trans.__('removed');
  const what = entry.changes.join('; ');
  return what ? `${at} ${change} — ${what}` : `${at} ${change}`;
}

/**
 * Where the name was defined and used (the timeline's lineage, Python kernels): the
 * newest first, each execution with its cell's first line of code; one whose cell id
 * is known scrolls to that cell. Nothing when the kernel keeps no lineage (R).
 */
function Lineage(props: {
  timeline: ITimeline;
  onGoToCell?: (cellId: string) => boolean;
  trans: TranslationBundle;
}): JSX.Element | null {
  const { timeline, trans } = props;
  if (!timeline.defined_in && !timeline.used_in) {
    return null;
  }
  const totals = timeline.lineage_totals;
  const lists: [string, string, ILineageExecution[], number | undefined][] = [
    [
      'kernel-state-defined-in',
      trans.__('Defined in'),
      timeline.defined_in ?? [],
      totals?.defined_in
    ],
    [
      'kernel-state-used-in',
      trans.__('Used in'),
      timeline.used_in ?? [],
      totals?.used_in
    ],
    [
      'kernel-state-unknown-in',
      trans.__('Maybe touched in (dynamic access)'),
      timeline.unknown ?? [],
      totals?.unknown
    ]
  ];
  return (
    <>
      {lists.map(([testId, title, entries, total]) =>
        entries.length === 0 && testId === 'kernel-state-unknown-in' ? null : (
          <Section
            key={testId}
            title={
              total !== undefined && total > entries.length
                ? trans.__('%1 (%2 of %3)', title, entries.length, total)
                : title
            }
          >
            {entries.length === 0 ? (
              <div className="jp-KernelState-dim">
                {trans.__('No execution kept.')}
              </div>
            ) : (
              <ol className="jp-KernelState-lineage" data-test-id={testId}>
                {[...entries].reverse().map(entry => (
                  <li key={entry.execution_count}>
                    <LineageEntry
                      entry={entry}
                      onGoToCell={props.onGoToCell}
                      trans={trans}
                    />
                  </li>
                ))}
              </ol>
            )}
          </Section>
        )
      )}
    </>
  );
}

function LineageEntry(props: {
  entry: ILineageExecution;
  onGoToCell?: (cellId: string) => boolean;
  trans: TranslationBundle;
}): JSX.Element {
  const { entry, onGoToCell, trans } = props;
  const text = lineageText(entry, trans);
  const cellId = entry.cell_id;
  if (!cellId || !onGoToCell) {
    return <span title={entry.code}>{text}</span>;
  }
  return (
    <button
      className="jp-KernelState-lineageLink"
      title={trans.__('Go to the cell\n%1', entry.code)}
      data-cell-id={cellId}
      onClick={() => onGoToCell(cellId)}
    >
      {text}
    </button>
  );
}

/**
 * `[3] df = pd.read_csv(p)` — the execution and its cell's first line of code, with
 * how it touched the name when that says more than the list does.
 */
export function lineageText(
  entry: ILineageExecution,
  trans: TranslationBundle
): string {
  const first = entry.code.split('\n', 1)[0];
  const parts = [`[${entry.execution_count}]`, first];
  if (entry.kind === 'changed') {
    parts.push(trans.__('(changed)'));
  } else if (entry.kind === 'deleted') {
    parts.push(trans.__('(deleted)'));
  }
  if (entry.in_function) {
    parts.push(trans.__('(in a function)'));
  }
  if (entry.reasons && entry.reasons.length > 0) {
    parts.push(`(${entry.reasons.join(', ')})`);
  }
  return parts.join(' ');
}

/**
 * A table's first rows, with its row labels when it has an index (a polars DataFrame or
 * a list of records has none: `index` is null).
 */
function HeadTable(props: { head: ITableHead }): JSX.Element {
  const { columns, index, rows } = props.head;
  return (
    <div className="jp-KernelState-tableScroll">
      <table className="jp-KernelState-table" data-test-id="kernel-state-head">
        <thead>
          <tr>
            {index && <th />}
            {columns.map((name, i) => (
              <th key={i}>{name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              {index && <th>{index[r] ?? ''}</th>}
              {row.map((cell, c) => (
                <td key={c}>{String(cell)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
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
