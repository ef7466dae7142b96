/**
 * Slow and numerous clients cannot exhaust the running CLI (issue 14, item 4): a body that
 * stops arriving is answered 408 after the idle timeout (while one that keeps arriving, however
 * slowly, is not cut off), and connections over the cap are answered 503 with Retry-After —
 * the cap derived from the process's descriptor limit unless given.
 */
import { afterAll, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type CliOptions, type RunningCli } from '../cli-process.js';
import { rawRequest } from '../helpers.js';

// Each case has a CLI and connections of its own; most of their time is waiting for a timeout or
// a slow body, so they run at once.
const started: { cli: RunningCli; dir: string }[] = [];
const sockets: Socket[] = [];
afterAll(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const { cli, dir } of started.splice(0)) {
    cli.child.kill('SIGTERM');
    await cli.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

async function run(args: string[], env?: Record<string, string>, more: Partial<CliOptions> = {}): Promise<RunningCli> {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-slow-'));
  const cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'silent', ...args], { cwd: dir, env, ...more });
  started.push({ cli, dir });
  return cli;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw connection; resolves once connected. Everything it receives is collected in `text()`. */
function open(base: string): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(url.port), url.hostname);
    sockets.push(socket);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (d) => (received += d));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, text: () => received, closed }));
    socket.once('error', reject);
  });
}

const dripHead = (length: number) =>
  `PATCH /mailboxes/mbx_gmail HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer slow\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`;

test.concurrent('a body that stops arriving is answered 408 after the idle timeout, and the connection closed', async () => {
  const cli = await run(['--body-idle-timeout', '1s']);
  const c = await open(cli.url);
  c.socket.write(dripHead(1000));
  await c.closed;
  expect(c.text()).toMatch(/^HTTP\/1\.1 408 /);
  expect(c.text()).toContain('{"detail":"Request body timed out"}');
  expect((await fetch(`${cli.url}/health`)).status).toBe(200);
});

test.concurrent('a body that has all arrived but waits to be read (a fault delay longer than the idle timeout) is not cut off', async () => {
  const cli = await run(['--body-idle-timeout', '1s']);
  const fault = await rawRequest(cli.url, { method: 'POST', path: '/__mock/faults', headers: { 'Content-Type': 'application/json' }, body: '{"operationId":"storeSecret","status":503,"delay_ms":2500}' });
  expect(fault.status).toBe(201);
  const res = await rawRequest(cli.url, { method: 'POST', path: '/secrets', headers: { Authorization: 'Bearer slow', 'Content-Type': 'application/json' }, body: '{"name":"N","value":"value-value"}' });
  expect(res.status).toBe(503);
});

test.concurrent('an upload that keeps arriving slowly, for longer than the idle timeout in all, is stored', async () => {
  const cli = await run(['--body-idle-timeout', '2s']);
  const c = await open(cli.url);
  const part = Buffer.alloc(4096, 'a');
  const head = `--B\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  const tail = '\r\n--B--\r\n';
  const chunks = 14;
  const length = head.length + chunks * part.length + tail.length;
  c.socket.write(`POST /sessions/sess_demo/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer slow\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${head}`);
  // 14 chunks 250 ms apart: 3.5 s in all, never 2 s without a byte.
  for (let i = 0; i < chunks; i++) {
    await sleep(250);
    c.socket.write(part);
  }
  c.socket.write(tail);
  await c.closed;
  expect(c.text()).toMatch(/^HTTP\/1\.1 201 /);
  expect(c.text()).toContain(`"size":${chunks * part.length}`);
});

test.concurrent('connections over --max-connections get 503 with Retry-After, and the mock answers again once they go', async () => {
  const cli = await run(['--max-connections', '5']);
  const held = [];
  for (let i = 0; i < 5; i++) {
    const c = await open(cli.url);
    c.socket.write(dripHead(1000));
    held.push(c);
  }
  const over = await rawRequest(cli.url, { method: 'GET', path: '/health', headers: { Connection: 'close' } });
  expect(over.status).toBe(503);
  expect(over.headers['retry-after']).toBe('1');
  expect(JSON.parse(over.text)).toEqual({ detail: 'Too many connections' });
  // A request with a body over the cap gets its 503 too, not a reset connection.
  const post = await rawRequest(cli.url, { method: 'POST', path: '/secrets', headers: { Authorization: 'Bearer slow', 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'N', value: 'v'.repeat(200_000) }) });
  expect([post.status, post.headers['retry-after']]).toEqual([503, '1']);
  for (const c of held) {
    c.socket.destroy();
    await c.closed;
  }
  // The server hears of the closes asynchronously: retry while it still answers 503 — at most
  // 100 times, 50 ms apart (it hears of them within milliseconds), then the answers are named.
  const answers: number[] = [];
  for (let i = 0; i < 100 && answers.at(-1) !== 200; i++) {
    if (i > 0) await sleep(50);
    answers.push((await rawRequest(cli.url, { method: 'GET', path: '/health', headers: { Connection: 'close' } })).status);
  }
  expect([answers.at(-1), answers.filter((s) => s === 503).length, answers.length]).toEqual([200, answers.length - 1, answers.length]);
});

const linux = process.platform === 'linux';
(linux ? test.concurrent : test.skip)('by default the cap follows the descriptor limit: with ulimit -n 200, the 80th connection gets 503 (not a dropped socket)', async () => {
  const { url } = await run([], undefined, { descriptorLimit: 200 });
  for (let i = 0; i < 79; i++) (await open(url)).socket.write(dripHead(1000));
  const over = await rawRequest(url, { method: 'GET', path: '/health', headers: { Connection: 'close' } });
  expect(over.status).toBe(503);
  expect(over.headers['retry-after']).toBe('1');
}, 60_000);
