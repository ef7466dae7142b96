/**
 * startMockServer's lifecycle as test code meets it: reset() between tests restores everything a
 * test can change (the clock included), and close() returns once the last answer is out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Clock } from '../src/primitives/clock.js';
import type { MockServer } from '../src/server.js';
import { bearer, multipart, testServer } from './helpers.js';

const EIGHT_DAYS = 8 * 24 * 3600 * 1000;
const EIGHT_DAYS_ISO = 'P8D';
const A = bearer('sk_test_demo');
const download = (mock: MockServer) => fetch(`${mock.url}/sessions/sess_demo/files/file_demo_notes`, { headers: A });

describe('the pattern of docs/testing.md: beforeEach(() => mock.reset()), one test advancing the clock 8 days', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer();
  });
  beforeEach(() => mock.reset());
  afterAll(() => mock.close());

  test('expired files answer 410', async () => {
    await mock.clock.advance(EIGHT_DAYS_ISO);
    expect((await download(mock)).status).toBe(410);
  });

  test('the next test sees the scenario’s files fresh again: 200, not 410', async () => {
    expect((await download(mock)).status).toBe(200);
    expect((await mock.clock.now()).offset_seconds).toBeCloseTo(0, 0);
  });
});

test('POST /__mock/reset without principal puts the clock back too', async () => {
  const mock = await testServer();
  try {
    const advanced = await fetch(`${mock.url}/__mock/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"advance":"P8D"}' });
    expect(((await advanced.json()) as any).offset_seconds).toBeGreaterThan(7 * 24 * 3600);
    expect((await download(mock)).status).toBe(410);
    expect((await fetch(`${mock.url}/__mock/reset`, { method: 'POST' })).status).toBe(204);
    expect(await (await fetch(`${mock.url}/__mock/clock`)).json()).toMatchObject({ frozen: false, offset_seconds: 0 });
    expect((await download(mock)).status).toBe(200);
  } finally {
    await mock.close();
  }
});

test('a reset of one principal leaves the clock alone', async () => {
  const mock = await testServer();
  try {
    await mock.clock.advance(EIGHT_DAYS_ISO);
    await mock.reset('key:000000000000');
    expect((await download(mock)).status).toBe(410);
  } finally {
    await mock.close();
  }
});

test('a clock passed to startMockServer stays that object and goes back to its state at start', async () => {
  const clock = new Clock();
  const start = Date.parse('2030-01-01T00:00:00Z');
  clock.set(start);
  const mock = await testServer({ clock });
  try {
    await mock.clock.advance(EIGHT_DAYS_ISO);
    expect(clock.now()).toBe(start + EIGHT_DAYS);
    await mock.reset();
    expect(mock.app.mock.clock).toBe(clock);
    expect(clock.frozen).toBe(true);
    expect(clock.now()).toBe(start);
    expect((await download(mock)).status).toBe(200);
  } finally {
    await mock.close();
  }
});

/** The response of a GET, paused before its body is read, on a keep-alive agent. */
function pausedDownload(url: string, agent: Agent): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers: A }, (res) => {
      res.pause();
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

test('close() resolves once a keep-alive download that was streaming when it began has finished', async () => {
  // Node closes an idle keep-alive connection after keepAliveTimeout, and close() cuts every
  // connection after shutdownGraceMs; with both an hour, only close() noticing the connection
  // go idle ends it, so before the fix this test ran into jest's timeout.
  const mock = await testServer({ keepAliveTimeoutMs: 3600_000, shutdownGraceMs: 3600_000 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const big = Buffer.alloc(16 * 1024 * 1024, 7);
    const upload = await fetch(`${mock.url}/sessions/sess_demo/files`, {
      method: 'POST',
      headers: { ...A, 'Content-Type': 'multipart/form-data; boundary=b' },
      body: multipart('b', [{ name: 'file', filename: 'big.bin', type: 'application/octet-stream', content: big }]),
    });
    expect(upload.status).toBe(201);
    const { id } = (await upload.json()) as { id: string };

    const res = await pausedDownload(`${mock.url}/sessions/sess_demo/files/${id}`, agent);
    expect(res.headers.connection).toBe('keep-alive');
    const closed = mock.close();
    let bytes = 0;
    res.on('data', (c: Buffer) => (bytes += c.length));
    const ended = new Promise((r) => res.on('end', r));
    res.resume();
    await ended;
    expect(bytes).toBe(big.length);
    await closed;
  } finally {
    agent.destroy();
    await mock.close();
  }
});
