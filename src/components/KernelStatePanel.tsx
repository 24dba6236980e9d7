/**
 * The sidebar's content: header, status messages, name pattern, variable list and inspector.
 * It renders two objects, as JupyterLab's panels render their model: the followed
 * kernel's state (the service's model) and the sidebar's view (its list and inspector
 * models, what only the view keeps, and its actions). It holds no state of its own.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import * as React from 'react';

import { makeFilter } from '../format';
import { InspectorModel } from '../models/inspector';
import { VariableListModel } from '../models/list/model';
import {
  IKernelStateModel,
  IKernelStateOptions,
  IncludeGroup,
  ISnapshot,
  SnapshotSort
} from '../tokens';
import { VariableList } from './VariableList';

export interface IKernelStatePanelProps {
  /**
   * The followed kernel's state: status, kernel, snapshot, error, busy, restarted.
   */
  model: IKernelStateModel;
  /**
   * The sidebar's view of it.
   */
  view: KernelStatePanel.IView;
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

export namespace KernelStatePanel {
  /**
   * The sidebar's view: the models of its list and inspector, what only the view
   * keeps (the typed name pattern, the preview column), and what its controls do.
   */
  export interface IView {
    /**
     * The list's rows (the snapshot's variables and those the last execution
     * removed) and column widths.
     */
    readonly list: Pick<
      VariableListModel,
      | 'rows'
      | 'widths'
      | 'setWidth'
      | 'counts'
      | 'hasMore'
      | 'loadingMore'
      | 'loadMore'
      | 'changedOnly'
      | 'changedView'
      | 'setChangedOnly'
      | 'setUsedByCell'
      | 'activeCell'
    >;
    /**
     * The inspected variable: selecting a row inspects it, Escape closes it.
     */
    readonly inspector: Pick<InspectorModel, 'selected' | 'select' | 'close'>;
    /**
     * The sort, the groups of hidden names shown and the name pattern the server
     * applies (the service's options; REST and settings call it `filter`).
     */
    readonly options: Pick<
      IKernelStateOptions,
      'sort' | 'include' | 'filter' | 'limit'
    >;
    /**
     * The name pattern typed in the toolbar (`*` wildcards; matched at once against
     * the rows loaded).
     */
    readonly pattern: string;
    readonly showPreview: boolean;
    setPattern(pattern: string): void;
    setSort(sort: SnapshotSort): void;
    toggleInclude(group: IncludeGroup): void;
    /**
     * Enter or a double-click on a row.
     */
    open(name: string): void;
    /**
     * The context menu of a row, at client coordinates.
     */
    openMenu(name: string, x: number, y: number): void;
    /**
     * The header's refresh button.
     */
    refresh(): void;
  }
}

export function KernelStatePanel(props: IKernelStatePanelProps): JSX.Element {
  const { trans, model, view } = props;
  const kernel = model.kernel;
  return (
    <div
      className="jp-KernelState-panel"
      data-test-id="kernel-state-panel"
      tabIndex={-1}
      aria-label={trans.__('Kernel State')}
    >
      <div className="jp-KernelState-header">
        <div className="jp-KernelState-kernel" title={kernel?.source ?? ''}>
          {kernel
            ? trans.__('%1 — %2', kernel.source, kernel.name)
            : trans.__('No kernel')}
        </div>
        <button
          className="jp-KernelState-refresh"
          onClick={() => view.refresh()}
          disabled={!kernel}
          title={trans.__('Refresh')}
          aria-label={trans.__('Refresh')}
        >
          ⟳
        </button>
      </div>
      {kernel && model.restarted && (
        <div
          className="jp-KernelState-notice jp-KernelState-banner"
          role="status"
          data-test-id="kernel-state-restart-notice"
        >
          {trans.__(
            'The kernel restarted: variables from before the restart are gone.'
          )}
        </div>
      )}
      <Body {...props} />
      {kernel && props.sections}
    </div>
  );
}

function Body(props: IKernelStatePanelProps): JSX.Element {
  const { trans, model } = props;
  const { snapshot, status } = model;
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
        {model.error && <div className="jp-KernelState-dim">{model.error}</div>}
      </div>
    );
  }
  const error = status === 'error' && (
    <div
      className="jp-KernelState-error jp-KernelState-banner"
      role="alert"
      data-test-id="kernel-state-error"
    >
      {model.error ?? trans.__('Request failed')}
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
  return <SnapshotView {...props} snapshot={snapshot} errorNode={error} />;
}

