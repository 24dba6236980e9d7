/**
 * One row of the variable list: name with its badges (secret, new/modified, removed),
 * type · size · memory, the preview, and the line of structural changes.
 *
 * Every kernel string is rendered as a React text node or attribute, never as HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { lockIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes, formatShape, previewText } from '../format';
import { IVariable } from '../tokens';
import { rowId } from './listLayout';

export interface IVariableRowProps {
  variable: IVariable;
  removed: boolean;
  index: number;
  top: number;
  height: number;
  selected: boolean;
  showPreview: boolean;
  onSelect?: (name: string) => void;
  /**
   * Select at once (a right-click: the menu is about this row).
   */
  onSelectNow?: (name: string) => void;
  onOpen?: (name: string) => void;
  onContextMenu?: (name: string, x: number, y: number) => void;
  trans: TranslationBundle;
}

function VariableRowView(props: IVariableRowProps): JSX.Element {
  const { variable, trans, removed } = props;
  const changed =
    !removed && (variable.change === 'new' || variable.change === 'modified');
  const changes = removed ? [] : (variable.changes ?? []);
  const classes = ['jp-KernelState-row'];
  if (changed) {
    classes.push(`jp-mod-${variable.change}`);
  }
  if (removed) {
    classes.push('jp-mod-removed');
  }
  if (props.selected) {
    classes.push('jp-mod-selected');
  }
  if (changes.length > 0) {
    classes.push('jp-mod-hasChanges');
  }
  const at = variable.changed_at ?? '?';
  const changeTitle = [
    variable.change === 'new'
      ? trans.__('New in execution %1', at)
      : trans.__('Modified in execution %1', at),
    ...changes
  ].join('\n');
  const bytes = formatBytes(variable.nbytes);
  const memory = formatBytes(variable.memory);
  const preview = previewText(variable);
  return (
    <div
      className={classes.join(' ')}
      id={rowId(props.index)}
      role="row"
      aria-rowindex={props.index + 2}
      aria-selected={props.selected}
      data-test-id="kernel-state-row"
      data-row-index={props.index}
      data-name={variable.name}
      data-change={removed ? 'removed' : variable.change}
      style={{ top: props.top, height: props.height }}
      onClick={() => props.onSelect?.(variable.name)}
      onDoubleClick={() => !removed && props.onOpen?.(variable.name)}
      onContextMenu={event => {
        if (!props.onContextMenu) {
          return;
        }
        event.preventDefault();
        event.stopPropagation();
        props.onSelectNow?.(variable.name);
        props.onContextMenu(variable.name, event.clientX, event.clientY);
      }}
    >
      <div
        role="gridcell"
        className="jp-KernelState-cell jp-KernelState-col-name"
        title={variable.name}
      >
        <span className="jp-KernelState-name">{variable.name}</span>
        {variable.likely_secret && (
          <span
            className="jp-KernelState-secretBadge"
            data-test-id="kernel-state-secret"
            title={
              variable.secret_reason ?? trans.__('Looks like a credential')
            }
            aria-label={trans.__(
              'Likely secret: %1',
              variable.secret_reason ?? trans.__('looks like a credential')
            )}
            role="img"
          >
            <lockIcon.react tag="span" className="jp-KernelState-secretIcon" />
          </span>
        )}
        {changed && (
          <span
            className="jp-KernelState-changeBadge"
            data-test-id="kernel-state-change"
            title={changeTitle}
          >
            {variable.change === 'new' ? trans.__('new') : trans.__('mod')}
            {variable.changed_at !== null ? ` [${variable.changed_at}]` : ''}
          </span>
        )}
        {removed && (
          <span
            className="jp-KernelState-changeBadge jp-KernelState-removedBadge"
            data-test-id="kernel-state-removed"
            title={trans.__(
              'Removed by the last execution; listed until the next one'
            )}
          >
            {trans.__('removed')}
          </span>
        )}
      </div>
      {/* type · size · memory: cells of the grid's columns, or one line (compact) */}
      <div className="jp-KernelState-meta">
        <div
          role="gridcell"
          className="jp-KernelState-cell jp-KernelState-col-type"
          title={variable.qualname || variable.type}
        >
          {variable.type}
          {variable.dtype ? ` ${variable.dtype}` : ''}
        </div>
        <div
          role="gridcell"
          className="jp-KernelState-cell jp-KernelState-col-shape"
          title={bytes}
        >
          {formatShape(variable)}
        </div>
        <div
          role="gridcell"
          className="jp-KernelState-cell jp-KernelState-col-memory"
          title={
            variable.memory === null || variable.memory === undefined
              ? trans.__('Memory not known cheaply')
              : trans.__(
                  '%1 bytes (shallow)',
                  variable.memory.toLocaleString('en-US')
                )
          }
        >
          {memory}
        </div>
      </div>
      {props.showPreview && (
        <div
          role="gridcell"
          className={`jp-KernelState-cell jp-KernelState-col-preview${
            preview !== variable.preview ? ' jp-mod-masked' : ''
          }`}
          title={variable.error ?? preview}
          data-test-id="kernel-state-preview"
        >
          {variable.error ? (
            <span className="jp-KernelState-fieldError">{variable.error}</span>
          ) : (
            preview
          )}
        </div>
      )}
      {changes.length > 0 && (
        <div
          className="jp-KernelState-changesLine"
          data-test-id="kernel-state-changes"
          title={changeTitle}
        >
          {changes.join('; ')}
        </div>
      )}
    </div>
  );
}

export const VariableRow = React.memo(VariableRowView);
