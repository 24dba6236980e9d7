/**
 * Playwright configuration of the UI benchmarks: the UI tests' configuration (browser,
 * server, port from KERNEL_STATE_UI_PORT) pointed at this folder. Not part of the normal
 * test run; start it from ui-tests/ with `jlpm bench:first-paint`.
 */
const path = require('path');

const base = require('../../ui-tests/playwright.config.js');

module.exports = {
  ...base,
  testDir: __dirname,
  testMatch: '*.spec.ts',
  outputDir: path.join(
    __dirname,
    '..',
    '..',
    'ui-tests',
    'test-results',
    'benchmarks'
  ),
  timeout: 600000,
  webServer: {
    ...base.webServer,
    cwd: path.join(__dirname, '..', '..', 'ui-tests')
  }
};
