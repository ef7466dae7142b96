/**
 * The request log: JSON lines when piped, pino-pretty lines in a terminal, one line per service
 * request either way, and never a credential, a secret value or an upload's bytes.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { prettyDestination } from '../src/cli/logging.js';
import { ROOT, multipart, testApp } from './helpers.js';

const CLI = join(ROOT, 'dist', 'bin', 'cli.js');
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) process.kill(-c.pid!, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Starts the CLI with stdout a pipe (`json`) or a terminal (`tty`: under util-linux `script`,
 * which gives it a pseudo-terminal), in its own process group; resolves once it prints its URL.
 */
function startCli(mode: 'json' | 'tty', args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-log-'));
  dirs.push(dir);
  const argv = [process.execPath, CLI, ...args];
  const child =
    mode === 'json'
      ? spawn(argv[0], argv.slice(1), { cwd: dir, detached: true, env: { PATH: process.env.PATH } })
      : spawn('script', ['-qfec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: dir, detached: true, env: { PATH: process.env.PATH, TERM: 'xterm' } });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise<{ url: string; output: () => string; stop: () => Promise<string> }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        url: m[1],
        output: () => out,
        stop: async () => {
          process.kill(-child.pid!, 'SIGTERM');
          await exited;
          return out;
        },
      });
    });
  });
}

/** Requests that carry every kind of sensitive value; returns the values that must not be logged. */
async function exerciseSensitiveOperations(url: string) {
  const token = (await (await fetch(`${url}/token`, { method: 'POST', body: new URLSearchParams({ username: 'dev@example.com', password: 'password' }) })).json()).access_token as string;
  expect(token).toMatch(/^ey/);
  const auth = { Authorization: `Bearer ${token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const stored = 'sv-stored-3f9a1c7e5b';
  const rejected = 'sv-rejected-8d2b6e4a0c';
  const uploaded = 'upload-bytes-5e7c9a1b3d';

  const store = await fetch(`${url}/secrets`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'LOG_TEST', value: stored }) });
  expect(store.status).toBe(201);
  const read = await fetch(`${url}/secrets/LOG_TEST?namespace=function_env`, { headers: auth });
  expect(await read.json()).toEqual({ value: stored });
  // A 422 echoes the input in its body; the log must not.
  const bad = await fetch(`${url}/secrets`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'BAD', value: rejected, namespace: 'nope' }) });
  expect(bad.status).toBe(422);
  const up = await fetch(`${url}/sessions/sess_demo/files`, {
    method: 'POST',
    headers: { Authorization: 'Bearer sk_test_demo', 'Content-Type': 'multipart/form-data; boundary=LogBoundary' },
    body: multipart('LogBoundary', [{ name: 'file', filename: 'log.txt', type: 'text/plain', content: uploaded }]),
  });
  expect(up.status).toBe(201);
  const down = await fetch(`${url}/sessions/sess_demo/files/${(await up.json()).id}`, { headers: { Authorization: 'Bearer sk_test_demo' } });
  expect(await down.text()).toBe(uploaded);
  return { requests: 6, needles: [token, token.split('.')[2], stored, rejected, uploaded, 'sk_test_demo', 'Bearer', 'password=password'] };
}

describe.each(['json', 'tty'] as const)('the CLI’s log with stdout a %s', (mode) => {
  test('at trace level it holds one line per service request and no token, secret value or upload byte', async () => {
    const cli = await startCli(mode, ['--port', '0', '--in-memory', '--log-level', 'trace']);
    const { requests, needles } = await exerciseSensitiveOperations(cli.url);
    // A line is written when its response has finished, which can be a moment after the client
    // read it; wait for all of them (stopping `script` at once would drop what it has not copied).
    const requestLine = mode === 'json' ? /^\{.*"operationId"/gm : / → \d{3} in /g;
    for (let i = 0; i < 100 && (cli.output().match(requestLine)?.length ?? 0) < requests; i++) await new Promise((r) => setTimeout(r, 50));
    const out = await cli.stop();

    // The CLI's own status lines (listening, stopping) are not log lines.
    const lines = out.split(/\r?\n/).filter((l) => l.trim() && !/cloud-browser-mock (listening on|stopping)/.test(l));
    if (mode === 'json') {
      const parsed = lines.map((l) => JSON.parse(l));
      expect(parsed.filter((l) => l.msg === 'request').map((l) => l.operationId)).toEqual(['createToken', 'storeSecret', 'getSecret', 'storeSecret', 'uploadSessionFile', 'downloadSessionFile']);
      // Besides them, only the warm-up's debug line may appear (when it ends before the stop).
      for (const l of parsed.filter((p) => p.msg !== 'request')) expect(l.msg).toBe('validators warmed');
    } else {
      expect(lines.some((l) => l.trimStart().startsWith('{'))).toBe(false);
      expect(lines.filter((l) => / → \d{3} in /.test(l))).toHaveLength(requests);
      expect(out).toMatch(/POST \/secrets → 422 in [\d.]+ ms \(storeSecret, user:dev@example\.com\)/);
    }
    for (const needle of needles) expect([needle, out.includes(needle)]).toEqual([needle, false]);
  });
});

test('pretty lines keep the contract’s fields: method, url, status, duration, operationId, principal', async () => {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (d) => (text += d));
  const app = await testApp({ logLevel: 'info', logDestination: await prettyDestination({ colorize: false, destination: sink }) });
  try {
    await request(app).get('/mailboxes?x=1').set('Authorization', 'Bearer sk_test_demo');
    await request(app).put('/mailboxes');
    await request(app).get('/health');
  } finally {
    await app.mock.close();
  }
  const lines = text.trim().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/mailboxes\?x=1 → 200 in \d+\.\d ms \(listMailboxes, user:dev@example\.com\)$/);
  expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: PUT \/mailboxes → 405 in \d+\.\d ms \(-, -\) — did you mean GET \/mailboxes\?$/);
});
