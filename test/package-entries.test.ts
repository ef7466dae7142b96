/**
 * The package's entry points as an importing project resolves them (by name, through the
 * `exports` map): the main entry works without testcontainers and never loads it (an optional
 * peer dependency); `cloud-browser-mock/testcontainers` loads it and exports the module.
 */
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { ROOT } from './helpers.js';

/** Imports `specifier` in a fresh node (cwd: the repository, so the package name resolves to itself) and lists the testcontainers files loaded. */
function importAndList(specifier: string): { exports: string[]; testcontainersFiles: number } {
  const script = `
    import { createRequire } from 'node:module';
    const m = await import(${JSON.stringify(specifier)});
    const cache = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify({ exports: Object.keys(m).sort(), testcontainersFiles: cache.filter((f) => f.includes('/node_modules/testcontainers/')).length }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return JSON.parse(r.stdout);
}

test('import "cloud-browser-mock" exports connectMockServer and loads nothing of testcontainers', () => {
  const main = importAndList('cloud-browser-mock');
  expect(main.exports).toEqual(expect.arrayContaining(['startMockServer', 'connectMockServer', 'MockControlError']));
  expect(main.testcontainersFiles).toBe(0);
});

/**
 * One fresh CommonJS node for the two `cloud-browser-mock/testcontainers` cases (a node start and
 * testcontainers' load cost about as much as each case): first `import()`, which resolves with the
 * import condition as an ES module's `import` does, and the testcontainers files that loaded; then
 * `require`, with the require condition, and the file it resolved to.
 */
let subpath: { imported: { exports: string[]; testcontainersFiles: number }; required: { exports: string[]; file: string } } | undefined;
function importThenRequire(): NonNullable<typeof subpath> {
  const script = `
    (async () => {
      const m = await import('cloud-browser-mock/testcontainers');
      const imported = { exports: Object.keys(m).sort(), testcontainersFiles: Object.keys(require.cache).filter((f) => f.includes('/node_modules/testcontainers/')).length };
      const r = require('cloud-browser-mock/testcontainers');
      const required = { exports: Object.keys(r).sort(), file: require.resolve('cloud-browser-mock/testcontainers') };
      console.log(JSON.stringify({ imported, required }));
    })();`;
  subpath ??= (() => {
    const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect([r.status, r.stderr]).toEqual([0, '']);
    return JSON.parse(r.stdout);
  })();
  return subpath!;
}

test('import "cloud-browser-mock/testcontainers" exports CloudBrowserMockContainer (and does load testcontainers)', () => {
  const sub = importThenRequire().imported;
  expect(sub.exports).toEqual(expect.arrayContaining(['CloudBrowserMockContainer', 'StartedCloudBrowserMockContainer']));
  expect(sub.testcontainersFiles).toBeGreaterThan(0);
});

test('require("cloud-browser-mock/testcontainers") from CommonJS exports the same module as its import condition', () => {
  const sub = importThenRequire().required;
  expect(sub.file.endsWith('testcontainers.cjs')).toBe(true);
  expect(sub.exports).toEqual(expect.arrayContaining(['CloudBrowserMockContainer', 'StartedCloudBrowserMockContainer']));
});
