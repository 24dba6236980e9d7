/**
 * First paint of the variable list with 10,000 variables, in a real browser.
 *
 * The service marks `kernel-state:data` when a new snapshot is parsed and the list
 * marks `kernel-state:painted` after the frame that shows it was painted (src/perf.ts);
 * the browser's resource timing gives `responseEnd` of the snapshot request. Reported:
 * response end → painted (the target, ≤ 200 ms), with parse (response end → data) and
 * render (data → painted) apart, median and p90 over the runs, and the rows rendered.
 *
 * Two cases, each RUNS times after a warm-up:
 * - execution: one of 10,000 variables changes; a new 10,000-row snapshot arrives and
 *   the mounted list shows it;
 * - switch: the user switches between two notebooks of 10,000 variables; the list is
 *   mounted from nothing (the snapshot comes from the ETag cache after a 304).
 *
 *   cd ui-tests && jlpm bench:first-paint        # writes benchmarks/ui/first-paint.json
 */
import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const RUNS = Number(process.env.KERNEL_STATE_BENCH_RUNS || 7);
const VARIABLES = 10_000;
const LIMIT = 10_000;
const OUTPUT = path.join(__dirname, 'first-paint.json');
const MAKE = `for i in range(${VARIABLES}): globals()[f'v{i:05d}'] = i`;

test.use({
  mockSettings: {
    ...galata.DEFAULT_SETTINGS,
    'jupyter-kernel-state:plugin': { limit: LIMIT, sort: 'name' }
  }
});

interface ISample {
  responseToPainted: number;
  responseToData: number;
  dataToPainted: number;
  rows: number;
  variables: number;
  domRows: number;
}

async function resetTimeline(page: IJupyterLabPageFixture): Promise<void> {
  await page.evaluate(() => {
    performance.clearResourceTimings();
    performance.setResourceTimingBufferSize(10_000);
    performance.clearMarks('kernel-state:data');
    performance.clearMarks('kernel-state:painted');
  });
}

/**
 * Wait for a data mark followed by a painted mark; read the figures.
 */
async function sample(page: IJupyterLabPageFixture): Promise<ISample> {
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          const data = performance.getEntriesByName('kernel-state:data')[0];
          const painted = performance.getEntriesByName(
            'kernel-state:painted'
          )[0];
          return !!data && !!painted && painted.startTime >= data.startTime;
        }),
      { timeout: 60_000 }
    )
    .toBe(true);
  return page.evaluate(() => {
    const data = performance.getEntriesByName(
      'kernel-state:data'
    )[0] as PerformanceMark;
    const painted = performance.getEntriesByName(
      'kernel-state:painted'
    )[0] as PerformanceMark;
    const responses = (
      performance.getEntriesByType('resource') as PerformanceResourceTiming[]
    ).filter(
      entry =>
        /\/api\/kernel-state\/kernels\/[^/]+\/variables(\?|$)/.test(
          entry.name
        ) && entry.responseEnd <= data.startTime
    );
    const response = responses[responses.length - 1];
    return {
      responseToPainted: painted.startTime - response.responseEnd,
      responseToData: data.startTime - response.responseEnd,
      dataToPainted: painted.startTime - data.startTime,
      rows: painted.detail.rows,
      variables: painted.detail.total,
      domRows: document.querySelectorAll('[data-test-id="kernel-state-row"]')
        .length
    };
  });
}

function stats(values: number[]): {
  median: number;
  p90: number;
  min: number;
  max: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    median: round(
      sorted.length % 2
        ? sorted[(sorted.length - 1) / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2
    ),
    p90: round(at(0.9)),
    min: round(sorted[0]),
    max: round(sorted[sorted.length - 1])
  };
}

function summarize(samples: ISample[]) {
  return {
    runs: samples.length,
    response_to_painted_ms: stats(samples.map(s => s.responseToPainted)),
    parse_ms: stats(samples.map(s => s.responseToData)),
    render_ms: stats(samples.map(s => s.dataToPainted)),
    variables_loaded: samples[0].variables,
    rows_rendered: samples[0].rows,
    rows_in_dom: samples[0].domRows,
    samples_ms: samples.map(s => Math.round(s.responseToPainted * 10) / 10)
  };
}

/**
 * A notebook file of its own (so its own session and kernel), opened and run.
 */
async function makeNotebook(
  page: IJupyterLabPageFixture,
  tmpPath: string,
  name: string
): Promise<void> {
  const notebook = {
    cells: [
      {
        cell_type: 'code',
        source: MAKE,
        metadata: {},
        outputs: [],
        execution_count: null
      }
    ],
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3',
        language: 'python'
      }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
  await page.contents.uploadContent(
    JSON.stringify(notebook),
    'text',
    `${tmpPath}/${name}`
  );
  await page.evaluate(async path => {
    await (window as any).jupyterapp.commands.execute('docmanager:open', {
      path
    });
  }, `${tmpPath}/${name}`);
  await page.notebook.activate(name);
  await page.evaluate(async () => {
    await (window as any).jupyterapp.shell.currentWidget.sessionContext.ready;
  });
  await page.notebook.runCell(0, { inplace: true, wait: true });
  await expect(page.getByTestId('kernel-state-total')).toContainText(
    `${(VARIABLES + 1).toLocaleString('en-US')} variables · first ${LIMIT.toLocaleString('en-US')} loaded`,
    { timeout: 60_000 }
  );
}

test('first paint of 10,000 variables', async ({
  page,
  browserName,
  tmpPath
}) => {
  await page.sidebar.openTab('jp-kernel-state-sidebar');
  await makeNotebook(page, tmpPath, 'bench-a.ipynb');
  // Only the list is measured: fold the image strip.
  await page
    .locator('[data-test-id="kernel-state-images"] .jp-KernelState-foldToggle')
    .click();
  const execution: ISample[] = [];
  for (let run = 0; run <= RUNS; run++) {
    await resetTimeline(page);
    await page.notebook.setCell(0, 'code', `v00000 = ${run + 1}`);
    await page.notebook.runCell(0, { inplace: true, wait: true });
    const figures = await sample(page);
    if (run > 0) {
      execution.push(figures);
    }
  }

  await makeNotebook(page, tmpPath, 'bench-b.ipynb');
  const switched: ISample[] = [];
  for (let run = 0; run <= RUNS; run++) {
    await resetTimeline(page);
    await page.notebook.activate(run % 2 ? 'bench-b.ipynb' : 'bench-a.ipynb');
    const figures = await sample(page);
    if (run > 0) {
      switched.push(figures);
    }
  }

  const version = page.context().browser()?.version() ?? '';
  const report = {
    benchmark: 'first paint of the variable list after the snapshot arrives',
    target_ms: 200,
    date: new Date().toISOString(),
    browser: `${browserName} ${version}`,
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
    viewport: page.viewportSize(),
    variables: VARIABLES,
    snapshot_limit: LIMIT,
    cases: {
      execution: summarize(execution),
      switch: summarize(switched)
    }
  };
  fs.writeFileSync(OUTPUT, JSON.stringify(report, null, 2) + '\n');
  for (const [name, result] of Object.entries(report.cases)) {
    console.log(
      `first paint (${name}): median ${result.response_to_painted_ms.median} ms, ` +
        `p90 ${result.response_to_painted_ms.p90} ms over ${result.runs} runs ` +
        `(parse median ${result.parse_ms.median} ms, render median ${result.render_ms.median} ms); ` +
        `${result.rows_rendered} rows rendered of ${result.variables_loaded} loaded`
    );
  }
  expect(execution.every(s => s.rows > 0 && s.rows < 200)).toBe(true);
});
