/**
 * What the explorer says about its rows: the banner when they are no longer the
 * variable's (with Refresh), and the status line below the grid — errors and waits,
 * the rows in view, and for a table in an engine which engine computes it, whether
 * its rows are counted (a Count button while not) and what its last query took.
 * Both render the model's state (`sync`).
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { Widget } from '@lumino/widgets';

import { IEngineInfo } from '../../tokens';
import { button, element } from '../dom';
import { RowsDataModel } from './model';
import { IEngineCost, IVisibleRows, MORE_TIME_MS, StaleReason } from './query';

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * What the banner says for a stale reason.
 */
export function staleText(
  trans: TranslationBundle,
  reason: StaleReason,
  name: string
): string {
  switch (reason) {
    case 'removed':
      return trans.__('%1 no longer exists', name);
    case 'restarted':
      return trans.__('The kernel restarted since these rows were loaded');
    default:
      return trans.__('%1 changed since loaded', name);
  }
}

/**
 * `Rows 1–25 of 1,000,000 · index 0 … 24` (positions 1-based, labels as in the table);
 * not `counted`, `total` is the rows read so far: `Rows 1–25 of 200 read so far`.
 */
export function rangeText(
  trans: TranslationBundle,
  visible: IVisibleRows | null,
  total: number,
  firstLabel: string | null | undefined,
  lastLabel: string | null | undefined,
  counted = true
): string {
  if (!visible || (total === 0 && counted)) {
    return total === 0 && counted ? trans.__('No rows') : '';
  }
  const first = numberFormat.format(Math.min(visible.first + 1, total));
  const last = numberFormat.format(Math.min(visible.last + 1, total));
  const rows = counted
    ? trans.__('Rows %1–%2 of %3', first, last, numberFormat.format(total))
    : trans.__(
        'Rows %1–%2 of %3 read so far',
        first,
        last,
        numberFormat.format(total)
      );
  return typeof firstLabel === 'string' && typeof lastLabel === 'string'
    ? trans.__('%1 · index %2 … %3', rows, firstLabel, lastLabel)
    : rows;
}

/**
 * `lazy — computed by DuckDB`: where the rows of an engine table come from.
 */
export function engineText(
  trans: TranslationBundle,
  engine: IEngineInfo
): string {
  return trans.__('lazy — computed by %1', engine.title);
}

/**
 * `last window: 12 ms`: what the engine's last query took.
 */
export function costText(trans: TranslationBundle, cost: IEngineCost): string {
  const ms = numberFormat.format(cost.ms);
  switch (cost.what) {
    case 'count':
      return trans.__('last count: %1 ms', ms);
    case 'profile':
      return trans.__('last statistics: %1 ms', ms);
    default:
      return trans.__('last window: %1 ms', ms);
  }
}

/**
 * The banner above the grid while the rows shown are stale: why, and Refresh.
 */
export class StaleBanner extends Widget {
  constructor(options: StaleBanner.IOptions) {
    super();
    this._model = options.model;
    this._name = options.name;
    this._trans = options.trans;
    this.addClass('jp-KernelState-explorerBanner');
    this.node.dataset.testId = 'kernel-state-explorer-stale';
    this.node.setAttribute('role', 'status');
    const refresh = button(
      this._trans.__('Refresh'),
      'kernel-state-explorer-stale-refresh'
    );
    refresh.addEventListener('click', () => options.onRefresh());
    this.node.append(this._text, refresh);
    this.hide();
  }

  /**
   * Shown while the model's rows are stale.
   */
  sync(): void {
    const trans = this._trans;
    const reason = this._model.staleReason;
    if (reason) {
      this._text.textContent =
        reason === 'removed'
          ? staleText(trans, reason, this._name)
          : trans.__('%1 — ', staleText(trans, reason, this._name));
      this.show();
    } else {
      this.hide();
    }
  }

  private _model: RowsDataModel;
  private _name: string;
  private _trans: TranslationBundle;
  private _text = document.createElement('span');
}

export namespace StaleBanner {
  export interface IOptions {
    model: RowsDataModel;
    /**
     * The variable's name.
     */
    name: string;
    trans: TranslationBundle;
    onRefresh: () => void;
  }
}

/**
 * The status line below the grid.
 */
