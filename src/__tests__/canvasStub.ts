/**
 * jsdom has no canvas: `@lumino/datagrid` asks for a 2D context when it loads. Import
 * this module before it to keep the test output free of jsdom's "not implemented".
 */
HTMLCanvasElement.prototype.getContext = (() =>
  null) as unknown as typeof HTMLCanvasElement.prototype.getContext;

export {};