function SnapshotView(
  props: IKernelStatePanelProps & {
    snapshot: ISnapshot;
    errorNode: React.ReactNode;
  }
): JSX.Element {
  const { trans, snapshot, view } = props;
  const list = view.list;
  const all = list.rows;
  const pattern = view.pattern;
  const rows = React.useMemo(() => {
    const matches = makeFilter(pattern);
    return pattern ? all.filter(row => matches(row.variable)) : all;
  }, [all, pattern]);
  const shown = rows.reduce((n, row) => n + (row.removed ? 0 : 1), 0);
  const groups: [IncludeGroup, string][] = [
    ['private', trans.__('_private')],
    ['modules', trans.__('modules')],
    ['callables', trans.__('functions')],
    ['classes', trans.__('classes')]
  ];
  const include = view.options.include;
  const changed = list.changedView;
  const changedOn = changed !== null && !changed.byCell;
  const cellOn = changed !== null && changed.byCell;
  const activeCell = list.activeCell;
  const counts = list.counts ?? {
    loaded: snapshot.variables.length,
    selected: snapshot.total,
    total: snapshot.total
  };
  const loadMore = () => {
    if (list.hasMore && !list.loadingMore) {
      void list.loadMore();
    }
  };
  const ec = snapshot.execution_count;
  return (
    <>
      {props.errorNode}
      {props.model.isBusy && (
        <div
          className="jp-KernelState-busy jp-KernelState-banner"
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
          placeholder={trans.__('Filter by name or type (*)')}
          title={trans.__(
            'Filter by name or type: plain text matches anywhere; * is a wildcard (df_*, *Frame)'
          )}
          aria-label={trans.__('Filter variables')}
          value={pattern}
          onChange={event => view.setPattern(event.target.value)}
          data-test-id="kernel-state-filter"
        />
        <div className="jp-KernelState-toolbarRow">
          <button
            className={`jp-KernelState-button jp-KernelState-changedToggle${
              changedOn ? ' jp-mod-active' : ''
            }`}
            aria-pressed={changedOn}
            disabled={ec === null && !changedOn}
            onClick={() => list.setChangedOnly(!changedOn)}
            title={
              ec === null
                ? trans.__('No cell has run yet')
                : trans.__(
                    'List only the variables execution %1 bound or changed, whatever the page and sort',
                    ec
                  )
            }
            data-test-id="kernel-state-changed-toggle"
          >
            {ec === null
              ? trans.__('Changed in the last execution')
              : trans.__('Changed in the last execution [%1]', ec)}
          </button>
          <button
            className={`jp-KernelState-button jp-KernelState-changedToggle${
              cellOn ? ' jp-mod-active' : ''
            }`}
            aria-pressed={cellOn}
            disabled={activeCell === null && !cellOn}
            onClick={() => list.setUsedByCell(!cellOn)}
            title={
              activeCell === null
                ? trans.__('No notebook cell is active')
                : trans.__(
                    'List only the variables the active cell bound or read when it last ran (from its code)'
                  )
            }
            data-test-id="kernel-state-cell-toggle"
          >
            {trans.__('Used by the active cell')}
          </button>
          <div
            className="jp-KernelState-toggles"
            role="group"
            aria-label={trans.__('Also show')}
          >
            {groups.map(([group, label]) => (
              <label key={group} className="jp-KernelState-toggle">
                <input
                  type="checkbox"
                  checked={include.includes(group)}
                  onChange={() => view.toggleInclude(group)}
                />
                {label}
              </label>
            ))}
          </div>
        </div>
      </div>
      <div
        className="jp-KernelState-total"
        data-test-id="kernel-state-total"
        role="status"
      >
        {totalText(trans, {
          counts,
          shown,
          pattern,
          serverPattern: view.options.filter ?? '',
          changed,
          executionCount: ec
        })}
      </div>
      {changed?.error && (
        <div
          className="jp-KernelState-error jp-KernelState-banner"
          role="alert"
          data-test-id="kernel-state-changed-error"
        >
          {changed.error}
        </div>
      )}
      {changed && !changed.loading && rows.length === 0 ? (
        <div
          className="jp-KernelState-message"
          data-test-id="kernel-state-changed-empty"
        >
          {changed.byCell
            ? changed.cellId === null
              ? trans.__('No notebook cell is active')
              : trans.__(
                  'The active cell bound or read no listed variable when it last ran (or it has not run)'
                )
            : changed.executionCount === null
              ? trans.__('No cell has run yet')
              : trans.__(
                  'Execution %1 bound or changed no listed variable',
                  changed.executionCount
                )}
        </div>
      ) : !changed && snapshot.total === 0 && rows.length === 0 ? (
        <div
          className="jp-KernelState-message"
          data-test-id="kernel-state-empty"
        >
          {trans.__('No variables yet — run a cell')}
        </div>
      ) : (
        <VariableList
          rows={rows}
          sort={view.options.sort}
          onSort={sort => view.setSort(sort)}
          selected={view.inspector.selected}
          onSelect={name => void view.inspector.select(name)}
          onOpen={name => view.open(name)}
          onEscape={() => view.inspector.close()}
          onContextMenu={(name, x, y) => view.openMenu(name, x, y)}
          widths={list.widths}
          onResize={(key, width) => list.setWidth(key, width)}
          showPreview={view.showPreview}
          onEndReached={list.hasMore ? loadMore : undefined}
          trans={trans}
        />
      )}
      {list.hasMore && (
        <div className="jp-KernelState-more">
          <button
            className="jp-KernelState-button"
            data-test-id="kernel-state-load-more"
            onClick={loadMore}
            disabled={list.loadingMore}
            aria-busy={list.loadingMore}
          >
            {list.loadingMore
              ? trans.__('Loading…')
              : trans.__(
                  'Load %1 more',
                  Math.min(
                    view.options.limit,
                    counts.selected - counts.loaded
                  ).toLocaleString('en-US')
                )}
          </button>
          <span className="jp-KernelState-dim">
            {trans.__(
              '%1 of %2 loaded',
              counts.loaded.toLocaleString('en-US'),
              counts.selected.toLocaleString('en-US')
            )}
          </span>
        </div>
      )}
      {props.inspector}
    </>
  );
}

/**
 * What the total line says about the list: the namespace's count, what the name
 * pattern or the changed view select out of it (exact), what is loaded, the execution.
 */
export function totalText(
  trans: TranslationBundle,
  state: {
    counts: VariableListModel.ICounts;
    /**
     * Rows shown after the typed name pattern.
     */
    shown: number;
    /**
     * The name pattern typed, and the one the server applied.
     */
    pattern: string;
    serverPattern: string;
    changed: VariableListModel.IChangedView | null;
    executionCount: number | null;
  }
): string {
  const { counts, changed } = state;
  const n = (value: number) => value.toLocaleString('en-US');
  const all = trans
    ._n('%1 variable', '%1 variables', counts.total)
    .replace(String(counts.total), n(counts.total));
  const parts: string[] = [];
  // Whether `selected` counts what is shown: the changed view, or the typed pattern
  // once the server applied it.
  let exact = true;
  if (changed?.byCell) {
    parts.push(
      changed.matched === null
        ? trans.__('variables of the active cell, of %1', all)
        : trans.__('%1 of %2 used by the active cell', n(changed.matched), all)
    );
  } else if (changed) {
    parts.push(
      changed.matched === null
        ? trans.__(
            'changes of execution %1 of %2',
            changed.executionCount ?? '—',
            all
          )
        : trans.__(
            '%1 of %2 changed in execution %3',
            n(changed.matched),
            all,
            changed.executionCount ?? '—'
          )
    );
  } else if (state.pattern) {
    exact = state.serverPattern === state.pattern;
    parts.push(
      trans.__(
        '%1 of %2 match the filter',
        n(exact ? counts.selected : state.shown),
        all
      )
    );
  } else {
    parts.push(all);
  }
  if (counts.loaded < counts.selected) {
    parts.push(
      exact
        ? trans.__('first %1 loaded', n(counts.loaded))
        : trans.__('among the first %1 loaded', n(counts.loaded))
    );
  }
  if (state.executionCount !== null) {
    parts.push(trans.__('execution %1', state.executionCount));
  }
  return parts.join(' · ');
}
