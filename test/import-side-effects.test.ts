/**
 * Importing the package changes nothing in the importing process (issue 13): V8's flags stay as
 * they were — the upload collections' `--expose-gc` is the CLI's choice (`gcDuringUploads`), not
 * a side effect of loading a module into a user's own test runner.
 */
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

/**
 * Runs `body` in a fresh plain node after importing the built entry, and returns what it prints.
 * `--expose-gc` set at run time shows as a `gc` function in every context made afterwards.
 */
function inFreshNode(body: string): string {
  const entry = JSON.stringify(join(ROOT, 'dist', 'src', 'index.js'));
  const script = `
    import { runInNewContext } from 'node:vm';
    const gcExposed = () => runInNewContext('typeof gc') === 'function';
    const m = await import(${entry});
    ${body}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return r.stdout.trim();
}

/**
 * One fresh node for the three cases: what it prints right after the import (before anything else
 * ran), then after a library user's start and upload, then after a start as the CLI makes it
 * (`gcDuringUploads: true`). A node start and the package's import cost about as much as the rest
 * of such a case; the last start coming after the others leaves each reading as in a fresh node
 * (the flag is still off when it starts: the second line), and ties the collector to that option.
 */
let userRun: string[] | undefined;
function importUploadThenCliStart(): string[] {
  userRun ??= inFreshNode(`
    console.log(gcExposed(), typeof globalThis.gc);
    const mock = await m.startMockServer({ logLevel: 'silent' });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(9 * 1024 * 1024)]), 'big.bin');
    const res = await fetch(mock.url + '/sessions/sess_demo/files', { method: 'POST', headers: { Authorization: 'Bearer sk_test_demo' }, body: form });
    console.log(res.status, gcExposed());
    await mock.close();
    const cli = await m.startMockServer({ logLevel: 'silent', gcDuringUploads: true });
    console.log(gcExposed());
    await cli.close();`).split('\n');
  return userRun;
}

test('importing dist/src/index.js leaves V8 without --expose-gc', () => {
  expect(importUploadThenCliStart()[0]).toBe('false undefined');
});

test('a library user\'s startMockServer() (uploads included) leaves V8\'s flags alone', () => {
  expect(importUploadThenCliStart()[1]).toBe('201 false');
});

test('startMockServer({ gcDuringUploads: true }), as the CLI starts it, gets its collector', () => {
  expect(importUploadThenCliStart().slice(2)).toEqual(['true']);
});
