/**
 * What the proxy sends on and back: method, base path + path + query, the caller's headers
 * (Authorization included) and body; hop-by-hop headers are dropped both ways, and an answer Node
 * cannot pass on is a 502, not a crash.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { request, createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MockServer } from '../src/server.js';
import { testServer } from './helpers.js';

let seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
let echo: Server;
let proxy: MockServer;

beforeAll(async () => {
  echo = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Keep-Alive': 'timeout=5', 'X-Upstream': 'yes', Connection: 'keep-alive, X-Hop', 'X-Hop': 'dropped' });
      res.end('{"items":[]}');
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  proxy = await testServer({ upstream: `http://127.0.0.1:${(echo.address() as AddressInfo).port}/api/v2/` });
});

afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => echo?.close(r));
});

test('method, base path, path, query, end-to-end headers and body go through; hop-by-hop headers do not', async () => {
  seen = [];
  const url = new URL(`${proxy.url}/secrets?namespace=function_env&x=%2F`);
  const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: `${url.pathname}${url.search}`,
        headers: { Authorization: 'Bearer sk_forward_case', 'Content-Type': 'application/json', 'X-Client': 'kept', Connection: 'keep-alive, X-Private', 'X-Private': 'hop', TE: 'trailers', 'Proxy-Authorization': 'Basic eDp5', Expect: '100-continue' },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    // As curl does with Expect: the body follows the proxy's 100 Continue.
    req.on('continue', () => req.end('{"name":"A","value":"abcdefgh"}'));
  });
  expect(seen).toHaveLength(1);
  const got = seen[0];
  expect(got.method).toBe('POST');
  expect(got.url).toBe('/api/v2/secrets?namespace=function_env&x=%2F');
  expect(got.body).toBe('{"name":"A","value":"abcdefgh"}');
  expect(got.headers.authorization).toBe('Bearer sk_forward_case');
  expect(got.headers['x-client']).toBe('kept');
  expect(got.headers.host).toBe(`127.0.0.1:${(echo.address() as AddressInfo).port}`);
  for (const hop of ['x-private', 'te', 'proxy-authorization', 'expect']) expect(got.headers[hop]).toBeUndefined();
  expect(answer.status).toBe(200);
  expect(answer.body).toBe('{"items":[]}');
  expect(answer.headers['x-upstream']).toBe('yes');
  expect(answer.headers['x-hop']).toBeUndefined();
});

test('an answer that is not valid HTTP is a 502 naming it, and the proxy keeps serving', async () => {
  const raw = createServer();
  raw.on('connection', (socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nX-Bad: a\u0000b\r\n\r\n{}'));
  });
  await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
  const p = await testServer({ upstream: `http://127.0.0.1:${(raw.address() as AddressInfo).port}` });
  try {
    const res = await fetch(`${p.url}/mailboxes`, { headers: { Authorization: 'Bearer x' } });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/sent an answer that is not valid HTTP: HPE_/);
    expect((await fetch(`${p.url}/health`)).status).toBe(200);
  } finally {
    await p.close();
    await new Promise((r) => raw.close(r));
  }
});
