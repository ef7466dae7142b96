/**
 * SIGKILL in the middle of a write storm, then a restart on the same data directory: every file
 * parses, every write whose answer arrived before the kill is there, and an upload cut off by
 * the kill leaves neither a stray blob nor a record without bytes. The process kills itself at a
 * named instant of an append (CBM_TEST_CRASH_AT, read only by the CLI under NODE_ENV=test:
 * src/store/test-hooks.ts) — half a line written, or a line written and not yet acknowledged —
 * while three principals store secrets and one upload sends its bytes slowly; crash-instants.test.ts
 * does the same with uploads and compactions. The restart that checks what the crash left is a
 * server in this process (startMockServer) on the same directory: what it reads is the store's
 * start, which is the same code in the CLI and in a process of one's own.
 */
import { afterAll, expect, test } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer } from '../../src/server.js';
import { startCli } from '../cli-process.js';
import { ROOT } from '../helpers.js';
import { blobFiles, tempFiles, workspacesDir } from '../data-layout.js';

// The cases are independent (a data directory each) and run at once.
const root = mkdtempSync(join(tmpdir(), 'cbm-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TOKENS = ['crash-a', 'crash-b', 'crash-c'];
// The paging scenario: each principal's first write copies its 5,000 file records into a snapshot
// of its own, so the storm's first writes are slow ones, and the later ones small appends.
const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent', '--scenario', 'paging'];
const SESSION = 'sess_paging';
/** Writes per writer before the test gives up on the instant being reached (a count, not a time). */
const MAX_WRITES = 2000;

/** Starts an upload that sends its bytes slowly and never finishes by itself. */
function slowUpload(url: string): () => void {
  const u = new URL(`${url}/sessions/${SESSION}/files`);
  const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Authorization: 'Bearer crash-a', 'Content-Type': 'multipart/form-data; boundary=kk' } });
  req.on('error', () => undefined);
  req.write('--kk\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n');
  const timer = setInterval(() => req.write(Buffer.alloc(64 * 1024, 1)), 5);
  return () => clearInterval(timer);
}

test.concurrent.each(['mid-append:10', 'between-groups:10', 'mid-append:60'])('killed at %s of a write storm, an upload cut off mid-body: no acknowledged write lost, no stray blob', async (crashAt) => {
  const dir = mkdtempSync(join(root, `${crashAt.replace(':', '-')}-`));
  const first = await startCli(ARGS, { cwd: dir, env: { NODE_ENV: 'test', CBM_TEST_CRASH_AT: crashAt } });
  const acknowledged: { token: string; name: string }[] = [];
  const cutOff: string[] = [];
  const stopUpload = slowUpload(first.url);
  const storm = TOKENS.map(async (token, t) => {
    for (let i = 0; i < MAX_WRITES; i++) {
      const name = `K_${t}_${i}`;
      try {
        const res = await fetch(`${first.url}/secrets`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `v-${name}-value` }) });
        if (res.status === 201) acknowledged.push({ token, name });
      } catch {
        cutOff.push(token); // the process is gone
        return;
      }
    }
  });
  await Promise.all(storm);
  stopUpload();
  if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGTERM');
  await first.exited;
  // The instant was reached in the storm: the process killed itself, every writer had a request
  // cut off by it, and writes had been acknowledged before it (so there is something to lose).
  expect([first.child.signalCode, [...cutOff].sort()]).toEqual(['SIGKILL', TOKENS]);
  expect(acknowledged.length).toBeGreaterThan(0);

  // Every data file that is there parses (atomic replacement: never half-written).
  const wsDir = workspacesDir(join(dir, 'data'));
  for (const f of readdirSync(wsDir).filter((n) => n.endsWith('.json'))) expect(() => JSON.parse(readFileSync(join(wsDir, f), 'utf8'))).not.toThrow();

  const second = await startMockServer({ port: 0, dataDir: join(dir, 'data'), scenario: 'paging', logLevel: 'silent' });
  try {
    for (const token of TOKENS) {
      const res = await fetch(`${second.url}/secrets?namespace=function_env`, { headers: { Authorization: `Bearer ${token}` } });
      const names = new Set(((await res.json()) as any).items.map((s: any) => s.name));
      const mine = acknowledged.filter((a) => a.token === token).map((a) => a.name);
      expect(mine.filter((n) => !names.has(n))).toEqual([]);
    }
    // The cut-off upload left no blob (temporary or not) and no record pointing at missing bytes.
    expect(tempFiles(join(dir, 'data'))).toEqual([]);
    const seeded = new Set(JSON.parse(readFileSync(join(ROOT, 'fixtures', 'paging.json'), 'utf8')).sessions[0].files.map((f: any) => f.id));
    const files: any[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = (await (await fetch(`${second.url}/sessions/${SESSION}/files?limit=1000&offset=${offset}`, { headers: { Authorization: 'Bearer crash-a' } })).json()) as any;
      files.push(...page.files);
      if (offset + 1000 >= page.total) break;
    }
    const uploads = files.filter((f) => !seeded.has(f.id));
    for (const f of uploads) {
      const res = await fetch(`${second.url}/sessions/${SESSION}/files/${f.id}`, { headers: { Authorization: 'Bearer crash-a' } });
      expect([f.id, res.status, Buffer.from(await res.arrayBuffer()).length]).toEqual([f.id, 200, f.size]);
    }
    // Touched above, every workspace was checked on load: no blob without its record.
    expect(blobFiles(join(dir, 'data'))).toHaveLength(uploads.length);
  } finally {
    await second.close();
  }
  expect(existsSync(join(dir, 'data', 'meta.json'))).toBe(true);
}, 60_000);
