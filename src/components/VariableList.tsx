/**
 * A virtualised grid of variables: only the rows in view (plus a few) are rendered,
 * over a spacer as tall as the whole list.
 *
 * Two layouts: columns (name, type, size, memory, preview; widths set by dragging the
 * header's handles) when they fit, else compact rows (the name and preview on a first
 * line, type · shape · memory on a second) that read at the sidebar's default width.
 * A variable with structural changes gets one more line listing them; variables the
 * last execution removed stay listed, struck through, until the next one.
 *
 * Every kernel string is rendered as a React text node or attribute, never as HTML.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { lockIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { formatBytes, formatShape, previewText } from '../format';
import {
  ariaSort,
  ColumnKey,
  ColumnWidths,
  DEFAULT_COLUMN_WIDTHS,
  IListRow,
  navigate,
  nextSort,
  parseSort,
  TypeAhead
} from '../models/list';
import { markPaintedAfterFrame } from '../perf';
import { IVariable, SnapshotSort, SnapshotSortKey } from '../tokens';

/**
 * Row heights: one line (columns), two lines (compact), and the changes line.
 */

/**
 * How long a click on another row waits before selecting it (a second click within it
 * makes a double-click, which opens the variable instead).
 */
const DOUBLE_CLICK_MS = 250;

export const ROW_HEIGHT = 24;
export const COMPACT_ROW_HEIGHT = 40;
export const CHANGES_LINE_HEIGHT = 18;

/**
 * Room the preview needs beside the sized columns before the list goes compact.
 */
const PREVIEW_MIN_WIDTH = 80;

export type ListLayout = 'columns' | 'compact';

export interface IVariableListProps {
  /**
   * The rows to show (removed variables included); `variables` is the short form
   * for a list without removed rows.
   */
  rows?: IListRow[];
  variables?: IVariable[];
  sort: SnapshotSort;
  onSort?: (sort: SnapshotSort) => void;
  selected: string | null;
  onSelect?: (name: string) => void;
  /**
   * Enter or a double-click on a row (open it in the Data Explorer).
   */
  onOpen?: (name: string) => void;
  /**
   * Escape: clear the selection.
   */
  onEscape?: () => void;
  /**
   * A right-click, Shift+F10 or the context-menu key on a row, with where to open the
   * menu (client coordinates).
   */
  onContextMenu?: (name: string, x: number, y: number) => void;
  widths?: ColumnWidths;
  onResize?: (key: ColumnKey, width: number) => void;
  /**
   * Force a layout; by default columns when they fit, else compact.
   */
  layout?: ListLayout;
  showPreview?: boolean;
  trans: TranslationBundle;
  /**
   * Height of a one-line row (columns layout).
   */
  rowHeight?: number;
  /**
   * Rows rendered beyond each edge of the viewport.
   */
  overscan?: number;
  /**
   * Viewport height and width used until the element can be measured (tests, first
   * paint).
   */
  initialHeight?: number;
  initialWidth?: number;
}

interface IColumnSpec {
  key: ColumnKey | 'preview';
  label: string;
  title: string;
  sort?: SnapshotSortKey;
}

