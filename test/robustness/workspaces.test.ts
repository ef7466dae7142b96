/**
 * New tokens cannot grow the mock without bound (issue 14, item 5): a principal who has only
 * read costs no file and next to no memory (a copy-on-write view of the scenario), and written
 * workspaces past the in-memory bound are let go and loaded again, losing nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bearer, multipart, rawRequest, testServer } from '../helpers.js';
import { startCli, type RunningCli } from '../cli-process.js';
import type { MockServer } from '../../src/server.js';
import { workspacesDir } from '../data-layout.js';
import { Clock } from '../../src/primitives/clock.js';

const linux = process.platform === 'linux';

/** A full collection, so that workspaces let go are freed and must be loaded again (V8's documented gc handle). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

// The in-process mock of the test under way and its data directory: closed and removed after it.
let mock: MockServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  mock = undefined;
  dir = undefined;
});

/** A mock clock stopped at `ms`. */
function frozenAt(ms: number): Clock {
  const clock = new Clock();
  clock.set(ms);
  return clock;
}

/** Stops the mock and starts another on the same data directory. */
async function restart(options: Parameters<typeof testServer>[0]): Promise<MockServer> {
  await mock!.close();
  return (mock = await testServer({ dataDir: dir, ...options }));
}

describe('on the running CLI with --scenario paging', () => {
  let cli: RunningCli;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-ws-'));
    cli = await startCli(['--port', '0', '--scenario', 'paging', '--data-dir', 'data', '--log-level', 'silent'], { cwd: dir });
  });
  afterAll(async () => {
    cli.child.kill('SIGTERM');
    await cli.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const files = () => readdirSync(workspacesDir(join(dir, 'data')));
  const list = async (token: string) => {
    const res = await rawRequest(cli.url, { method: 'GET', path: '/sessions/sess_paging/files?limit=5', headers: bearer(token) });
    return { status: res.status, json: JSON.parse(res.text) };
  };

  (linux ? test : test.skip)('300 new tokens that only read: each sees the scenario, no file is written, memory hardly moves', async () => {
    const first = await list('reader-warm');
    expect(first.status).toBe(200);
    expect(first.json.total).toBeGreaterThan(100);
    for (let i = 0; i < 20; i++) await list(`reader-warm-${i}`);
    const rssBefore = cli.rss();
    for (let i = 0; i < 300; i++) {
      const page = await list(`reader-${i}`);
      expect(page.json).toEqual(first.json);
    }
    const grown = cli.rss() - rssBefore;
    expect(files()).toEqual([]);
    // Before views, each such token cost ~440 KiB here (130 MiB for 300).
    expect(grown).toBeLessThan(40 * 1024 * 1024);
  }, 120_000);

  test('the first write gives the principal a file of its own; the others still read the scenario', async () => {
    const put = await rawRequest(cli.url, { method: 'POST', path: '/secrets', headers: { ...bearer('writer'), 'Content-Type': 'application/json' }, body: '{"name":"MINE","value":"mine-value"}' });
    expect(put.status).toBe(201);
    expect(files()).toHaveLength(1);
    const mine = await rawRequest(cli.url, { method: 'GET', path: '/secrets/MINE?namespace=function_env', headers: bearer('writer') });
    const theirs = await rawRequest(cli.url, { method: 'GET', path: '/secrets/MINE?namespace=function_env', headers: bearer('reader-1') });
    expect([mine.status, theirs.status]).toEqual([200, 404]);
  });
});

