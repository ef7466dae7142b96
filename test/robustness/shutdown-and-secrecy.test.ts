/** Graceful shutdown, corrupt data at start-up, and secrets that never leak — on the real CLI. */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { CLI, startCli } from '../cli-process.js';
import { within } from '../helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-shutdown-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent'];
const json = { 'Content-Type': 'application/json' };

/** A request sent with `Expect: 100-continue`: `arrived` once the server has read its headers (its body follows then). */
function arriving(base: string, method: string, path: string, headers: Record<string, string>, body?: string): { arrived: Promise<void>; status: Promise<number> } {
  const url = new URL(base);
  const req = request({ host: url.hostname, port: url.port, method, path, headers: { ...headers, Expect: '100-continue', ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) } });
  const arrived = new Promise<void>((resolve) => req.once('continue', () => resolve()));
  const status = new Promise<number>((resolve, reject) => {
    req.once('response', (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    });
    req.once('error', reject);
  });
  if (body === undefined) req.end();
  else {
    req.flushHeaders();
    req.once('continue', () => req.end(body));
  }
  return { arrived, status };
}

test('SIGTERM during in-flight requests: they complete, new connections are refused, data is flushed, exit 0', async () => {
  const cli = await startCli(ARGS, { cwd: dir });
  const auth = { Authorization: 'Bearer shutdown' };
  expect((await fetch(`${cli.url}/secrets`, { method: 'POST', headers: { ...auth, ...json }, body: JSON.stringify({ name: 'BEFORE', value: 'before-value' }) })).status).toBe(201);
  // Two slow requests: a read and a write, both still running when the signal arrives. Each asks
  // for 100 Continue, which Node sends once it has read the request's headers, in the turn it hands
  // the request on: its arrival is announced.
  const slowRead = arriving(cli.url, 'GET', '/mailboxes', { ...auth, Prefer: 'delay=2000' });
  const slowWrite = arriving(cli.url, 'POST', '/secrets', { ...auth, ...json, Prefer: 'delay=2000' }, JSON.stringify({ name: 'DURING', value: 'during-value' }));
  await within(Promise.all([slowRead.arrived, slowWrite.arrived]), 20_000, 'both slow requests answered 100 Continue');
  cli.child.kill('SIGTERM');
  // The listener is closed in the same turn as this line is printed.
  await cli.waitFor(/stopping/);
  expect(cli.output()).toMatch(/stopping: waiting for 2 requests/);
  await expect(fetch(`${cli.url}/health`)).rejects.toThrow();
  expect(await slowRead.status).toBe(200);
  expect(await slowWrite.status).toBe(201);
  expect(await cli.exited).toBe(0);

  const again = await startCli(ARGS, { cwd: dir });
  try {
    const names = ((await (await fetch(`${again.url}/secrets`, { headers: auth })).json()) as any).items.map((s: any) => s.name);
    expect(names).toEqual(expect.arrayContaining(['BEFORE', 'DURING']));
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

test.each([
  ['a foreign meta.json', '{"hello":"world"}', /another --data-dir/],
  ['an older meta.json format', '{"format":0,"scenario":"default","seed":1,"signing_key":"00"}', /--reset-data/],
  // What the version before issue 11 wrote: its workspaces are named by principal ids that changed.
  ['a data directory from before API keys had owners (format 1)', `{"format":1,"scenario":"default","seed":1,"signing_key":"${'00'.repeat(32)}"}`, /--reset-data/],
  // Issue 11's layout (meta.json, workspaces/, blobs/), before state directories (issue 15).
  ['a data directory without state directories (format 2)', `{"format":2,"scenario":"default","seed":1,"signing_key":"${'00'.repeat(32)}"}`, /--reset-data/],
])('%s stops start-up with one line naming the file and what to do, exit 1, the file untouched', (_, text, hint) => {
  mkdirSync(join(dir, 'data', 'workspaces'), { recursive: true });
  writeFileSync(join(dir, 'data', 'meta.json'), text);
  const r = spawnSync(process.execPath, [CLI, ...ARGS], { cwd: dir, encoding: 'utf8', timeout: 15000 });
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(join(dir, 'data', 'meta.json'));
  expect(r.stderr).toMatch(hint);
  expect(readFileSync(join(dir, 'data', 'meta.json'), 'utf8')).toBe(text);
});

test('secret values and tokens never appear in the log, the journal, listings, or another principal’s answers', async () => {
  const cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'debug'], { cwd: dir });
  const owner = { Authorization: 'Bearer owner-token-9f8e7d' };
  const other = { Authorization: 'Bearer other-token-1a2b3c' };
  const values = ['correct-horse-battery-staple', 'p@ss w0rd "quoted" \\ back'];
  const seen: string[] = [];
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${cli.url}${path}`, init);
    const text = await res.text();
    seen.push(`${path} ${res.status} ${text} ${JSON.stringify([...res.headers])}`);
    return { status: res.status, text };
  };
  try {
    for (const [i, value] of values.entries()) {
      expect((await call('/secrets', { method: 'POST', headers: { ...owner, ...json }, body: JSON.stringify({ name: `S${i}`, value, namespace: 'llm_provider' }) })).status).toBe(201);
    }
    const reads = [];
    for (let i = 0; i < values.length; i++) reads.push((await fetch(`${cli.url}/secrets/S${i}?namespace=llm_provider`, { headers: owner })).json());
    expect((await Promise.all(reads)).map((r: any) => r.value)).toEqual(values);
    await call('/secrets', { headers: owner });
    await call('/secrets?namespace=llm_provider', { headers: other });
    await call('/secrets/S0?namespace=llm_provider', { headers: other });
    await call('/mailboxes', { headers: other });
    await call('/__mock/requests');
    await call('/__mock/workspaces');
    await call('/__mock/coverage');
    await call('/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=dev%40example.com&password=password' });
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  const everything = `${cli.output()}\n${seen.join('\n')}`;
  for (const v of values) {
    expect(everything).not.toContain(v);
    expect(everything).not.toContain(JSON.stringify(v).slice(1, -1));
  }
  expect(everything).not.toContain('owner-token-9f8e7d');
  expect(everything).not.toContain('other-token-1a2b3c');
  expect(seen.find((s) => s.startsWith('/secrets/S0?namespace=llm_provider 404'))).toBeDefined();
});
