/**
 * The explorer's main-area toolbar, its items wrapped onto more lines in a narrow
 * tab (the items are `items.ts`).
 */
import { Toolbar } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { fitMinHeight } from '../dom';

/**
 * The explorer's toolbar. The name, type and size give way first (cut with an
 * ellipsis); when the tab is still too narrow, the items wrap onto more lines and
 * the toolbar tells its layout how tall that makes it: a main-area toolbar is only
 * as tall as its minimum height and clips the rest, which would leave the buttons of
 * a second line unseen and unreachable.
 */
export class ExplorerToolbar extends Toolbar<Widget> {
  constructor() {
    super();
    this.addClass('jp-KernelState-explorerToolbar');
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (typeof ResizeObserver !== 'undefined') {
      // A new width, or an item's new text (sort keys, hidden columns), may rewrap.
      this._observer = new ResizeObserver(() => this._fit());
      this._observer.observe(this.node);
      for (const item of this.children()) {
        this._observer.observe(item.node);
      }
    }
    this._fit();
  }

  protected onBeforeDetach(msg: Message): void {
    this._observer?.disconnect();
    this._observer = null;
    super.onBeforeDetach(msg);
  }

  protected onChildAdded(msg: Widget.ChildMessage): void {
    super.onChildAdded(msg);
    this._observer?.observe(msg.child.node);
  }

  /**
   * The toolbar's layout has just set the one-line minimum: keep the wrapped one.
   */
  protected onFitRequest(msg: Message): void {
    super.onFitRequest(msg);
    this._apply();
  }

  /**
   * Measure the lines the items take.
   */
  private _fit(): void {
    const node = this.node;
    const top = node.getBoundingClientRect().top;
    let bottom = top;
    let line = 0;
    for (const item of this.children()) {
      const rect = item.node.getBoundingClientRect();
      if (!item.isHidden && rect.height > 0) {
        bottom = Math.max(bottom, rect.bottom);
        line = Math.max(line, rect.height);
      }
    }
    if (line === 0) {
      return; // not laid out (detached, hidden)
    }
    const border = parseFloat(getComputedStyle(node).borderBottomWidth) || 0;
    this._wrapped =
      bottom - top > line + 1 ? Math.ceil(bottom - top + border) : null;
    this._apply();
  }

  /**
   * The minimum height: the lines' when the items wrap, else the theme's toolbar
   * height (as the toolbar's layout sets it).
   */
  private _apply(): void {
    fitMinHeight(
      this,
      this._wrapped === null
        ? 'var(--jp-private-toolbar-height)'
        : `${this._wrapped}px`
    );
  }

  private _observer: ResizeObserver | null = null;
  private _wrapped: number | null = null;
}
