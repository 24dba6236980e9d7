/**
 * The sidebar's content: header, status messages, filter, variable list and inspector.
 * Props only; the widget owns the state.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { makeFilter } from '../format';
import { ColumnKey, ColumnWidths, IListRow } from '../models/list';
import {
  IKernelInfo,
  IncludeGroup,
  ISnapshot,
  KernelStateStatus,
  SnapshotSort
} from '../tokens';
import { VariableList } from './VariableList';

export interface IKernelStatePanelProps {
  status: KernelStateStatus;
  kernel: IKernelInfo | null;
  snapshot: ISnapshot | null;
  error: string | null;
  isBusy: boolean;
  /**
   * The kernel restarted and no cell has run since.
   */
  restarted?: boolean;
  filter: string;
  onFilter: (filter: string) => void;
  sort: SnapshotSort;
  onSort: (sort: SnapshotSort) => void;
  include: IncludeGroup[];
  onToggleInclude: (group: IncludeGroup) => void;
  selected: string | null;
  onSelect: (name: string) => void;
  /**
   * The list's rows (the snapshot's variables and those the last execution removed);
   * by default the snapshot's variables.
   */
  rows?: IListRow[];
  /**
   * Enter or a double-click on a row.
   */
  onOpen?: (name: string) => void;
  /**
   * Escape in the list.
   */
  onEscape?: () => void;
  onContextMenu?: (name: string, x: number, y: number) => void;
  widths?: ColumnWidths;
  onResize?: (key: ColumnKey, width: number) => void;
  onRefresh: () => void;
  showPreview: boolean;
  /**
   * The inspector of the selected variable, if any.
   */
  inspector?: React.ReactNode;
  /**
   * Sections below the list (images, assistant view), shown while a kernel is followed.
   */
  sections?: React.ReactNode;
  trans: TranslationBundle;
}

export function KernelStatePanel(props: IKernelStatePanelProps): JSX.Element {
  const { trans, snapshot, kernel } = props;
  return (
    <div className="jp-KernelState-panel" data-test-id="kernel-state-panel">
      <div className="jp-KernelState-header">
        <div className="jp-KernelState-kernel" title={kernel?.source ?? ''}>
          {kernel
            ? trans.__('%1 — %2', kernel.source, kernel.name)
            : trans.__('No kernel')}
        </div>
        <button
          className="jp-KernelState-refresh"
          onClick={props.onRefresh}
          disabled={!kernel}
          title={trans.__('Refresh')}
          aria-label={trans.__('Refresh')}
        >
          ⟳
        </button>
      </div>
      {kernel && props.restarted && (
        <div
          className="jp-KernelState-notice"
          role="status"
          data-test-id="kernel-state-restart-notice"
        >
          {trans.__(
            'The kernel restarted: variables from before the restart are gone.'
          )}
        </div>
      )}
      <Body {...props} snapshot={snapshot} />
      {kernel && props.sections}
    </div>
  );
}

function Body(props: IKernelStatePanelProps): JSX.Element {
  const { trans, snapshot, status } = props;
  if (status === 'no-kernel') {
    return (
      <div
        className="jp-KernelState-message"
        data-test-id="kernel-state-no-kernel"
      >
        {trans.__(
          'Open a notebook or console with a running kernel to see its variables.'
        )}
      </div>
    );
  }
  if (status === 'unsupported') {
    return (
      <div
        className="jp-KernelState-message"
        data-test-id="kernel-state-unsupported"
      >
        {trans.__(
          'This kernel’s language is not supported; only Python and R kernels can be inspected.'
        )}
        {props.error && <div className="jp-KernelState-dim">{props.error}</div>}
      </div>
    );
  }
  const error = status === 'error' && (
    <div
      className="jp-KernelState-error"
      role="alert"
      data-test-id="kernel-state-error"
    >
      {props.error ?? trans.__('Request failed')}
    </div>
  );
  if (!snapshot) {
    return (
      <>
        {error}
        {status === 'loading' && (
          <div
            className="jp-KernelState-message"
            data-test-id="kernel-state-loading"
          >
            {trans.__('Reading the kernel’s variables…')}
          </div>
        )}
      </>
    );
  }
  return (
    <SnapshotView
      {...props}
      snapshot={snapshot}
      error={null}
      errorNode={error}
    />
  );
}

