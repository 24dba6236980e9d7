/**
 * A section of the sidebar below the variable list that the user can fold away; a
 * folded section makes no requests (its model is inactive).
 */
import { caretDownIcon, caretRightIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

export interface ICollapsibleSectionProps {
  /**
   * `data-test-id` of the section.
   */
  testId: string;
  title: string;
  /**
   * Short text aside the title (counts, size), shown folded or not.
   */
  aside?: React.ReactNode;
  expanded: boolean;
  onToggle: () => void;
  /**
   * Buttons at the right of the header.
   */
  actions?: React.ReactNode;
  className?: string;
  children?: React.ReactNode;
}

export function CollapsibleSection(
  props: ICollapsibleSectionProps
): JSX.Element {
  const bodyId = React.useId();
  const Caret = props.expanded ? caretDownIcon : caretRightIcon;
  const classes = ['jp-KernelState-fold'];
  if (props.className) {
    classes.push(props.className);
  }
  if (props.expanded) {
    classes.push('jp-mod-expanded');
  }
  return (
    <section
      className={classes.join(' ')}
      data-test-id={props.testId}
      aria-label={props.title}
    >
      <div className="jp-KernelState-foldHeader">
        <button
          className="jp-KernelState-foldToggle"
          aria-expanded={props.expanded}
          aria-controls={bodyId}
          onClick={props.onToggle}
        >
          <Caret.react tag="span" className="jp-KernelState-foldCaret" />
          <span className="jp-KernelState-foldTitle">{props.title}</span>
          {props.aside !== undefined && (
            <span className="jp-KernelState-foldSummary">{props.aside}</span>
          )}
        </button>
        {props.expanded && props.actions}
      </div>
      {props.expanded && (
        <div className="jp-KernelState-foldBody" id={bodyId}>
          {props.children}
        </div>
      )}
    </section>
  );
}