export function VariableList(props: IVariableListProps): JSX.Element {
  const {
    trans,
    selected,
    showPreview = true,
    overscan = 8,
    widths = DEFAULT_COLUMN_WIDTHS
  } = props;
  const rows = React.useMemo(
    () =>
      props.rows ??
      (props.variables ?? []).map(variable => ({ variable, removed: false })),
    [props.rows, props.variables]
  );
  const grid = React.useRef<HTMLDivElement>(null);
  const body = React.useRef<HTMLDivElement>(null);
  const typeAhead = React.useRef(new TypeAhead());
  const [scrollTop, setScrollTop] = React.useState(0);
  const [height, setHeight] = React.useState(props.initialHeight ?? 480);
  const [width, setWidth] = React.useState(props.initialWidth ?? 600);
  // A column being dragged: its width shows at once, the model learns it on release.
  const [draft, setDraft] = React.useState<{
    key: ColumnKey;
    width: number;
  } | null>(null);

  React.useEffect(() => {
    const element = body.current;
    const outer = grid.current;
    if (!element || !outer) {
      return;
    }
    const measure = () => {
      if (element.clientHeight > 0) {
        setHeight(element.clientHeight);
      }
      if (outer.clientWidth > 0) {
        setWidth(outer.clientWidth);
      }
    };
    measure();
    if (typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    observer.observe(outer);
    return () => observer.disconnect();
  }, []);

  const shown: ColumnWidths = draft
    ? { ...widths, [draft.key]: draft.width }
    : widths;
  const sized = shown.name + shown.type + shown.shape + shown.memory;
  const layout: ListLayout =
    props.layout ??
    (width >= sized + (showPreview ? PREVIEW_MIN_WIDTH : 0)
      ? 'columns'
      : 'compact');
  const lineHeight =
    layout === 'columns' ? (props.rowHeight ?? ROW_HEIGHT) : COMPACT_ROW_HEIGHT;

  // Row offsets: a row with changes is one line taller.
  const offsets = React.useMemo(() => {
    const tops = new Array<number>(rows.length + 1);
    tops[0] = 0;
    for (let i = 0; i < rows.length; i++) {
      tops[i + 1] = tops[i] + rowHeightOf(rows[i], lineHeight);
    }
    return tops;
  }, [rows, lineHeight]);
  const count = rows.length;
  const total = offsets[count];
  const firstInView = indexAt(offsets, scrollTop);
  const lastInView = indexAt(offsets, scrollTop + height);
  const first = Math.max(0, firstInView - overscan);
  const last = Math.min(count, lastInView + 1 + overscan);

  // For the first-paint benchmark: a new list was committed; mark once it is painted.
  React.useEffect(() => {
    markPaintedAfterFrame(last - first, count);
  }, [rows]);

  const selectedIndex = React.useMemo(
    () =>
      selected === null
        ? -1
        : rows.findIndex(r => r.variable.name === selected),
    [rows, selected]
  );

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

  const openMenuAt = (index: number) => {
    const name = rows[index]?.variable.name;
    if (!name || !props.onContextMenu) {
      return;
    }
    const element = grid.current?.querySelector<HTMLElement>(
      `[data-row-index="${index}"]`
    );
    const rect = (element ?? grid.current)?.getBoundingClientRect();
    props.onContextMenu(
      name,
      rect ? rect.left + 16 : 0,
      rect ? rect.top + Math.min(rect.height, lineHeight) : 0
    );
  };

  // A click on another row selects it after the double-click interval: selecting opens
  // the inspector, which shortens the list and moves the rows, so the second click of
  // a double-click would otherwise land elsewhere. A double-click opens at once.
  const pendingClick = React.useRef<{ timer: number; name: string } | null>(
    null
  );
  const cancelClick = (): string | null => {
    const pending = pendingClick.current;
    if (pending === null) {
      return null;
    }
    window.clearTimeout(pending.timer);
    pendingClick.current = null;
    return pending.name;
  };
  React.useEffect(() => () => void cancelClick(), []);
  const onRowClick = (name: string): void => {
    cancelClick();
    if (name === props.selected || !props.onOpen) {
      props.onSelect?.(name);
      return;
    }
    const timer = window.setTimeout(() => {
      pendingClick.current = null;
      props.onSelect?.(name);
    }, DOUBLE_CLICK_MS);
    pendingClick.current = { timer, name };
  };
  const onRowDoubleClick = (name: string): void => {
    cancelClick();
    props.onOpen?.(name);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.target !== event.currentTarget && !isRowTarget(event)) {
      return; // a header button or resize handle has the focus
    }
    // A click still waiting for the double-click interval: the keys act on its row.
    const clicked = cancelClick();
    let current = selectedIndex;
    if (clicked !== null) {
      props.onSelect?.(clicked);
      current = rows.findIndex(r => r.variable.name === clicked);
    }
    const currentName = current >= 0 ? rows[current].variable.name : null;
    const page = Math.max(1, Math.floor(height / lineHeight) - 1);
    const next = navigate(event.key, current, count, page);
    if (next !== null) {
      event.preventDefault();
      props.onSelect?.(rows[next].variable.name);
      return;
    }
    if (event.key === 'Enter') {
      if (currentName !== null) {
        event.preventDefault();
        props.onOpen?.(currentName);
      }
      return;
    }
    if (event.key === 'Escape') {
      if (currentName !== null) {
        event.preventDefault();
        typeAhead.current.reset();
        props.onEscape?.();
      }
      return;
    }
    if (
      event.key === 'ContextMenu' ||
      (event.key === 'F10' && event.shiftKey)
    ) {
      event.preventDefault();
      openMenuAt(current >= 0 ? current : 0);
      return;
    }
    if (TypeAhead.accepts(event)) {
      const index = typeAhead.current.type(
        event.key,
        rows.map(r => r.variable.name),
        current,
        Date.now()
      );
      event.preventDefault();
      if (index !== null) {
        props.onSelect?.(rows[index].variable.name);
      }
    }
  };

  // Keep the selected row in view (keyboard, a selection made elsewhere, a resize).
  React.useEffect(() => {
    const element = body.current;
    if (!element || selectedIndex < 0) {
      return;
    }
    const view = element.clientHeight || height;
    const top = offsets[selectedIndex];
    const bottom = offsets[selectedIndex + 1];
    if (top < element.scrollTop) {
      element.scrollTop = top;
    } else if (bottom > element.scrollTop + view) {
      element.scrollTop = bottom - view;
    }
  }, [selected, height, layout]);

  const template =
    layout === 'columns'
      ? [
          `${shown.name}px`,
          `${shown.type}px`,
          `${shown.shape}px`,
          showPreview ? `${shown.memory}px` : `minmax(${shown.memory}px, 1fr)`,
          ...(showPreview ? [`minmax(${PREVIEW_MIN_WIDTH}px, 1fr)`] : [])
        ].join(' ')
      : undefined;

  const rendered: JSX.Element[] = [];
  for (let i = first; i < last; i++) {
    const row = rows[i];
    rendered.push(
      <VariableRow
        key={row.removed ? `removed:${row.variable.name}` : row.variable.name}
        variable={row.variable}
        removed={row.removed}
        index={i}
        top={offsets[i]}
        height={offsets[i + 1] - offsets[i]}
        selected={i === selectedIndex}
        showPreview={showPreview}
        onSelect={onRowClick}
        onSelectNow={props.onSelect}
        onOpen={onRowDoubleClick}
        onContextMenu={props.onContextMenu}
        trans={trans}
      />
    );
  }

  const classes = ['jp-KernelState-grid', `jp-mod-${layout}`];
  if (!showPreview) {
    classes.push('jp-mod-noPreview');
  }
  const style = template
    ? ({ '--jp-kernel-state-columns': template } as React.CSSProperties)
    : undefined;
  return (
    <div
      className={classes.join(' ')}
      ref={grid}
      style={style}
      role="grid"
      aria-label={trans.__('Kernel variables')}
      aria-rowcount={count + 1}
      aria-activedescendant={
        selectedIndex >= first && selectedIndex < last
          ? rowId(selectedIndex)
          : undefined
      }
      data-test-id="kernel-state-grid"
      data-layout={layout}
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
              column.sort ? ariaSort(props.sort, column.sort) : undefined
            }
            data-test-id={`kernel-state-header-${column.key}`}
          >
            {column.sort && props.onSort ? (
              <button
                className="jp-KernelState-sortButton"
                onClick={() =>
                  props.onSort?.(nextSort(props.sort, column.sort!))
                }
                title={sortTitle(trans, column, props.sort)}
              >
                {column.label}
                {sortMark(props.sort, column.sort)}
              </button>
            ) : (
              <span title={column.title}>{column.label}</span>
            )}
            {layout === 'columns' && column.key !== 'preview' && (
              <ResizeHandle
                column={column.key}
                label={column.label}
                width={shown[column.key]}
                onDraft={w =>
                  setDraft(
                    w === null
                      ? null
                      : { key: column.key as ColumnKey, width: w }
                  )
                }
                onResize={props.onResize}
                trans={trans}
              />
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
        <div className="jp-KernelState-spacer" style={{ height: total }}>
          {rendered}
        </div>
      </div>
    </div>
  );
}

function rowHeightOf(row: IListRow, lineHeight: number): number {
  return (
    lineHeight +
    (!row.removed && row.variable.changes?.length ? CHANGES_LINE_HEIGHT : 0)
  );
}

/**
 * The index of the row at `y` (offsets ascending, one more than the rows).
 */
function indexAt(offsets: number[], y: number): number {
  let low = 0;
  let high = offsets.length - 2;
  if (high < 0) {
    return 0;
  }
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid] <= y) {
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return low;
}

function rowId(index: number): string {
  return `jp-KernelState-row-${index}`;
}

function isRowTarget(event: React.KeyboardEvent): boolean {
  return !!(event.target as HTMLElement).closest?.(
    '[data-test-id="kernel-state-row"]'
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

interface IVariableRowProps {
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
          {variable.truncated && preview === variable.preview ? '…' : ''}
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

const VariableRow = React.memo(VariableRowView);
