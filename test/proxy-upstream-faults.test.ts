/**
 * Upstream faults: an unreachable upstream, a TLS failure and an upstream that stays silent past
 * --upstream-timeout answer 502/504 with a detail naming the problem; a slow but flowing answer is
 * not cut. TLS uses a certificate `openssl` makes at test time; HTTPS through a trusted
 * certificate is checked with the CLI, which reads NODE_EXTRA_CA_CERTS at start-up.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';
import { CLI, startCli } from './cli-process.js';
import { testServer } from './helpers.js';
import { logCapture } from './proxy-support.js';

const auth = { Authorization: 'Bearer sk_faults_case' };
const listen = async (server: Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const close = (server: Server) => new Promise((r) => server.close(r));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-upstream-faults-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('when the upstream fails', () => {
  test('an unreachable upstream answers 502 naming it, and is logged', async () => {
    // Port 1: below the ephemeral range, so no server of another test file can be handed it (a
    // port freed by closing a server was, once, under load: it then accepted and stayed silent, 504).
    const url = 'http://127.0.0.1:1';
    const log = logCapture();
    const proxy = await testServer({ upstream: url, logLevel: 'warn', logDestination: log.stream });
    try {
      const res = await fetch(`${proxy.url}/mailboxes`, { headers: auth });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { detail: string }).detail).toBe(`upstream ${url} unreachable: ECONNREFUSED`);
      expect(log.text()).toContain('ECONNREFUSED');
      expect((await proxy.requests({ operationId: 'listMailboxes' }))[0].status).toBe(502);
    } finally {
      await proxy.close();
    }
  });

  test('an upstream silent past --upstream-timeout answers 504, and the proxy keeps serving', async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    const url = await listen(silent);
    const proxy = await testServer({ upstream: url, upstreamTimeoutMs: 500 });
    try {
      const res = await fetch(`${proxy.url}/secrets`, { headers: auth });
      expect(res.status).toBe(504);
      expect(((await res.json()) as { detail: string }).detail).toBe(`upstream ${url} sent nothing for 0.5 s (--upstream-timeout)`);
      expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    } finally {
      await proxy.close();
      silent.closeAllConnections();
      await close(silent);
    }
  });

  test('a slow but flowing download is not cut by the idle timeout', async () => {
    // 24 pauses of 100 ms against a 1.5 s idle timeout: each pause far below it (a loaded machine
    // once stretched a 150 ms pause past a 400 ms timeout), all of them together well above it.
    const chunks = 24;
    const slow = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      let sent = 0;
      const tick = setInterval(() => {
        res.write(`chunk ${sent}\n`);
        if (++sent === chunks) {
          clearInterval(tick);
          res.end();
        }
      }, 100);
    });
    const url = await listen(slow);
    const proxy = await testServer({ upstream: url, upstreamTimeoutMs: 1500 });
    try {
      const res = await fetch(`${proxy.url}/sessions/sess_1/files/file_1`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(Array.from({ length: chunks }, (_, i) => `chunk ${i}\n`).join(''));
    } finally {
      await proxy.close();
      await close(slow);
    }
  });
});

test('an upstream that stalls mid-answer is cut after the idle timeout: the client sees the connection end, not a hang', async () => {
  const stalling = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': '1000' });
    res.write('only the start');
  });
  const url = await listen(stalling);
  const log = logCapture();
  const proxy = await testServer({ upstream: url, upstreamTimeoutMs: 400, logLevel: 'warn', logDestination: log.stream });
  try {
    const res = await fetch(`${proxy.url}/sessions/sess_1/files/file_1`, { headers: auth });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(log.text()).toContain('sent nothing for 0.4 s');
  } finally {
    await proxy.close();
    stalling.closeAllConnections();
    await close(stalling);
  }
});

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
const tlsTest = haveOpenssl ? test : test.skip;
if (!haveOpenssl) test.skip('TLS upstream tests need openssl on PATH (apt-get install openssl)', () => undefined);

describe('an https upstream', () => {
  tlsTest('with a certificate nobody trusts answers 502 naming the TLS failure; trusted, it is proxied', async () => {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
    expect(made.status).toBe(0);
    const upstreamApp = await createApp({ logLevel: 'silent' });
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, upstreamApp);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const untrusting = await testServer({ upstream: url });
    try {
      const res = await fetch(`${untrusting.url}/mailboxes`, { headers: auth });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { detail: string }).detail).toMatch(new RegExp(`^TLS with upstream ${url} failed: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)`));
      const cli = await startCli(['--port', '0', '--in-memory', '--upstream', url, '--log-level', 'warn'], { cwd: dir, env: { NODE_EXTRA_CA_CERTS: cert } });
      try {
        const proxied = await fetch(`${cli.url}/mailboxes/mbx_gmail`, { headers: auth });
        expect(proxied.status).toBe(200);
        expect(((await proxied.json()) as { id: string }).id).toBe('mbx_gmail');
      } finally {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    } finally {
      await untrusting.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await upstreamApp.mock.close();
    }
  });
});

describe('the flags', () => {
  test.each([
    [['--upstream', 'ftp://example.com'], /^cloud-browser-mock: --upstream must be an http:\/\/ or https:\/\/ URL, not "ftp:\/\/example.com"\n$/],
    [['--record', 'x.json'], /^cloud-browser-mock: --record needs --upstream/],
    [['--upstream', 'http://127.0.0.1:9', '--upstream-timeout', 'soon'], /^cloud-browser-mock: --upstream-timeout must be a positive duration/],
    [['--upstream', 'http://127.0.0.1:9', '--record-secret-values'], /^cloud-browser-mock: --record-secret-values needs --record\n$/],
  ])('%j is refused with one line and exit code 2', (args, message) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('a --record file that cannot be written stops start-up with one line naming it, exit code 2', () => {
    const target = join(dir, 'no-such-dir', 'rec.json');
    const r = spawnSync(process.execPath, [CLI, '--port', '0', '--upstream', 'http://127.0.0.1:9', '--record', target], { cwd: dir, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`cloud-browser-mock: --record ${target}: cannot write there (ENOENT)\n`);
  });
});
