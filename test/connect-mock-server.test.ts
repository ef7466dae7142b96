/**
 * connectMockServer() as a sidecar's test suite meets it: it waits for /health before resolving
 * (a mock still starting is not an error), gives up naming the URL, and reads the drift report
 * of issue 17's --upstream proxy in the shape that issue documents.
 */
import { expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMockServer } from '../src/index.js';
import { startCli } from './cli-process.js';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

test('connectMockServer resolves only once /health answers 200: a mock still starting (503) is waited for', async () => {
  let ready = false;
  let healthChecks = 0;
  let secondCheck!: () => void;
  const twoChecks = new Promise<void>((r) => (secondCheck = r));
  const server: Server = createServer((req, res) => {
    if (req.url === '/health' && ++healthChecks === 2) secondCheck();
    res.statusCode = ready ? 200 : 503;
    res.end(ready ? '{"status":"ok"}' : '{"detail":"starting"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    let settled = false;
    const connecting = connectMockServer(`http://127.0.0.1:${port}/`).finally(() => (settled = true));
    await twoChecks;
    expect(settled).toBe(false);
    ready = true;
    expect((await connecting).url).toBe(`http://127.0.0.1:${port}`);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('connectMockServer against the CLI, connected before it listens: resolves once it is up', async () => {
  const port = await freePort();
  const connecting = connectMockServer(`http://127.0.0.1:${port}`);
  const cwd = mkdtempSync(join(tmpdir(), 'cbm-connect-'));
  const cli = await startCli(['--port', String(port), '--in-memory', '--log-level', 'warn'], { cwd });
  try {
    const mock = await connecting;
    expect((await mock.clock.now()).frozen).toBe(false);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('connectMockServer gives up after timeoutMs with one line naming the URL', async () => {
  const port = await freePort();
  await expect(connectMockServer(`http://127.0.0.1:${port}`, { timeoutMs: 200 })).rejects.toThrow(
    new RegExp(`^cloud-browser-mock at http://127\\.0\\.0\\.1:${port}: /health did not answer 200 \\(.+\\)$`),
  );
});

test('drift() reads GET /__mock/drift (issue 17: {items: [{source, operationId, method, path, status, problems, first_seen, last_seen, count}]}) with the admin token', async () => {
  const record = {
    source: 'service' as const,
    operationId: 'listSecrets',
    method: 'GET',
    path: '/secrets',
    status: 200,
    problems: [{ where: 'body.items[0]', what: 'missing required field', expected: 'created_at', got: 'absent' }],
    first_seen: '2030-01-01T00:00:00Z',
    last_seen: '2030-01-01T00:05:00Z',
    count: 3,
  };
  const seen: string[] = [];
  // A stand-in for a mock running with --upstream: /health and the drift report only.
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/health') return res.end('{"status":"ok"}');
    if (req.url === '/__mock/drift') return res.end(JSON.stringify({ items: [record] }));
    res.statusCode = 404;
    res.end('{"detail":"Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const mock = await connectMockServer(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { adminToken: 'adm' });
    expect(await mock.drift()).toEqual([record]);
    expect(seen.filter((s) => s.includes('/__mock'))).toEqual(['GET /__mock/drift Bearer adm']);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
