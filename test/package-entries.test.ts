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

test('import "cloud-browser-mock/testcontainers" exports CloudBrowserMockContainer (and does load testcontainers)', () => {
  const sub = importAndList('cloud-browser-mock/testcontainers');
  expect(sub.exports).toEqual(expect.arrayContaining(['CloudBrowserMockContainer', 'StartedCloudBrowserMockContainer']));
  expect(sub.testcontainersFiles).toBeGreaterThan(0);
});

test('require("cloud-browser-mock/testcontainers") from CommonJS exports the same module as its import condition', () => {
  const script = `
    const m = require('cloud-browser-mock/testcontainers');
    console.log(JSON.stringify({ exports: Object.keys(m).sort(), file: require.resolve('cloud-browser-mock/testcontainers') }));`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect([r.status, r.stderr]).toEqual([0, '']);
  const sub = JSON.parse(r.stdout) as { exports: string[]; file: string };
  expect(sub.file.endsWith('testcontainers.cjs')).toBe(true);
  expect(sub.exports).toEqual(expect.arrayContaining(['CloudBrowserMockContainer', 'StartedCloudBrowserMockContainer']));
});
