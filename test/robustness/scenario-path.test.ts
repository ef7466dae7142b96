/**
 * `POST /__mock/scenario {"path": …}` (issue 16, item 2) against the real CLI: only regular files
 * of bounded size are read, without blocking the server, and no error quotes the file's content.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type RunningCli } from '../cli-process.js';

// One CLI child serves every case (a start costs about half a CPU-second): each refused switch
// leaves the scenario it had, which stillServing() checks, and the one case that switches puts the
// default back before it ends.
let dir: string;
let cli: RunningCli;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-scenario-path-'));
  cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'silent'], { cwd: dir });
});
afterAll(async () => {
  cli.child.kill('SIGKILL');
  await cli.exited;
  rmSync(dir, { recursive: true, force: true });
});

async function switchTo(path: string) {
  const res = await fetch(`${cli.url}/__mock/scenario`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path }) });
  return { status: res.status, text: await res.text() };
}

/** The server still answers, and still serves the scenario it had. */
async function stillServing() {
  expect((await fetch(`${cli.url}/health`)).status).toBe(200);
  const res = await fetch(`${cli.url}/mailboxes`, { headers: { Authorization: 'Bearer sk_test_demo' } });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
}

test('a file that is not JSON: 422 naming the file and the position, never its bytes', async () => {
  const file = join(dir, 'shadow');
  writeFileSync(file, 'root:$6$SHADOWHASHxyz$abcdef:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n');
  const res = await switchTo(file);
  expect(res.status).toBe(422);
  expect(JSON.parse(res.text).detail).toContain(file);
  expect(res.text).toMatch(/not valid JSON: Expecting value at character 0/);
  expect(res.text).not.toMatch(/root|SHADOW|daemon/);
  await stillServing();
});

test('a JSON file that is not a scenario: 422 without its keys or ids', async () => {
  const file = join(dir, 'config.json');
  const base = { name: 'x', generated_at: '2025-01-01T00:00:00Z', users: [], api_keys: [], sessions: [], mailboxes: [], secrets: [] };
  writeFileSync(file, JSON.stringify({ ...base, TOP_SECRET_KEY_NAME: 'TOP_SECRET_VALUE' }));
  const res = await switchTo(file);
  expect(res.status).toBe(422);
  expect(res.text).not.toContain('TOP_SECRET');
  const repeated = join(dir, 'repeated.json');
  writeFileSync(repeated, JSON.stringify({ ...base, secrets: [1, 2].map(() => ({ id: 'sec_TOP_SECRET_ID', namespace: 'function_env', name: 'A', value: 'v', created_at: base.generated_at, last_used_at: null })) }));
  const again = await switchTo(repeated);
  expect(again.status).toBe(422);
  expect(again.text).not.toContain('TOP_SECRET');
});

test('a FIFO is refused at once and the server never blocks on it', async () => {
  const fifo = join(dir, 'pipe');
  const made = spawnSync('mkfifo', [fifo]);
  expect(made.status).toBe(0);
  const res = await switchTo(fifo);
  expect(res.status).toBe(422);
  expect(JSON.parse(res.text).detail).toBe(`scenario file ${fifo} is not a regular file`);
  await stillServing();
});

test.each([
  ['/dev/zero', 'scenario file /dev/zero is not a regular file'],
  ['/dev/urandom', 'scenario file /dev/urandom is not a regular file'],
  ['/', 'scenario / is a directory; name a scenario file (JSON) or a built-in scenario (default, empty, paging, expiring, unhealthy-mailboxes)'],
])('%s is refused without reading it', async (path, detail) => {
  const res = await switchTo(path);
  expect(res.status).toBe(422);
  expect(JSON.parse(res.text).detail).toBe(detail);
  // Nothing was read into memory: the process is still far from the size of what it would hold.
  expect(cli.rss()).toBeLessThan(512 * 1024 * 1024);
  await stillServing();
});

test('a file over 32 MiB is refused before it is read', async () => {
  const file = join(dir, 'huge.json');
  writeFileSync(file, '');
  truncateSync(file, 33 * 1024 * 1024);
  const res = await switchTo(file);
  expect(res.status).toBe(422);
  expect(JSON.parse(res.text).detail).toBe(`scenario file ${file} has ${33 * 1024 * 1024} bytes; a scenario file may have at most ${32 * 1024 * 1024} (32 MiB)`);
  await stillServing();
});

test('a valid scenario file is still switched to', async () => {
  const file = join(dir, 'mine.json');
  writeFileSync(file, JSON.stringify({ name: 'mine', generated_at: '2025-01-01T00:00:00Z', users: [], api_keys: [], sessions: [], mailboxes: [], secrets: [] }));
  try {
    const res = await switchTo(file);
    expect([res.status, JSON.parse(res.text)]).toEqual([200, { scenario: file, seed: 1 }]);
  } finally {
    await fetch(`${cli.url}/__mock/scenario`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'default' }) });
  }
});