export class StatusLine extends Widget {
  constructor(options: StatusLine.IOptions) {
    super();
    this._model = options.model;
    this._trans = options.trans;
    const trans = this._trans;
    this.addClass('jp-KernelState-explorerFooter');
    this._countButton = button(
      trans.__('Count'),
      'kernel-state-explorer-count',
      {
        title: trans.__(
          'Count the rows in the engine (cancelled past its time guard)'
        )
      }
    );
    this._countButton.addEventListener('click', () => void this._model.count());
    this._moreTime = button(
      trans.__('Try with %1 s', MORE_TIME_MS / 1000),
      'kernel-state-explorer-more-time',
      {
        title: trans.__(
          'Ask again, giving each request %1 s in the kernel (the server allows at most its max_request_budget_ms)',
          MORE_TIME_MS / 1000
        )
      }
    );
    this._moreTime.hidden = true;
    this._moreTime.addEventListener('click', () =>
      this._model.retryWithMoreTime()
    );
    this._engine.append(
      this._engineName,
      this._notCounted,
      this._countButton,
      this._cost
    );
    this._engine.hidden = true;
    this._notCounted.textContent = trans.__('not counted');
    this.node.append(this._status, this._moreTime, this._engine, this._range);
  }

  /**
   * Render the model's state: an error or wait (else `transient`, a message of the
   * explorer's own), and the engine's part.
   */
  sync(transient: string | null): void {
    const trans = this._trans;
    const model = this._model;
    const info = model.info;
    let status = '';
    let error = false;
    if (model.retrying) {
      status = trans.__('The kernel is busy — trying again shortly…');
    } else if (
      (model.error || model.queryError || model.countError) &&
      model.staleReason !== 'removed'
    ) {
      // A refused window, a sort given up, a count cancelled in the engine.
      status = (model.error ?? model.queryError ?? model.countError)!;
      error = true;
    } else if (transient) {
      status = transient;
      error = true;
    } else if (info?.stale) {
      status = trans.__('The kernel is busy: rows as of an earlier execution.');
    } else if (!info && !model.error) {
      status = trans.__('Loading…');
    }
    this._status.classList.toggle('jp-mod-error', error);
    this._status.textContent = status;
    this._moreTime.hidden = !(error && model.canTakeLonger);
    this._syncEngine();
  }

  /**
   * The rows the grid shows now (after a paint).
   */
  showRange(visible: IVisibleRows | null): void {
    const model = this._model;
    const counted = model.viewRows !== null;
    // Not counted: the last row is the one that reads the next window.
    const total = model.rowCount('body') - (counted ? 0 : 1);
    const label = (row: number) => model.data('row-header', row, 0);
    this._range.textContent = rangeText(
      this._trans,
      visible,
      total,
      visible ? label(visible.first) : null,
      visible ? label(Math.min(visible.last, total - 1)) : null,
      counted
    );
    this._range.dataset.lastRow = visible ? String(visible.last) : '';
  }

  /**
   * The engine's part (hidden for a value in memory): which engine computes the
   * rows, "not counted" with a Count button, what the last query took.
   */
  private _syncEngine(): void {
    const trans = this._trans;
    const model = this._model;
    const engine = model.info?.engine ?? null;
    this._engine.hidden = engine === null;
    if (engine === null) {
      return;
    }
    this._engineName.textContent = engineText(trans, engine);
    this._engineName.title = engine.location ?? '';
    const counted = model.viewRows !== null;
    this._notCounted.hidden = counted;
    this._countButton.style.display = counted ? 'none' : '';
    this._countButton.disabled = model.counting;
    this._countButton.textContent = model.counting
      ? trans.__('Counting…')
      : trans.__('Count');
    const cost = model.lastCost;
    this._cost.textContent = cost ? costText(trans, cost) : '';
  }

  private _model: RowsDataModel;
  private _trans: TranslationBundle;
  private _status = element('span', {
    className: 'jp-KernelState-explorerStatus',
    role: 'status',
    testId: 'kernel-state-explorer-status'
  });
  private _engine = element('span', {
    className: 'jp-KernelState-explorerEngine',
    testId: 'kernel-state-explorer-engine'
  });
  private _engineName = element('span', {
    testId: 'kernel-state-explorer-engine-name'
  });
  private _notCounted = element('span', {
    className: 'jp-KernelState-explorerNotCounted',
    testId: 'kernel-state-explorer-not-counted'
  });
  private _countButton: HTMLButtonElement;
  private _moreTime: HTMLButtonElement;
  private _cost = element('span', {
    className: 'jp-KernelState-explorerCost',
    testId: 'kernel-state-explorer-cost'
  });
  private _range = element('span', {
    className: 'jp-KernelState-explorerRange',
    testId: 'kernel-state-explorer-range'
  });
}

export namespace StatusLine {
  export interface IOptions {
    model: RowsDataModel;
    trans: TranslationBundle;
  }
}
