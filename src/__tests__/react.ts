/**
 * A fresh DOM host and React root for each test of a component.
 */
import * as React from 'react';
import { createRoot, Root } from 'react-dom/client';

(
  globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * The current test's host element (a live binding: read it inside tests).
 */
export let host: HTMLDivElement;
let root: Root;

/**
 * Call once at the top of a spec file: mounts before each test, unmounts after.
 */
export function useReactHost(): void {
  beforeEach(() => {
    host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
  });
  afterEach(() => {
    React.act(() => root.unmount());
    host.remove();
  });
}

export function render(element: JSX.Element): void {
  React.act(() => root.render(element));
}
