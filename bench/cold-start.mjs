/**
 * `node bench/cold-start.mjs [--records N] [--uploads N] [--rounds N]` (after `npm run build`)
 *
 * What a start costs with the data-dir lock and the load-time blob check (issue 15): a data
 * directory is filled through the CLI (one workspace of N file records, U of them uploads with
 * bytes), then the CLI is started R times on it, measuring (1) spawn → "listening" (lock,
 * marker check, sweep: no workspace is read) and (2) the first request of that workspace's
 * principal (read, every record's blob checked, unreferenced blobs collected). Medians printed.
 * 127.0.0.1 only, bounded by its arguments.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'bin', 'cli.js');
const { values } = parseArgs({ options: { records: { type: 'string', default: '100000' }, uploads: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' } } });
const RECORDS = Number(values.records);
const UPLOADS = Number(values.uploads);
const ROUNDS = Number(values.rounds);
const AUTH = { Authorization: 'Bearer cold-start' };
const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent', '--scenario', 'empty'];

function start(cwd) {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [CLI, ...ARGS], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1], ms: Number(process.hrtime.bigint() - t0) / 1e6 });
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}`)));
  });
}

const stop = (c) => new Promise((r) => (c.child.on('exit', r), c.child.kill('SIGTERM')));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const cwd = mkdtempSync(join(tmpdir(), 'cbm-cold-'));
try {
  let cli = await start(cwd);
  const principal = await (async () => {
    await fetch(`${cli.url}/mailboxes`, { headers: AUTH });
    return (await (await fetch(`${cli.url}/__mock/requests?limit=1`)).json()).items[0].principal;
  })();
  const p = encodeURIComponent(principal);
  await fetch(`${cli.url}/__mock/workspaces/${p}/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":"sess_cold","actions":[]}' });
  const at = new Date('2030-01-01T00:00:00Z').toISOString();
  const files = Array.from({ length: RECORDS - UPLOADS }, (_, i) => ({ id: `file_${String(i).padStart(16, '0')}`, filename: `f${i}.txt`, mime_type: 'text/plain', size: 10, created_at: at, expires_at: '2031-01-01T00:00:00Z', source: 'session_download' }));
  const put = await fetch(`${cli.url}/__mock/workspaces/${p}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ sessions: [{ id: 'sess_cold', actions: [], files }], mailboxes: [], secrets: [] }) });
  if (put.status !== 204) throw new Error(`import answered ${put.status}: ${await put.text()}`);
  for (let i = 0; i < UPLOADS; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, UPLOADS - i) }, async (_, j) => {
      const form = new FormData();
      form.append('file', new Blob([`upload ${i + j}`]), `u${i + j}.txt`);
      const r = await fetch(`${cli.url}/sessions/sess_cold/files`, { method: 'POST', headers: AUTH, body: form });
      if (r.status !== 201) throw new Error(`upload answered ${r.status}`);
    }));
  }
  await stop(cli);
  const listening = [];
  const firstUse = [];
  for (let r = 0; r < ROUNDS; r++) {
    cli = await start(cwd);
    listening.push(cli.ms);
    const t0 = process.hrtime.bigint();
    const res = await fetch(`${cli.url}/sessions/sess_cold/files?limit=1`, { headers: AUTH });
    const body = await res.json();
    firstUse.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (body.total !== RECORDS) throw new Error(`expected ${RECORDS} files, listed ${body.total}`);
    await stop(cli);
  }
  console.log(`records ${RECORDS} (uploads ${UPLOADS}), rounds ${ROUNDS}`);
  console.log(`spawn → listening: median ${median(listening).toFixed(0)} ms  [${listening.map((x) => x.toFixed(0)).join(', ')}]`);
  console.log(`first request of the workspace (read + blob check): median ${median(firstUse).toFixed(0)} ms  [${firstUse.map((x) => x.toFixed(0)).join(', ')}]`);
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
