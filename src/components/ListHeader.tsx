/**
 * The variable list's header row: a sort button per sortable column, and a drag
 * handle at each sized column's right edge (columns layout only).
 */
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { ariaSort, nextSort, parseSort } from '../models/list/sort';
import { ColumnKey, ColumnWidths } from '../models/list/widths';
import { SnapshotSort, SnapshotSortKey } from '../tokens';
import { ListLayout } from './listLayout';

interface IColumnSpec {
  key: ColumnKey | 'preview';
  label: string;
  title: string;
  sort?: SnapshotSortKey;
}

/**
 * A column being dragged: its width shows at once, the model learns it on release.
 */
export interface IColumnDraft {
  key: ColumnKey;
  width: number;
}

export interface IListHeaderProps {
  sort: SnapshotSort;
  onSort?: (sort: SnapshotSort) => void;
  layout: ListLayout;
  /**
   * The widths shown (a dragged column's draft width included).
   */
  widths: ColumnWidths;
  onDraft: (draft: IColumnDraft | null) => void;
  onResize?: (key: ColumnKey, width: number) => void;
  showPreview: boolean;
  trans: TranslationBundle;
}

export function ListHeader(props: IListHeaderProps): JSX.Element {
  const { trans, showPreview } = props;
  const columns: IColumnSpec[] = [
    {
      key: 'name',
      label: trans.__('Name'),
      title: trans.__('Name'),
      sort: 'name'
    },
    {
      key: 'type',
      label: trans.__('Type'),
      title: trans.__('Type'),
      sort: 'type'
    },
    {
      key: 'shape',
      label: trans.__('Size'),
      title: trans.__('Shape or length'),
      sort: 'size'
    },
    {
      key: 'memory',
      label: trans.__('Memory'),
      title: trans.__('Memory (shallow)'),
      sort: 'memory'
    }
  ];
  if (showPreview) {
    columns.push({
      key: 'preview',
      label: trans.__('Preview'),
      title: trans.__('Preview')
    });
  }
  return (
    <div className="jp-KernelState-gridHeader" role="row" aria-rowindex={1}>
      {columns.map(column => (
        <div
          key={column.key}
          role="columnheader"
          className={`jp-KernelState-cell jp-KernelState-col-${column.key}`}
          aria-sort={
            column.sort ? ariaSort(props.sort, column.sort) : undefined
          }
          data-test-id={`kernel-state-header-${column.key}`}
        >
          {column.sort && props.onSort ? (
            <button
              className="jp-KernelState-sortButton"
              onClick={() => props.onSort?.(nextSort(props.sort, column.sort!))}
              title={sortTitle(trans, column, props.sort)}
            >
              {column.label}
              {sortMark(props.sort, column.sort)}
            </button>
          ) : (
            <span title={column.title}>{column.label}</span>
          )}
          {props.layout === 'columns' && column.key !== 'preview' && (
            <ResizeHandle
              column={column.key}
              label={column.label}
              width={props.widths[column.key]}
              onDraft={w =>
                props.onDraft(
                  w === null ? null : { key: column.key as ColumnKey, width: w }
                )
              }
              onResize={props.onResize}
              trans={trans}
            />
          )}
        </div>
      ))}
    </div>
  );
}

function sortMark(sort: SnapshotSort, key: SnapshotSortKey): string {
  const parsed = parseSort(sort);
  if (parsed.key !== key) {
    return '';
  }
  return parsed.direction === 'asc' ? ' ▲' : ' ▼';
}

function sortTitle(
  trans: TranslationBundle,
  column: IColumnSpec,
  sort: SnapshotSort
): string {
  const parsed = parseSort(sort);
  if (parsed.key === column.sort) {
    return parsed.direction === 'asc'
      ? trans.__('Sorted by %1, ascending: click to reverse', column.title)
      : trans.__('Sorted by %1, descending: click to reverse', column.title);
  }
  return trans.__('Sort by %1', column.title);
}

interface IResizeHandleProps {
  column: ColumnKey | 'preview';
  label: string;
  width: number;
  onDraft: (width: number | null) => void;
  onResize?: (key: ColumnKey, width: number) => void;
  trans: TranslationBundle;
}

/**
 * The drag handle at a header's right edge; arrow keys resize by 16 px.
 */
function ResizeHandle(props: IResizeHandleProps): JSX.Element {
  const key = props.column as ColumnKey;
  const drag = React.useRef<{ x: number; width: number } | null>(null);
  const onPointerDown = (event: React.PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    drag.current = { x: event.clientX, width: props.width };
    event.currentTarget.setPointerCapture?.(event.pointerId);
  };
  const current = (event: React.PointerEvent) =>
    drag.current ? drag.current.width + event.clientX - drag.current.x : null;
  const onPointerMove = (event: React.PointerEvent) => {
    const width = current(event);
    if (width !== null) {
      props.onDraft(Math.max(40, width));
    }
  };
  const onPointerUp = (event: React.PointerEvent<HTMLDivElement>) => {
    const width = current(event);
    drag.current = null;
    event.currentTarget.releasePointerCapture?.(event.pointerId);
    props.onDraft(null);
    if (width !== null) {
      props.onResize?.(key, width);
    }
  };
  const onKeyDown = (event: React.KeyboardEvent) => {
    const step =
      event.key === 'ArrowRight' ? 16 : event.key === 'ArrowLeft' ? -16 : 0;
    if (step) {
      event.preventDefault();
      event.stopPropagation();
      props.onResize?.(key, props.width + step);
    }
  };
  return (
    <div
      className="jp-KernelState-resizeHandle"
      role="separator"
      aria-orientation="vertical"
      aria-label={props.trans.__('Resize the %1 column', props.label)}
      aria-valuenow={props.width}
      aria-valuemin={40}
      aria-valuemax={800}
      tabIndex={props.onResize ? 0 : -1}
      data-test-id={`kernel-state-resize-${key}`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={onKeyDown}
      onClick={event => event.stopPropagation()}
    />
  );
}
