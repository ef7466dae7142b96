/**
 * One surface across the handles (issue 31): a probability fault replays its sequence after a
 * full reset or a scenario switch (the faults' generator restarts from the run's seed, while
 * fault ids keep growing); durations in the Node options are milliseconds (`…Ms`), the former
 * `…Seconds` names still work behind one deprecation line; the journal's cursor is an entry's id.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { MockControlError, type MockServer } from '../src/index.js';
import { bearer, multipart, ROOT, testServer } from './helpers.js';

const A = bearer('sk_test_demo');
const CALLS = 24;

/** CALLS listings of secrets: F where the fault fired (503), . where the service answered. */
async function firings(mock: MockServer): Promise<string> {
  let seen = '';
  for (let i = 0; i < CALLS; i++) {
    const res = await fetch(`${mock.url}/secrets`, { headers: A });
    await res.arrayBuffer();
    seen += res.status === 503 ? 'F' : res.status === 200 ? '.' : `(${res.status})`;
  }
  return seen;
}

const halfTheTime = { operationId: 'listSecrets', status: 503, probability: 0.5 } as const;

async function switchScenario(mock: MockServer, body: object): Promise<void> {
  const res = await fetch(`${mock.url}/__mock/scenario`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect([res.status, await res.text()]).toEqual([200, expect.any(String)]);
}

describe('a probability fault, run after run', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer({ seed: 1 });
  });
  afterAll(() => mock.close());

  test('fires the same sequence after a full reset as before it', async () => {
    await mock.faults.add(halfTheTime);
    const first = await firings(mock);
    // Both outcomes occur, so an equal sequence says the generator restarted, not that it is constant.
    expect(first).toMatch(/F/);
    expect(first).toMatch(/\./);
    await mock.reset();
    await mock.faults.add(halfTheTime);
    expect(await firings(mock)).toBe(first);
    await mock.reset();
    await mock.faults.add(halfTheTime);
    expect(await firings(mock)).toBe(first);
  });

  test("a scenario switch restarts it from the switch's seed: the sequence a mock started with that seed fires", async () => {
    await mock.reset();
    await mock.faults.add(halfTheTime);
    const seedOne = await firings(mock);
    await switchScenario(mock, { name: 'default' });
    await mock.faults.add(halfTheTime);
    expect(await firings(mock)).toBe(seedOne);

    const other = await testServer({ seed: 2 });
    try {
      await other.faults.add(halfTheTime);
      const seedTwo = await firings(other);
      expect(seedTwo).not.toBe(seedOne);
      await switchScenario(mock, { name: 'default', seed: 2 });
      await mock.faults.add(halfTheTime);
      expect(await firings(mock)).toBe(seedTwo);
    } finally {
      await other.close();
      await switchScenario(mock, { name: 'default', seed: 1 });
    }
  });

  test('fault ids keep growing across a reset: removing a stale id is a 404 and leaves the new fault', async () => {
    const stale = await mock.faults.add({ operationId: 'listSecrets', status: 500 });
    await mock.reset();
    const fresh = await mock.faults.add({ operationId: 'listSecrets', status: 500 });
    expect(fresh.id).not.toBe(stale.id);
    await expect(mock.faults.remove(stale.id)).rejects.toMatchObject({ status: 404 });
    await expect(mock.faults.remove(stale.id)).rejects.toBeInstanceOf(MockControlError);
    expect((await mock.faults.list()).map((f) => f.id)).toEqual([fresh.id]);
    await mock.reset();
  });

  test("requests({ after }) takes an entry's id and lists only what came after it", async () => {
    await mock.reset();
    for (let i = 0; i < 3; i++) await (await fetch(`${mock.url}/secrets`, { headers: A })).arrayBuffer();
    const [newest, middle, oldest] = await mock.requests();
    expect((await mock.requests({ after: oldest.id })).map((e) => e.id)).toEqual([newest.id, middle.id]);
    expect(await mock.requests({ after: newest.id })).toEqual([]);
  });
});

/** Uploads a file to sess_demo on a frozen clock and returns the status of its download after each move (seconds). */
async function downloadsAfter(mock: MockServer, moves: number[]): Promise<number[]> {
  await mock.clock.set('2030-01-01T00:00:00Z'); // frozen: only the moves below pass time
  const body = multipart('b', [{ name: 'file', filename: 'a.txt', type: 'text/plain', content: 'hello' }]);
  const up = await fetch(`${mock.url}/sessions/sess_demo/files`, { method: 'POST', headers: { ...A, 'Content-Type': 'multipart/form-data; boundary=b' }, body });
  const { id } = (await up.json()) as { id: string };
  const statuses = [];
  for (const by of moves) {
    await mock.clock.advance(by);
    const res = await fetch(`${mock.url}/sessions/sess_demo/files/${id}`, { headers: A });
    await res.arrayBuffer();
    statuses.push(res.status);
  }
  return statuses;
}

describe('durations in the Node options are milliseconds', () => {
  test.each([
    ['fileTtlMs: 60_000', { fileTtlMs: 60_000 }],
    ['the deprecated fileTtlSeconds: 60, still read', { fileTtlSeconds: 60 }],
  ])('%s: an upload downloads for 60 s of the clock, then 410', async (_name, options) => {
    const mock = await testServer(options);
    try {
      expect(await downloadsAfter(mock, [59, 2])).toEqual([200, 410]);
    } finally {
      await mock.close();
    }
  });

  test('tokenTtlMs: a token from POST /token is refused once its lifetime has passed on the clock', async () => {
    const mock = await testServer({ auth: 'strict', tokenTtlMs: 60_000 });
    try {
      await mock.clock.set('2030-01-01T00:00:00Z'); // frozen: only the moves below pass time
      const issued = await fetch(`${mock.url}/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'username=dev%40example.com&password=password' });
      const { access_token: token } = (await issued.json()) as { access_token: string };
      const listing = async () => (await fetch(`${mock.url}/secrets`, { headers: bearer(token) })).status;
      await mock.clock.advance(59);
      expect(await listing()).toBe(200);
      await mock.clock.advance(2);
      expect(await listing()).toBe(401);
    } finally {
      await mock.close();
    }
  });

  test('the former …Seconds names print one deprecation line, once, however many apps use them', () => {
    const script = `
      const { createApp } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'index.js'))});
      for (const options of [{ fileTtlSeconds: 60 }, { tokenTtlSeconds: 60 }, { fileTtlSeconds: 1, tokenTtlSeconds: 1 }, { fileTtlMs: 1000 }]) {
        const app = await createApp({ ...options, inMemory: true, logLevel: 'silent' });
        await app.mock.close();
      }`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(run.status).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.trim() !== '' && !l.includes('--trace-deprecation'));
    expect(lines).toEqual([
      expect.stringMatching(/DeprecationWarning: cloud-browser-mock: the options fileTtlSeconds, tokenTtlSeconds and upstreamTimeoutSeconds are deprecated: use fileTtlMs, tokenTtlMs and upstreamTimeoutMs \(milliseconds\)$/),
    ]);
  });
});
