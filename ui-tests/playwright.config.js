/**
 * Playwright configuration of the galata UI tests.
 *
 * The server port comes from KERNEL_STATE_UI_PORT (default 8898), read here and in
 * jupyter_server_test_config.py, because other processes share these machines.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const chromium = require('./chromium');

const port = process.env.KERNEL_STATE_UI_PORT || '8898';
const url = `http://localhost:${port}`;

module.exports = {
  ...baseConfig,
  // The JSON report is what the test command's closing summary reads (scripts/failures.py).
  reporter: [
    ['list'],
    [
      'json',
      {
        outputFile: `${process.env.KERNEL_STATE_LOG_DIR || 'test-results'}/ui-report.json`
      }
    ]
  ],
  timeout: 120000,
  expect: { timeout: 20000 },
  retries: 0,
  workers: 1,
  use: {
    ...baseConfig.use,
    baseURL: url,
    testIdAttribute: 'data-test-id',
    video: 'off',
    actionTimeout: 30000,
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: chromium
  },
  webServer: {
    command: 'jlpm start',
    url: `${url}/lab`,
    timeout: 120000,
    reuseExistingServer: !process.env.CI
  }
};