function SnapshotView(
  props: IKernelStatePanelProps & {
    snapshot: ISnapshot;
    errorNode: React.ReactNode;
  }
): JSX.Element {
  const { trans, snapshot } = props;
  const all = React.useMemo(
    () =>
      props.rows ??
      snapshot.variables.map(variable => ({ variable, removed: false })),
    [snapshot, props.rows]
  );
  const rows = React.useMemo(() => {
    const matches = makeFilter(props.filter);
    return props.filter ? all.filter(row => matches(row.variable)) : all;
  }, [all, props.filter]);
  const shown = rows.reduce((n, row) => n + (row.removed ? 0 : 1), 0);
  const groups: [IncludeGroup, string][] = [
    ['private', trans.__('_private')],
    ['modules', trans.__('modules')],
    ['callables', trans.__('functions')],
    ['classes', trans.__('classes')]
  ];
  return (
    <>
      {props.errorNode}
      {props.isBusy && (
        <div
          className="jp-KernelState-busy"
          role="status"
          data-test-id="kernel-state-busy-banner"
        >
          {trans.__(
            'Kernel busy — showing state as of execution %1',
            snapshot.execution_count ?? '—'
          )}
        </div>
      )}
      <div className="jp-KernelState-toolbar">
        <input
          className="jp-KernelState-filter jp-mod-styled"
          type="search"
          placeholder={trans.__('Filter by name or type (* wildcards)')}
          aria-label={trans.__('Filter variables')}
          value={props.filter}
          onChange={event => props.onFilter(event.target.value)}
        />
        <div
          className="jp-KernelState-toggles"
          role="group"
          aria-label={trans.__('Also show')}
        >
          {groups.map(([group, label]) => (
            <label key={group} className="jp-KernelState-toggle">
              <input
                type="checkbox"
                checked={props.include.includes(group)}
                onChange={() => props.onToggleInclude(group)}
              />
              {label}
            </label>
          ))}
        </div>
      </div>
      <div className="jp-KernelState-total" data-test-id="kernel-state-total">
        {totalText(trans, snapshot, shown, !!props.filter)}
      </div>
      {snapshot.total === 0 && rows.length === 0 ? (
        <div
          className="jp-KernelState-message"
          data-test-id="kernel-state-empty"
        >
          {trans.__('No variables yet — run a cell')}
        </div>
      ) : (
        <VariableList
          rows={rows}
          sort={props.sort}
          onSort={props.onSort}
          selected={props.selected}
          onSelect={props.onSelect}
          onOpen={props.onOpen}
          onEscape={props.onEscape}
          onContextMenu={props.onContextMenu}
          widths={props.widths}
          onResize={props.onResize}
          showPreview={props.showPreview}
          trans={trans}
        />
      )}
      {props.inspector}
    </>
  );
}

function totalText(
  trans: TranslationBundle,
  snapshot: ISnapshot,
  shown: number,
  filtered: boolean
): string {
  const total = trans
    ._n('%1 variable', '%1 variables', snapshot.total)
    .replace(String(snapshot.total), snapshot.total.toLocaleString('en-US'));
  const parts = [total];
  if (snapshot.variables.length < snapshot.total) {
    parts.push(
      trans.__(
        'first %1 loaded',
        snapshot.variables.length.toLocaleString('en-US')
      )
    );
  }
  if (filtered) {
    parts.push(trans.__('%1 match the filter', shown.toLocaleString('en-US')));
  }
  if (snapshot.execution_count !== null) {
    parts.push(trans.__('execution %1', snapshot.execution_count));
  }
  return parts.join(' · ');
}
