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
import * as React from 'react';

import { navigate, TypeAhead } from '../models/list/keys';
import { IListRow } from '../models/list/removed';
import {
  ColumnKey,
  ColumnWidths,
  DEFAULT_COLUMN_WIDTHS
} from '../models/list/widths';
import { markPaintedAfterFrame } from '../perf';
import { IVariable, SnapshotSort } from '../tokens';
import { IColumnDraft, ListHeader } from './ListHeader';
import {
  COMPACT_ROW_HEIGHT,
  indexAt,
  isRowTarget,
  ListLayout,
  PREVIEW_MIN_WIDTH,
  ROW_HEIGHT,
  rowHeightOf,
  rowId
} from './listLayout';
import { VariableRow } from './VariableRow';

/**
 * How long a click on another row waits before selecting it (a second click within it
 * makes a double-click, which opens the variable instead).
 */
const DOUBLE_CLICK_MS = 250;

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
  /**
   * The last row came into view, or the keyboard went past it: the list can load its
   * next page (given only while there is one).
   */
  onEndReached?: () => void;
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
  const [draft, setDraft] = React.useState<IColumnDraft | null>(null);

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

  // The end of the list in view: its next page is asked (the parent guards repeats).
  const onEndReached = props.onEndReached;
  React.useEffect(() => {
    if (onEndReached && count > 0 && lastInView >= count - 1) {
      onEndReached();
    }
  }, [lastInView, count, onEndReached !== undefined]);

  const selectedIndex = React.useMemo(
    () =>
      selected === null
        ? -1
        : rows.findIndex(r => r.variable.name === selected),
    [rows, selected]
  );

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

  // A click on a row while none is selected selects it after the double-click interval:
  // that selection opens the inspector, which shortens the list and moves the rows, so
  // the second click of a double-click would otherwise land elsewhere. A double-click
  // opens at once.
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
    // With a variable already selected the inspector is open, and selecting another
    // one moves nothing: at once. Only the first selection opens it and moves rows.
    if (props.selected !== null || !props.onOpen) {
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
      if (
        next === count - 1 &&
        ['ArrowDown', 'PageDown', 'End'].includes(event.key)
      ) {
        props.onEndReached?.(); // the keyboard reached the end: the next page
      }
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
      <ListHeader
        sort={props.sort}
        onSort={props.onSort}
        layout={layout}
        widths={shown}
        onDraft={setDraft}
        onResize={props.onResize}
        showPreview={showPreview}
        trans={trans}
      />
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
