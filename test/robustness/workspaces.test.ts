/**
 * New tokens cannot grow the mock without bound (issue 14, item 5): a principal who has only
 * read costs no file and next to no memory (a copy-on-write view of the scenario), and written
 * workspaces past the in-memory bound are let go and loaded again, losing nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bearer, rawRequest, testServer } from '../helpers.js';
import { startCli, type RunningCli } from '../cli-process.js';
import type { MockServer } from '../../src/server.js';

const linux = process.platform === 'linux';

/** A full collection, so that workspaces let go are freed and must be loaded again (V8's documented gc handle). */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

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

  const files = () => readdirSync(join(dir, 'data', 'workspaces'));
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
  let mock: MockServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await mock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    mock = undefined;
    dir = undefined;
  });

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
    mock = await testServer({ dataDir: dir, scenario: 'expiring' });
    const path = '/sessions/sess_demo/files?limit=100';
    const before = (await rawRequest(mock.url, { method: 'GET', path, headers: bearer('reader') })).text;
    await mock.close();
    // A later start: the scenario's timestamps must not move to it.
    await new Promise((r) => setTimeout(r, 1100));
    mock = await testServer({ dataDir: dir, scenario: 'expiring' });
    const after = (await rawRequest(mock.url, { method: 'GET', path, headers: bearer('reader') })).text;
    expect(after).toBe(before);
  });
});
