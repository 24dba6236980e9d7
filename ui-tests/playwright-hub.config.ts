/**
 * Playwright configuration of the JupyterHub UI test (tests-hub/*.hub.ts).
 *
 * galata expects a plain server at baseURL, so this spec uses @playwright/test directly:
 * the webServer is a real JupyterHub (tests/hub/hub.py: hub, configurable-http-proxy, and
 * single-user servers spawned on login), and the spec logs in through the hub's login page
 * and works in /user/<name>/lab.
 *
 * The hub's port comes from KERNEL_STATE_HUB_UI_PORT (default 8897; the galata tests use
 * KERNEL_STATE_UI_PORT, default 8898). Run: `jlpm playwright test -c playwright-hub.config.ts`
 * with the repository's .venv active and `jlpm install` done at the root (the proxy).
 */
import { defineConfig } from '@playwright/test';
import chromium = require('./chromium');

const port = process.env.KERNEL_STATE_HUB_UI_PORT || '8897';
const url = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './tests-hub',
  // Not *.spec.ts: the galata config (playwright.config.js) collects every spec under ui-tests/.
  testMatch: '*.hub.ts',
  // The JSON report is what the test command's closing summary reads (scripts/failures.py).
  reporter: [
    ['list'],
    [
      'json',
      {
        outputFile: `${process.env.KERNEL_STATE_LOG_DIR || 'test-results'}/ui-hub-report.json`
      }
    ]
  ],
  timeout: 240000,
  expect: { timeout: 30000 },
  retries: 0,
  workers: 1,
  use: {
    baseURL: url,
    testIdAttribute: 'data-test-id',
    viewport: { width: 1280, height: 800 },
    video: 'off',
    trace: 'off',
    screenshot: 'only-on-failure',
    actionTimeout: 30000,
    navigationTimeout: 60000,
    launchOptions: chromium
  },
  webServer: {
    command: 'python ../tests/hub/hub.py',
    env: { ...process.env, KERNEL_STATE_HUB_UI_PORT: port } as Record<
      string,
      string
    >,
    // 200 only once both the hub and its proxy answer.
    url: `${url}/hub/health`,
    timeout: 120000,
    reuseExistingServer: false,
    // tests/hub/hub.py stops the hub (which stops the proxy and the user's server) and then
    // ends anything of it still running; a SIGKILL would leave those behind.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 45000 },
    stdout: 'pipe',
    stderr: 'pipe'
  }
});
