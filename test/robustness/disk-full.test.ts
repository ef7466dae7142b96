/**
 * A full disk (issue 15 item 4): a failed write answers 507 `{"detail": …}` at once, leaves no
 * temporary file, and what was not acknowledged is never written later (not by the next save,
 * not after a restart). Needs a small tmpfs, so root; skipped, visibly, elsewhere.
 */
import { afterAll, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../cli-process.js';
import { tempFiles } from '../data-layout.js';

const dir = mkdtempSync(join(tmpdir(), 'cbm-full-'));
const mnt = join(dir, 'mnt');
mkdirSync(mnt);
const mounted = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
afterAll(() => {
  if (mounted) execFileSync('umount', [mnt]);
  rmSync(dir, { recursive: true, force: true });
});

/** Fills the file system with one file until it refuses more. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  // Small writes too, down to the last block.
  const fd2 = openSync(`${path}-tail`, 'w');
  try {
    for (;;) writeSync(fd2, Buffer.alloc(512, 1));
  } catch {
    // full
  } finally {
    closeSync(fd2);
  }
}

const ARGS = ['--port', '0', '--data-dir', join(mnt, 'data'), '--log-level', 'silent'];
const AUTH = { Authorization: 'Bearer full-disk' };
const secret = (url: string, name: string) =>
  fetch(`${url}/secrets`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${name}` }) });

(mounted ? test : test.skip)(`a full disk answers 507 at once, cleans up, and persists nothing unacknowledged${mounted ? '' : ' (skipped: needs root to mount a small tmpfs)'}`, async () => {
  const cli = await startCli(ARGS, { cwd: dir });
  try {
    expect((await secret(cli.url, 'BEFORE')).status).toBe(201);
    fill(join(mnt, 'filler'));

    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(10 * 1024 * 1024, 7)]), 'ten.bin');
    const up = await fetch(`${cli.url}/sessions/sess_demo/files`, { method: 'POST', headers: AUTH, body: form });
    expect(up.status).toBe(507);
    expect(Object.keys((await up.json()) as object)).toEqual(['detail']);
    expect(tempFiles(join(mnt, 'data'))).toEqual([]);

    const lost = await secret(cli.url, 'NOT_STORED');
    expect(lost.status).toBe(507);
    expect(typeof ((await lost.json()) as any).detail).toBe('string');

    rmSync(join(mnt, 'filler'));
    rmSync(join(mnt, 'filler-tail'));
    // The next save writes the workspace again: without the write that was refused.
    expect((await secret(cli.url, 'AFTER')).status).toBe(201);
    expect((await fetch(`${cli.url}/secrets/NOT_STORED?namespace=function_env`, { headers: AUTH })).status).toBe(404);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  const again = await startCli(ARGS, { cwd: dir });
  try {
    const status = async (name: string) => (await fetch(`${again.url}/secrets/${name}?namespace=function_env`, { headers: AUTH })).status;
    expect([await status('BEFORE'), await status('NOT_STORED'), await status('AFTER')]).toEqual([200, 404, 200]);
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
}, 120_000);