describe('past the in-memory bound', () => {
  const put = (m: MockServer, token: string, name: string) =>
    rawRequest(m.url, { method: 'POST', path: '/secrets', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${token}` }) });
  const get = async (m: MockServer, token: string, name: string) =>
    JSON.parse((await rawRequest(m.url, { method: 'GET', path: `/secrets/${name}?namespace=function_env`, headers: bearer(token) })).text);

  test.each([
    ['a data directory (let go, then loaded from the file)', true],
    ['--in-memory (written workspaces stay; views come and go)', false],
  ])('%s: 30 principals written with room for 3, every write still there, twice', async (_name, onDisk) => {
    dir = onDisk ? mkdtempSync(join(tmpdir(), 'cbm-ws-lru-')) : undefined;
    mock = await testServer({ dataDir: dir, workspacesInMemory: 3 });
    for (let i = 0; i < 30; i++) expect((await put(mock, `t${i}`, 'FIRST')).status).toBe(201);
    collectGarbage();
    for (let i = 0; i < 30; i++) expect((await put(mock, `t${i}`, 'SECOND')).status).toBe(201);
    collectGarbage();
    for (let i = 0; i < 30; i++) {
      expect(await get(mock, `t${i}`, 'FIRST')).toEqual({ value: `value-of-t${i}` });
      expect(await get(mock, `t${i}`, 'SECOND')).toEqual({ value: `value-of-t${i}` });
    }
    const listed = JSON.parse((await rawRequest(mock.url, { method: 'GET', path: '/__mock/workspaces' })).text);
    expect(listed.items.filter((w: { secrets: number }) => w.secrets >= 2)).toHaveLength(30);
  });

  test('a workspace never written reads the same after a restart (the scenario keeps its load time)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-ws-restart-'));
    const startedAt = Date.now();
    mock = await testServer({ dataDir: dir, scenario: 'expiring', clock: frozenAt(startedAt) });
    const path = '/sessions/sess_demo/files?limit=100';
    const before = (await rawRequest(mock.url, { method: 'GET', path, headers: bearer('reader') })).text;
    await mock.close();
    // A start a minute later (the scenario's first file expires 8 minutes after its load): its timestamps must not move to it.
    mock = await testServer({ dataDir: dir, scenario: 'expiring', clock: frozenAt(startedAt + 60_000) });
    const after = (await rawRequest(mock.url, { method: 'GET', path, headers: bearer('reader') })).text;
    expect(after).toBe(before);
  });
});

describe('letting go never loses what is under way', () => {
  const json = (token: string, body: unknown) => ({ method: 'POST', path: '/secrets', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  test.each([
    ['a data directory', true],
    ['--in-memory', false],
  ])('%s: an upload under way while its workspace is pushed out of memory is listed and downloads whole', async (_name, onDisk) => {
    dir = onDisk ? mkdtempSync(join(tmpdir(), 'cbm-ws-busy-')) : undefined;
    mock = await testServer({ dataDir: dir, workspacesInMemory: 1 });
    expect((await rawRequest(mock.url, json('uploader', { name: 'BEFORE', value: 'x' }))).status).toBe(201);
    const boundary = 'cbmboundary';
    const content = Buffer.alloc(256 * 1024, 'u');
    const body = multipart(boundary, [{ name: 'file', filename: 'busy.bin', type: 'application/octet-stream', content }]);
    const url = new URL(mock.url);
    let answered!: (v: { status: number; text: string }) => void;
    const answer = new Promise<{ status: number; text: string }>((r) => (answered = r));
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: 'POST', path: '/sessions/sess_demo/files', headers: { ...bearer('uploader'), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => answered({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    // Half the body: the request is in the pipeline, its workspace in hand or about to be.
    await new Promise<void>((r) => req.write(body.subarray(0, body.length / 2), () => r()));
    for (let i = 0; i < 10; i++) expect((await rawRequest(mock.url, json(`other-${i}`, { name: 'N', value: 'v' }))).status).toBe(201);
    collectGarbage();
    // The uploader's workspace is asked for again while the upload still holds it.
    expect((await rawRequest(mock.url, json('uploader', { name: 'DURING', value: 'y' }))).status).toBe(201);
    req.end(body.subarray(body.length / 2));
    const done = await answer;
    expect(done.status).toBe(201);
    const fileId = JSON.parse(done.text).id as string;
    for (let i = 0; i < 10; i++) await rawRequest(mock.url, json(`after-${i}`, { name: 'N', value: 'v' }));
    collectGarbage();
    const listed = JSON.parse((await rawRequest(mock.url, { method: 'GET', path: '/sessions/sess_demo/files?limit=100', headers: bearer('uploader') })).text);
    expect(listed.files.map((f: { id: string }) => f.id)).toContain(fileId);
    const names = JSON.parse((await rawRequest(mock.url, { method: 'GET', path: '/secrets?namespace=function_env', headers: bearer('uploader') })).text);
    expect(names.items.map((s: { name: string }) => s.name).sort()).toEqual(expect.arrayContaining(['BEFORE', 'DURING']));
    const got = await rawRequest(mock.url, { method: 'GET', path: `/sessions/sess_demo/files/${fileId}`, headers: bearer('uploader') });
    expect([got.status, got.body.equals(content)]).toEqual([200, true]);
  });

  test('writes racing other principals past a bound of 1 (a slow save on paging): every acknowledged write is kept, also after a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-ws-race-'));
    mock = await testServer({ dataDir: dir, scenario: 'paging', workspacesInMemory: 1 });
    const acknowledged: string[] = [];
    for (let i = 0; i < 15; i++) {
      // The second write to A arrives while the first one's save of 5,000 records is under way and C pushes A out.
      const [a1, , a2] = await Promise.all([
        rawRequest(mock.url, json('A', { name: `R${i}_ONE`, value: 'v' })),
        rawRequest(mock.url, json(`C${i}`, { name: 'N', value: 'v' })),
        rawRequest(mock.url, json('A', { name: `R${i}_TWO`, value: 'v' })),
      ]);
      expect([a1.status, a2.status]).toEqual([201, 201]);
      acknowledged.push(`R${i}_ONE`, `R${i}_TWO`);
      if (i % 5 === 4) collectGarbage();
    }
    const names = async () => JSON.parse((await rawRequest(mock!.url, { method: 'GET', path: '/secrets', headers: bearer('A') })).text).items.map((s: { name: string }) => s.name);
    expect(await names()).toEqual(expect.arrayContaining(acknowledged));
    await restart({ scenario: 'paging', workspacesInMemory: 1 });
    expect(await names()).toEqual(expect.arrayContaining(acknowledged));
  }, 120_000);

  test('a reset of one principal while its view is pushed out: it reads the scenario again, others keep theirs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-ws-reset-'));
    mock = await testServer({ dataDir: dir, workspacesInMemory: 1 });
    for (const t of ['a', 'b', 'c']) expect((await rawRequest(mock.url, json(t, { name: 'MINE', value: t }))).status).toBe(201);
    collectGarbage();
    const principal = JSON.parse((await rawRequest(mock.url, { method: 'POST', path: '/__mock/principal', headers: { 'Content-Type': 'application/json' }, body: '{"token":"a"}' })).text).principal;
    expect((await rawRequest(mock.url, { method: 'POST', path: `/__mock/reset?principal=${encodeURIComponent(principal)}` })).status).toBe(204);
    const read = (t: string) => rawRequest(mock!.url, { method: 'GET', path: '/secrets/MINE?namespace=function_env', headers: bearer(t) });
    expect([(await read('a')).status, (await read('b')).status, (await read('c')).status]).toEqual([404, 200, 200]);
    await restart({ workspacesInMemory: 1 });
    expect([(await read('a')).status, (await read('b')).status, (await read('c')).status]).toEqual([404, 200, 200]);
  });
});
