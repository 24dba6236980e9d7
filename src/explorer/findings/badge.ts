/**
 * A column's findings badge in the summary panel: how many findings are about the
 * column, coloured (and marked) by the most severe; its tooltip lists their messages.
 * Hidden when there are none.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { IFinding } from '../../tokens';
import { element } from '../dom';
import { severityLabel, severityMarker, worstSeverity } from './text';

export function makeFindingBadge(): HTMLElement {
  const node = element('span', {
    className: 'jp-KernelState-findingBadge',
    role: 'img',
    testId: 'kernel-state-finding-badge'
  });
  node.hidden = true;
  return node;
}

export function fillFindingBadge(
  node: HTMLElement,
  findings: readonly IFinding[],
  trans: TranslationBundle
): void {
  const worst = worstSeverity(findings);
  node.hidden = worst === null;
  if (worst === null) {
    node.textContent = '';
    node.removeAttribute('data-severity');
    node.removeAttribute('aria-label');
    node.title = '';
    return;
  }
  const count = findings.length;
  node.textContent = `${severityMarker(worst, trans)} ${count}`;
  node.dataset.severity = worst;
  node.setAttribute(
    'aria-label',
    trans._n(
      '%1 finding, the most severe: %2',
      '%1 findings, the most severe: %2',
      count,
      severityLabel(worst, trans)
    )
  );
  node.title = findings
    .map(finding =>
      trans.__(
        '%1: %2',
        severityLabel(finding.severity, trans),
        finding.message
      )
    )
    .join('\n');
}
