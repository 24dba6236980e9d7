/**
 * What the findings say, as text: a severity's label and marker, a kind's name, the
 * counts by severity, the one muted line of what was cut, not checked or failed, and
 * the syntaxes a value's fixes are offered in. Pure: the model and the views share
 * them, every word through the translator.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { IFinding, IFindingsQuery, ITableFindings } from '../../tokens';

export type FindingSeverity = IFinding['severity'];

/**
 * A syntax fix code is written in.
 */
export type FixSyntax = NonNullable<IFindingsQuery['syntax']>;

/**
 * Severities, the most severe first.
 */
export const SEVERITIES: readonly FindingSeverity[] = [
  'error',
  'warning',
  'info'
];

const numberFormat = new Intl.NumberFormat('en-US');

const FIX_SYNTAXES: readonly string[] = ['pandas', 'polars', 'dplyr', 'duckdb'];

export function isFixSyntax(
  syntax: string | null | undefined
): syntax is FixSyntax {
  return typeof syntax === 'string' && FIX_SYNTAXES.includes(syntax);
}

/**
 * The syntaxes a value's fixes are offered in: its own first (its library's or its
 * engine's), then dplyr (the server writes dplyr fixes for any data frame); none when
 * the value has no fix syntax.
 */
export function fixSyntaxChoices(own: FixSyntax | null): FixSyntax[] {
  if (own === null) {
    return [];
  }
  return own === 'dplyr' ? ['dplyr'] : [own, 'dplyr'];
}

/**
 * A severity's marker: a glyph of its own shape, so it reads without its colour.
 */
const MARKERS: Record<FindingSeverity, string> = {
  error: '✖',
  warning: '▲',
  info: '●'
};

export function severityMarker(
  severity: FindingSeverity,
  trans: TranslationBundle
): string {
  return trans._p('finding severity marker', MARKERS[severity]);
}

export function severityLabel(
  severity: FindingSeverity,
  trans: TranslationBundle
): string {
  switch (severity) {
    case 'error':
      return trans.__('Error');
    case 'warning':
      return trans.__('Warning');
    default:
      return trans.__('Note');
  }
}

/**
 * What a kind of finding is about (for what was not checked).
 */
export function kindLabel(kind: string, trans: TranslationBundle): string {
  switch (kind) {
    case 'empty_column':
      return trans.__('empty columns');
    case 'missing':
      return trans.__('missing values');
    case 'duplicate_rows':
      return trans.__('duplicate rows');
    case 'id_like':
      return trans.__('ID-like columns');
    case 'duplicate_keys':
      return trans.__('duplicate keys');
    case 'constant':
      return trans.__('constant columns');
    case 'outliers':
      return trans.__('outliers');
    case 'mixed_types':
      return trans.__('mixed types');
    case 'numbers_as_text':
      return trans.__('numbers stored as text');
    case 'dates_as_text':
      return trans.__('dates stored as text');
    case 'near_duplicate_labels':
      return trans.__('near-duplicate labels');
    case 'correlated':
      return trans.__('correlated columns');
    default:
      return kind;
  }
}

/**
 * The most severe of some findings, or null for none.
 */
export function worstSeverity(
  findings: readonly IFinding[]
): FindingSeverity | null {
  return (
    SEVERITIES.find(severity =>
      findings.some(finding => finding.severity === severity)
    ) ?? null
  );
}

/**
 * `2 errors · 1 warning · 3 notes` (the severities found), or `No findings`.
 */
export function severitiesText(
  counts: ITableFindings['severities'],
  trans: TranslationBundle
): string {
  const parts: string[] = [];
  if (counts.error > 0) {
    parts.push(trans._n('%1 error', '%1 errors', counts.error));
  }
  if (counts.warning > 0) {
    parts.push(trans._n('%1 warning', '%1 warnings', counts.warning));
  }
  if (counts.info > 0) {
    parts.push(trans._n('%1 note', '%1 notes', counts.info));
  }
  return parts.length ? parts.join(' · ') : trans.__('No findings');
}

/**
 * The muted line under the list: findings not listed, columns and kinds not checked,
 * checks that failed, a sample, an answer from before the running cell; and its
 * tooltip (the reasons and errors, one a line). Empty text when all was checked.
 */
export function findingsNote(
  reply: ITableFindings,
  trans: TranslationBundle
): { text: string; title: string } {
  const parts: string[] = [];
  const reasons: string[] = [];
  if (reply.findings_cut > 0) {
    parts.push(
      trans._n(
        '%1 more finding not listed',
        '%1 more findings not listed',
        reply.findings_cut
      )
    );
  }
  const checked = reply.view.columns?.length ?? reply.columns_total;
  if (checked < reply.columns_total) {
    parts.push(
      trans.__('%1 of %2 columns checked', checked, reply.columns_total)
    );
  }
  if (reply.columns_cut > 0) {
    parts.push(
      trans._n(
        '%1 column not checked in time',
        '%1 columns not checked in time',
        reply.columns_cut
      )
    );
  }
  if (reply.not_checked.length > 0) {
    parts.push(
      trans.__(
        'not checked: %1',
        reply.not_checked.map(item => kindLabel(item.kind, trans)).join(', ')
      )
    );
    for (const item of reply.not_checked) {
      reasons.push(
        trans.__('%1: %2', kindLabel(item.kind, trans), item.reason)
      );
    }
  }
  if (reply.errors.length > 0) {
    parts.push(
      trans._n('%1 check failed', '%1 checks failed', reply.errors.length)
    );
    for (const item of reply.errors) {
      const where = item.column ? `${item.check} (${item.column})` : item.check;
      reasons.push(trans.__('%1: %2', where, item.error));
    }
  }
  if (reply.sampled && reply.sample_rows !== null) {
    parts.push(
      trans.__(
        'checked on a sample of %1 rows',
        numberFormat.format(reply.sample_rows)
      )
    );
  }
  if (reply.stale) {
    parts.push(trans.__('from before the running cell'));
  }
  return { text: parts.join(' · '), title: reasons.join('\n') };
}
