/**
 * A test suite driving a mock that runs beside it — `npx … ./cloud-browser-mock-<version>.tgz`,
 * `docker run`, a CI service container — through connectMockServer(): the same handle as
 * startMockServer() returns. In CI the mock is already up at CBM_URL; where CBM_URL is not set
 * (as in this repository's suite), this file starts the CLI itself first.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { connectMockServer, type MockControl } from '../src/index.js'; // in your project: 'cloud-browser-mock'

let sidecar: ChildProcess | undefined;
let mock: MockControl;
const auth = { Authorization: 'Bearer sk_test_demo' };

/** Stands in for CI's `npx --yes ./cloud-browser-mock-<version>.tgz --port 8000 &`: the built CLI on a free port. */
async function startSidecar(): Promise<string> {
  const cli = fileURLToPath(new URL('../dist/bin/cli.js', import.meta.url));
  sidecar = spawn(process.execPath, [cli, '--port', '0', '--in-memory', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    sidecar!.stdout!.on('data', (d) => {
      const m = /listening on (http:\/\/\S+)/.exec((out += d));
      if (m) resolve(m[1]);
    });
    sidecar!.on('exit', (code) => reject(new Error(`the CLI exited ${code}`)));
  });
}

beforeAll(async () => {
  const url = process.env.CBM_URL ?? (await startSidecar());
  // docs/testing.md: sidecar or npx
  mock = await connectMockServer(url, { adminToken: process.env.CBM_ADMIN_TOKEN }); // waits for /health
});
beforeEach(() => mock.reset());
afterAll(async () => {
  if (!sidecar || sidecar.exitCode !== null) return;
  const exited = once(sidecar, 'exit');
  sidecar.kill('SIGTERM');
  await exited; // nothing of the CLI outlives the suite (its pipe would hold the jest worker open)
});

test('a parallel worker resets only its own workspace', async () => {
  const token = `worker-${process.env.JEST_WORKER_ID ?? 1}-token`; // a made-up token: its own workspace
  const principal = await mock.principalOf(token); // key:<24 hex digits>
  await mock.reset(principal);
  const files = await fetch(`${mock.url}/sessions/sess_demo/files`, { headers: { Authorization: `Bearer ${token}` } });
  expect(files.status).toBe(200);
  expect((await mock.requests({ principal })).map((r) => r.operationId)).toEqual(['listSessionFiles']);
});

test('a 503 once, then files expire eight days later', async () => {
  await mock.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 });
  expect((await fetch(`${mock.url}/sessions/sess_demo/files`, { headers: auth })).status).toBe(503);
  await mock.clock.advance('P8D'); // seconds or ISO 8601, as the control plane takes them
  expect((await fetch(`${mock.url}/sessions/sess_demo/files/file_demo_notes`, { headers: auth })).status).toBe(410);
});
