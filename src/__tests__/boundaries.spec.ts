/**
 * Boundaries of the frontend, read from its sources: one door to REST (only
 * `restapi.ts` makes HTTP requests, and only the service's modules import it) and one
 * namespace of command ids (`commands.ts`), also for the settings schema and the UI
 * tests.
 */
import * as fs from 'fs';
import * as path from 'path';

import { COMMAND_PREFIX, CommandIDs } from '../commands';

const ROOT = path.join(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');

/**
 * Every source file of `src/` (tests and declarations left out), relative to `src/`.
 */
function sources(dir = SRC): { file: string; text: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name === '__tests__' ? [] : sources(full);
    }
    if (!/\.tsx?$/.test(entry.name) || entry.name.endsWith('.d.ts')) {
      return [];
    }
    return [
      {
        file: path.relative(SRC, full).split(path.sep).join('/'),
        text: fs.readFileSync(full, 'utf-8')
      }
    ];
  });
}

/**
 * Source text without its comments (which may well say "fetch (").
 */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/**
 * Ways of making an HTTP request from a browser.
 */
const HTTP_CALLS = [
  /\bmakeRequest\s*\(/,
  /\brequestAPI\b/,
  /(?<![\w.$])fetch\s*\(/,
  /\b(?:window|globalThis|self)\.fetch\b/,
  /\bXMLHttpRequest\b/,
  /\bsendBeacon\s*\(/
];

/**
 * The REST module, and the service's modules that may use it.
 */
const REST_MODULE = 'restapi.ts';
const SERVICE_MODULES = ['requests.ts', 'service.ts', 'snapshotLoader.ts'];

describe('one door to REST', () => {
  it('recognises each way of making a request', () => {
    for (const code of [
      'ServerConnection.makeRequest(url, {}, settings)',
      "requestAPI<T>('variables')",
      'await fetch(url)',
      'window.fetch',
      'new XMLHttpRequest()',
      'navigator.sendBeacon(url)'
    ]) {
      expect([code, HTTP_CALLS.some(call => call.test(code))]).toEqual([
        code,
        true
      ]);
    }
    // a model's own callback named fetch is no request, nor a comment about one
    for (const text of ['this._fetch(query)', '// a pending fetch (kept)']) {
      expect(HTTP_CALLS.some(call => call.test(code(text)))).toBe(false);
    }
  });

  it('only the REST module makes HTTP requests', () => {
    const all = sources();
    expect(all.map(source => source.file)).toContain(REST_MODULE);
    const callers = all
      .filter(source => HTTP_CALLS.some(call => call.test(code(source.text))))
      .map(source => source.file);
    expect(callers).toEqual([REST_MODULE]);
  });

  it("only the service's modules import the REST module", () => {
    const importers = sources()
      .filter(source => /from\s+['"](?:\.\.?\/)+restapi['"]/.test(source.text))
      .map(source => source.file)
      .sort();
    expect(importers).toEqual([...SERVICE_MODULES].sort());
  });
});

describe('one command-id namespace', () => {
  const ids: string[] = Object.values(CommandIDs);

  it('starts every command id with the prefix, each once', () => {
    expect(ids.length).toBeGreaterThanOrEqual(11);
    expect(ids.filter(id => !id.startsWith(COMMAND_PREFIX))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('registers, runs and names commands only through CommandIDs', () => {
    const literal =
      /\b(?:addCommand|hasCommand|execute|notifyCommandChanged)\(\s*['"`]|\bcommand:\s*['"`]/;
    const offenders = sources()
      .filter(source => literal.test(source.text))
      .map(source => source.file);
    expect(offenders).toEqual([]);
    const registered = sources().flatMap(source =>
      [...source.text.matchAll(/\baddCommand\(\s*([\w.]+)/g)].map(m => m[1])
    );
    // each id registered once, by its CommandIDs name
    expect(registered.sort()).toEqual(
      Object.keys(CommandIDs)
        .map(name => `CommandIDs.${name}`)
        .sort()
    );
  });

  it('names only known commands in the settings schema and the UI tests', () => {
    const schema = fs.readFileSync(
      path.join(ROOT, 'schema', 'plugin.json'),
      'utf-8'
    );
    const inSchema = [...schema.matchAll(/"command":\s*"([^"]+)"/g)].map(
      m => m[1]
    );
    expect(inSchema.length).toBeGreaterThan(0);
    expect(inSchema.filter(id => !ids.includes(id))).toEqual([]);

    const uiTests = path.join(ROOT, 'ui-tests', 'tests');
    const ours = fs
      .readdirSync(uiTests)
      .filter(name => name.endsWith('.ts'))
      .flatMap(name => [
        ...fs
          .readFileSync(path.join(uiTests, name), 'utf-8')
          .matchAll(/['"`](kernel-state[\w-]*:[\w-]+)['"`]/g)
      ])
      .map(m => m[1]);
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter(id => !ids.includes(id))).toEqual([]);
  });
});
