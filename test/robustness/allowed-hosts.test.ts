/**
 * The Host allow-list and the cross-site refusal over plain HTTP (issue 16, item 1): what a
 * rebinding page or a cross-site page would send, written out by hand, so the guarantees are
 * checked even where no browser is installed (browser.test.ts drives a real one).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockServer } from '../../src/server.js';
import { CLI } from '../cli-process.js';
import { rawRequest, testServer } from '../helpers.js';

const AUTH = { Authorization: 'Bearer sk_test_demo' };

describe('a request whose Host is a foreign name (DNS rebinding)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer();
  });
  afterAll(() => mock.close());

  test.each([
    ['GET', '/__mock/workspaces/key%3Aanything', {}],
    ['GET', '/__mock/workspaces', {}],
    ['POST', '/__mock/reset', {}],
    ['GET', '/secrets', AUTH],
    ['GET', '/openapi.json', {}],
    ['GET', '/docs', {}],
    ['GET', '/nowhere', {}],
  ])('%s %s answers 403 naming the host and --allowed-hosts', async (method, path, headers) => {
    const res = await rawRequest(mock.url, { method, path, headers: { ...headers, Host: `attacker.example:${mock.port}` } });
    expect([res.status, res.headers['content-type']]).toEqual([403, 'application/json']);
    expect(JSON.parse(res.text)).toEqual({ detail: `Host "attacker.example:${mock.port}" is not allowed: the mock answers localhost, loopback addresses and its own address; start it with --allowed-hosts attacker.example to answer this name` });
  });

  test('/health answers any Host (container probes)', async () => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/health', headers: { Host: 'attacker.example' } });
    expect(res.status).toBe(200);
  });

  test.each(['localhost', 'localhost:8000', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]', 'LOCALHOST.'])('Host %s is answered', async (host) => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/secrets', headers: { ...AUTH, Host: host } });
    expect(res.status).toBe(200);
  });
});

describe('--allowed-hosts', () => {
  test.each([
    [['mock.internal'], 'mock.internal:8000', 200],
    [['mock.internal'], 'other.internal', 403],
    [['.example.com'], 'api.example.com', 200],
    [['.example.com'], 'example.com', 200],
    [['.example.com'], 'example.com.evil.test', 403],
    [['*'], 'anything.at.all', 200],
  ])('%j: Host %s → %d', async (allowedHosts, host, status) => {
    const mock = await testServer({ allowedHosts });
    try {
      const res = await rawRequest(mock.url, { method: 'GET', path: '/__mock/workspaces', headers: { Host: host } });
      expect(res.status).toBe(status);
    } finally {
      await mock.close();
    }
  });

  test('a bad value stops the CLI with one line naming it (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cbm-hosts-'));
    try {
      const r = spawnSync(process.execPath, [CLI, '--allowed-hosts', 'http://x/', '--in-memory'], { cwd: dir, encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--allowed-hosts must be * or comma-separated host names');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cross-site requests to /__mock, as a browser marks them', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer({ cors: ['*'] });
  });
  afterAll(() => mock.close());

  test.each([
    ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://evil.test' }, 'Sec-Fetch-Site: cross-site'],
    ['Sec-Fetch-Site: same-site', { 'Sec-Fetch-Site': 'same-site', Origin: 'http://localhost:5173' }, 'Sec-Fetch-Site: same-site'],
    ['a foreign Origin without Sec-Fetch-Site', { Origin: 'http://evil.test' }, 'Origin: http://evil.test'],
    ['Origin: null (a sandboxed frame)', { Origin: 'null' }, 'Origin: null'],
  ])('%s: 403 with {"detail"} and no CORS header, nothing changed', async (_what, headers, reason) => {
    const res = await rawRequest(mock.url, { method: 'POST', path: '/__mock/faults', headers: { ...headers, 'Content-Type': 'text/plain' }, body: '{"operationId":"*","status":503}' });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({ detail: `Cross-site request refused (${reason}): /__mock answers the developer's tools and its own pages, never a page on another site` });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await mock.faults.list()).toEqual([]);
  });

  test('a preflight to /__mock gets no CORS answer even with --cors *', async () => {
    const res = await rawRequest(mock.url, { method: 'OPTIONS', path: '/__mock/faults', headers: { Origin: 'http://evil.test', 'Access-Control-Request-Method': 'POST' } });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test.each([
    ['no browser headers (curl, an SDK, a test)', {}],
    ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
    ['Sec-Fetch-Site: none (typed in the address bar)', { 'Sec-Fetch-Site': 'none' }],
  ])('%s: answered', async (_what, headers) => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/__mock/faults', headers });
    expect(res.status).toBe(200);
  });

  test('an Origin equal to the mock’s own is answered', async () => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/__mock/faults', headers: { Origin: mock.url } });
    expect(res.status).toBe(200);
  });
});
