/**
 * A data directory is the mock's alone (issue 15 items 2, 3): a second process on it is refused
 * with one line naming the holder, while a killed holder's lock does not block a restart; a
 * directory with files the mock did not make where its files go is refused and left untouched
 * (--reset-data included); files holding secrets or the signing key are readable by the owner only.
 */
import { afterAll, afterEach, beforeEach, expect, test } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, startCli } from '../cli-process.js';
import { workspacesDir } from '../data-layout.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-datadir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent'];
const runAsync = (extra: string[] = []) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...ARGS, ...extra], { cwd: dir });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      if (/listening on/.test(String(d))) child.kill('SIGTERM');
    });
    child.on('exit', (status) => resolve({ status, stderr }));
  });
const run = (extra: string[] = []) => spawnSync(process.execPath, [CLI, ...ARGS, ...extra], { cwd: dir, encoding: 'utf8', timeout: 20000 });

test('a second process on a data directory in use is refused with one line naming the holder; the first keeps every write', async () => {
  const first = await startCli(ARGS, { cwd: dir });
  try {
    const put = await fetch(`${first.url}/secrets`, { method: 'POST', headers: { Authorization: 'Bearer lock-a', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'KEPT', value: 'kept-value' }) });
    expect(put.status).toBe(201);
    const r = run();
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`in use by process ${first.child.pid}`);
    const got = await fetch(`${first.url}/secrets/KEPT?namespace=function_env`, { headers: { Authorization: 'Bearer lock-a' } });
    expect(got.status).toBe(200);
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
}, 60_000);

test('a holder killed with SIGKILL does not block the next start, which keeps its acknowledged writes', async () => {
  const first = await startCli(ARGS, { cwd: dir });
  const put = await fetch(`${first.url}/secrets`, { method: 'POST', headers: { Authorization: 'Bearer lock-b', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'SURVIVES', value: 'survives-value' }) });
  expect(put.status).toBe(201);
  first.child.kill('SIGKILL');
  await first.exited;
  const second = await startCli(ARGS, { cwd: dir });
  try {
    const got = await fetch(`${second.url}/secrets/SURVIVES?namespace=function_env`, { headers: { Authorization: 'Bearer lock-b' } });
    expect(got.status).toBe(200);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}, 60_000);

test.each([[[]], [['--reset-data']]])('a directory with a blobs/ folder of its own is refused, its files untouched (extra flags: %j)', (extra) => {
  mkdirSync(join(dir, 'data', 'blobs'), { recursive: true });
  writeFileSync(join(dir, 'data', 'blobs', 'important.txt'), 'do not delete');
  const r = run(extra);
  expect(r.status).not.toBe(0);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/holds blobs but no cloud-browser-mock meta\.json/);
  expect(readFileSync(join(dir, 'data', 'blobs', 'important.txt'), 'utf8')).toBe('do not delete');
});

/**
 * A data directory the CLI made and left (started, then stopped with SIGTERM), made once for the
 * file and copied into each case's directory: a start costs about half a CPU-second.
 */
let made: string | undefined;
async function ownDataDir(): Promise<string> {
  if (made) return join(made, 'data');
  const home = mkdtempSync(join(tmpdir(), 'cbm-datadir-own-'));
  const first = await startCli(ARGS, { cwd: home });
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  made = home;
  return join(home, 'data');
}
afterAll(() => made && rmSync(made, { recursive: true, force: true }));

test.each([
  ['tmp', []],
  ['tmp', ['--reset-data']],
  ['blobs', []],
  ['blobs', ['--reset-data']],
])('a symlink %s planted where the mock keeps its files is refused; its target is untouched (extra flags: %j)', async (name, extra) => {
  // A data directory of the mock's own, with a symlink planted beside meta.json.
  cpSync(await ownDataDir(), join(dir, 'data'), { recursive: true });
  const target = join(dir, 'precious');
  mkdirSync(target);
  writeFileSync(join(target, 'keep.txt'), 'keep');
  rmSync(join(dir, 'data', name), { recursive: true, force: true });
  symlinkSync(target, join(dir, 'data', name));
  const r = run(extra as string[]);
  expect(r.status).not.toBe(0);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(`symlink ${name}`);
  expect(readdirSync(target)).toEqual(['keep.txt']);
}, 60_000);

test('meta.json (the token-signing key) and workspace files (secrets) are readable by their owner only', async () => {
  const cli = await startCli(ARGS, { cwd: dir });
  try {
    const put = await fetch(`${cli.url}/secrets`, { method: 'POST', headers: { Authorization: 'Bearer modes', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'M', value: 'mode-value' }) });
    expect(put.status).toBe(201);
    const data = join(dir, 'data');
    const files = [join(data, 'meta.json'), ...readdirSync(workspacesDir(data)).map((f) => join(workspacesDir(data), f))];
    expect(files.length).toBeGreaterThan(1);
    for (const f of files) expect([f, (statSync(f).mode & 0o777).toString(8)]).toEqual([f, '600']);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
}, 60_000);

const hasProc = existsSync('/proc/self/ns/pid');
const withProc = (name: string, fn: () => Promise<void>, timeout: number) =>
  (hasProc ? test : test.skip)(hasProc ? name : `${name} (skipped: needs Linux /proc to fake another pid namespace)`, fn, timeout);

/** A lock as a mock in another container writes it: PID 1, a pid namespace this process cannot see. */
function foreignLock(): string {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const lock = join(dir, 'data', 'lock');
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const other = `pid:[${Number(/\d+/.exec(readlinkSync('/proc/self/ns/pid'))![0]) + 1}]`;
  writeFileSync(lock, JSON.stringify({ tool: 'cloud-browser-mock', pid: 1, host: hostname(), boot_id: bootId, pid_ns: other, start_time: '1', since: '2026-01-01T00:00:00.000Z' }));
  return lock;
}

withProc('a holder in another pid namespace (PID 1 in a container) whose heartbeat moves is live: refused, naming it', async () => {
  const lock = foreignLock();
  const beat = setInterval(() => utimesSync(lock, new Date(), new Date()), 300);
  try {
    const r = await runAsync();
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/is in use by process 1 on host /);
  } finally {
    clearInterval(beat);
  }
}, 60_000);

withProc('a holder in another pid namespace whose heartbeat stopped (docker kill) is dead: the next start takes over', async () => {
  const lock = foreignLock();
  const long = new Date(Date.now() - 60_000);
  utimesSync(lock, long, long);
  const r = await runAsync();
  expect(r.stderr).not.toMatch(/in use|lock/);
  expect(r.status).toBe(0);
}, 60_000);
