/**
 * A virtualised grid of variables: only the rows in view (plus a few) are rendered,
 * at a fixed row height, over a spacer as tall as the whole list.
 *
 * Every kernel string is rendered as a React text node or attribute, never as HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { lockIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes, formatShape } from '../format';
import { markPaintedAfterFrame } from '../perf';
import { IVariable, SnapshotSort } from '../tokens';

export const ROW_HEIGHT = 24;

export interface IVariableListProps {
  variables: IVariable[];
  sort: SnapshotSort;
  onSort?: (sort: SnapshotSort) => void;
  selected: string | null;
  onSelect?: (name: string) => void;
  showPreview?: boolean;
  trans: TranslationBundle;
  rowHeight?: number;
  /**
   * Rows rendered beyond each edge of the viewport.
   */
  overscan?: number;
  /**
   * Viewport height used until the element can be measured (tests, first paint).
   */
  initialHeight?: number;
}

interface IColumnSpec {
  key: string;
  label: string;
  sort?: SnapshotSort;
}

export function VariableList(props: IVariableListProps): JSX.Element {
  const {
    variables,
    trans,
    selected,
    showPreview = true,
    rowHeight = ROW_HEIGHT,
    overscan = 8
  } = props;
  const body = React.useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = React.useState(0);
  const [height, setHeight] = React.useState(props.initialHeight ?? 480);

  React.useEffect(() => {
    const element = body.current;
    if (!element) {
      return;
    }
    const measure = () => {
      if (element.clientHeight > 0) {
        setHeight(element.clientHeight);
      }
    };
    measure();
    if (typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const count = variables.length;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(
    count,
    Math.ceil((scrollTop + height) / rowHeight) + overscan
  );

  // For the first-paint benchmark: a new list was committed; mark once it is painted.
  React.useEffect(() => {
    markPaintedAfterFrame(last - first, count);
  }, [variables]);

  const columns: IColumnSpec[] = [
    { key: 'name', label: trans.__('Name'), sort: 'name' },
    { key: 'type', label: trans.__('Type'), sort: 'type' },
    { key: 'shape', label: trans.__('Shape/Size'), sort: 'size' }
  ];
  if (showPreview) {
    columns.push({ key: 'preview', label: trans.__('Preview') });
  }

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (!props.onSelect || count === 0) {
      return;
    }
    const index = variables.findIndex(v => v.name === selected);
    let next = index;
    if (event.key === 'ArrowDown') {
      next = Math.min(count - 1, index + 1);
    } else if (event.key === 'ArrowUp') {
      next = Math.max(0, index - 1);
    } else {
      return;
    }
    event.preventDefault();
    props.onSelect(variables[next].name);
  };

  // Keep the selected row in view (keyboard, a selection made elsewhere, a resize).
  React.useEffect(() => {
    const element = body.current;
    const index =
      selected === null ? -1 : variables.findIndex(v => v.name === selected);
    if (!element || index < 0) {
      return;
    }
    const view = element.clientHeight || height;
    const top = index * rowHeight;
    if (top < element.scrollTop) {
      element.scrollTop = top;
    } else if (top + rowHeight > element.scrollTop + view) {
      element.scrollTop = top + rowHeight - view;
    }
  }, [selected, height]);

  const rows: JSX.Element[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <VariableRow
        key={variables[i].name}
        variable={variables[i]}
        index={i}
        top={i * rowHeight}
        height={rowHeight}
        selected={variables[i].name === selected}
        showPreview={showPreview}
        onSelect={props.onSelect}
        trans={trans}
      />
    );
  }

  return (
    <div
      className={`jp-KernelState-grid${showPreview ? '' : ' jp-mod-noPreview'}`}
      role="grid"
      aria-label={trans.__('Kernel variables')}
      aria-rowcount={count + 1}
      tabIndex={0}
      onKeyDown={onKeyDown}
    >
      <div className="jp-KernelState-gridHeader" role="row" aria-rowindex={1}>
        {columns.map(column => (
          <div
            key={column.key}
            role="columnheader"
            className={`jp-KernelState-cell jp-KernelState-col-${column.key}`}
            aria-sort={
              column.sort && column.sort === props.sort
                ? 'ascending'
                : undefined
            }
          >
            {column.sort && props.onSort ? (
              <button
                className="jp-KernelState-sortButton"
                onClick={() => props.onSort?.(column.sort!)}
                title={trans.__('Sort by %1', column.label)}
              >
                {column.label}
                {column.sort === props.sort ? ' ▲' : ''}
              </button>
            ) : (
              column.label
            )}
          </div>
        ))}
      </div>
      <div
        className="jp-KernelState-gridBody"
        role="rowgroup"
        ref={body}
        onScroll={event => setScrollTop(event.currentTarget.scrollTop)}
      >
        <div
          className="jp-KernelState-spacer"
          style={{ height: count * rowHeight }}
        >
          {rows}
        </div>
      </div>
    </div>
  );
}

interface IVariableRowProps {
  variable: IVariable;
  index: number;
  top: number;
  height: number;
  selected: boolean;
  showPreview: boolean;
  onSelect?: (name: string) => void;
  trans: TranslationBundle;
}

function VariableRowView(props: IVariableRowProps): JSX.Element {
  const { variable, trans } = props;
  const changed = variable.change === 'new' || variable.change === 'modified';
  const classes = ['jp-KernelState-row'];
  if (changed) {
    classes.push(`jp-mod-${variable.change}`);
  }
  if (props.selected) {
    classes.push('jp-mod-selected');
  }
  const changeTitle =
    variable.change === 'new'
      ? trans.__('New in execution %1', variable.changed_at ?? '?')
      : trans.__('Modified in execution %1', variable.changed_at ?? '?');
  const bytes = formatBytes(variable.nbytes);
  return (
    <div
      className={classes.join(' ')}
      role="row"
      aria-rowindex={props.index + 2}
      aria-selected={props.selected}
      data-test-id="kernel-state-row"
      data-name={variable.name}
      data-change={variable.change}
      style={{ top: props.top, height: props.height }}
      onClick={() => props.onSelect?.(variable.name)}
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
      </div>
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
      {props.showPreview && (
        <div
          role="gridcell"
          className="jp-KernelState-cell jp-KernelState-col-preview"
          title={variable.error ?? variable.preview}
        >
          {variable.error ? (
            <span className="jp-KernelState-fieldError">{variable.error}</span>
          ) : (
            variable.preview
          )}
          {variable.truncated ? '…' : ''}
        </div>
      )}
    </div>
  );
}

const VariableRow = React.memo(VariableRowView);
