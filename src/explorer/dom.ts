/**
 * The explorer's DOM helpers, shared by its views (they are raw DOM: the grid is a
 * lumino widget). Every string goes in as text content or an attribute, never as
 * markup: names and values come from the kernel.
 */
import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

/**
 * What a new element says: its class, `data-test-id`, text and accessible name.
 */
export interface IElementOptions {
  className?: string;
  testId?: string;
  text?: string;
  title?: string;
  /**
   * `aria-label`.
   */
  label?: string;
  role?: string;
}

/**
 * A new element, each option given set on it.
 */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: IElementOptions = {}
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const { className, testId, text, title, label, role } = options;
  if (className !== undefined) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  if (title !== undefined) {
    node.title = title;
  }
  if (label !== undefined) {
    node.setAttribute('aria-label', label);
  }
  if (role !== undefined) {
    node.setAttribute('role', role);
  }
  if (testId !== undefined) {
    node.dataset.testId = testId;
  }
  return node;
}

/**
 * The explorer's buttons: JupyterLab's styled secondary button.
 */
export const BUTTON_CLASS = 'jp-Button jp-mod-styled jp-mod-reject';

/**
 * A button (`type="button"`: never submits a form) with the explorer's style.
 */
export function button(
  text: string,
  testId: string,
  options: Omit<IElementOptions, 'text' | 'testId'> = {}
): HTMLButtonElement {
  const node = element('button', {
    className: BUTTON_CLASS,
    ...options,
    text,
    testId
  });
  node.type = 'button';
  return node;
}

/**
 * An option of a select: its value and its text.
 */
export function option(value: string, text: string): HTMLOptionElement {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = text;
  return node;
}

/**
 * A select of `[value, text]` options, one selected.
 */
export function select(
  testId: string,
  label: string,
  options: [string, string][],
  value: string
): HTMLSelectElement {
  const node = element('select', { testId, label });
  node.append(...options.map(([key, text]) => option(key, text)));
  node.value = value;
  return node;
}

/**
 * Give a widget a minimum height (a CSS length) and, when it changed, have its
 * parent's layout fit again: a panel's layout reads the minimum only on a fit
 * request, and would clip what grew (a toolbar's second line, the filter's
 * conditions).
 */
export function fitMinHeight(widget: Widget, minHeight: string): void {
  if (widget.node.style.minHeight === minHeight) {
    return;
  }
  widget.node.style.minHeight = minHeight;
  if (widget.parent) {
    MessageLoop.postMessage(widget.parent, Widget.Msg.FitRequest);
  }
}
