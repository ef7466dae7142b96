/**
 * A recording is written atomically as traffic flows: a proxy killed with SIGKILL in the middle
 * of a stream of answers leaves the last complete scenario file, which loads with --scenario.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readScenarioFile } from '../../src/scenarios/scenario.js';
import { startCli, type RunningCli } from '../cli-process.js';

let dir: string;
let upstream: RunningCli;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-record-kill-'));
  upstream = await startCli(['--port', '0', '--in-memory', '--log-level', 'warn'], { cwd: dir });
});

afterAll(async () => {
  upstream?.child.kill('SIGTERM');
  await upstream?.exited;
  rmSync(dir, { recursive: true, force: true });
});

test('SIGKILL during a stream of recorded answers leaves a complete, loadable recording', async () => {
  const file = join(dir, 'recorded.json');
  const proxy = await startCli(['--port', '0', '--upstream', upstream.url, '--record', file, '--log-level', 'warn'], { cwd: dir });
  const auth = { Authorization: 'Bearer sk_kill_case' };
  let answered = 0;
  let stop = false;
  // Eight clients page through 150 files over and over; every page changes the recording.
  const clients = Array.from({ length: 8 }, async (_, c) => {
    for (let i = 0; !stop; i++) {
      try {
        const res = await fetch(`${proxy.url}/sessions/sess_many_files/files?limit=5&offset=${((c * 19 + i) * 5) % 150}`, { headers: auth });
        await res.arrayBuffer();
        answered++;
      } catch {
        return; // the proxy is gone
      }
    }
  });
  while (answered < 60) await new Promise((r) => setImmediate(r));
  proxy.child.kill('SIGKILL');
  await proxy.exited;
  stop = true;
  await Promise.all(clients);
  expect(existsSync(file)).toBe(true);
  const scenario = await readScenarioFile(file, dir);
  const files = scenario.sessions.find((s) => s.id === 'sess_many_files')?.files ?? [];
  expect(files.length).toBeGreaterThan(0);
  // Only the recording itself is left behind, perhaps with one temporary file — never a torn one.
  expect(JSON.parse(readFileSync(file, 'utf8')).name).toBe('recorded');
  expect(readdirSync(dir).filter((n) => n.endsWith('.json'))).toEqual(['recorded.json']);
});
