/** Hostile input: path tricks in file names, oversized bodies, slow clients, huge query strings. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockServer } from '../../src/server.js';
import { multipart, rawRequest, testServer } from '../helpers.js';
import { blobFiles } from '../data-layout.js';

let dir: string;
let server: MockServer;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-hostile-'));
  server = await testServer({ dataDir: dir, maxUploadBytes: 64 * 1024, headersTimeoutMs: 1000 });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const AUTH = { Authorization: 'Bearer hostile' };
const upload = (filename: string, content: string | Buffer, boundary = 'hh') =>
  rawRequest(server.url, {
    method: 'POST',
    path: '/sessions/sess_demo/files',
    headers: { ...AUTH, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: multipart(boundary, [{ name: 'file', filename, type: 'application/octet-stream', content }]),
  });
const blobs = () => blobFiles(dir).map((b) => b.split('/').pop()!);

describe('file names', () => {
  // (A raw CR or LF cannot appear: it would end the part's header line; browsers encode them.)
  const names: [string, string, string][] = [
    ['a relative path up the tree', '../../etc/passwd', 'passwd'],
    ['a Windows relative path', '..\\..\\x', 'x'],
    ['an absolute path', '/etc/shadow', 'shadow'],
    ['a Windows absolute path', 'C:\\Windows\\system.ini', 'system.ini'],
    ['NUL, BEL and TAB', 'a\u0000b\u0007c\td.txt', 'abcd.txt'],
    ['terminal escapes', '\u001b[31mred\u001b[0m.txt', '[31mred[0m.txt'],
    ['a 10,000-character name', 'x'.repeat(10_000), 'x'.repeat(10_000)],
    ['dot-dot alone', '..', '..'],
  ];
  test.each(names)('%s is stored safely inside the data directory and downloads intact', async (_, given, stored) => {
    const content = `content for ${given.length}`;
    const res = await upload(given, content);
    expect(res.status).toBe(201);
    const body = JSON.parse(res.text);
    expect(body.filename).toBe(stored);
    // Bytes live under blobs/ with names of our own, never the client's.
    expect(blobs()).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/)]);
    const down = await rawRequest(server.url, { method: 'GET', path: `/sessions/sess_demo/files/${body.id}`, headers: AUTH });
    expect([down.status, down.text]).toEqual([200, content]);
  });

  test('names that collide after sanitising stay separate files', async () => {
    const a = JSON.parse((await upload('one/report.csv', 'first')).text);
    const b = JSON.parse((await upload('two\\report.csv', 'second')).text);
    expect([a.filename, b.filename]).toEqual(['report.csv', 'report.csv']);
    expect(a.id).not.toBe(b.id);
    for (const [f, text] of [[a, 'first'], [b, 'second']] as const) {
      expect((await rawRequest(server.url, { method: 'GET', path: `/sessions/sess_demo/files/${f.id}`, headers: AUTH })).text).toBe(text);
    }
  });
});

describe('limits', () => {
  test('an upload over --max-upload is 413 File too large and leaves nothing on disk', async () => {
    const res = await upload('big.bin', Buffer.alloc(64 * 1024 + 1, 7));
    expect([res.status, res.text]).toEqual([413, '{"detail":"File too large"}']);
    expect(blobs()).toEqual([]);
    const listed = await rawRequest(server.url, { method: 'GET', path: '/sessions/sess_demo/files', headers: AUTH });
    expect(JSON.parse(listed.text).total).toBe(2);
  });

  test('an upload of exactly --max-upload is accepted', async () => {
    const content = Buffer.alloc(64 * 1024, 7);
    const res = await upload('exact.bin', content);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text).checksum).toBe(createHash('sha256').update(content).digest('hex'));
  });

  test('a JSON body over 1 MiB is 413 Request body too large', async () => {
    const body = JSON.stringify({ name: 'BIG', value: 'v'.repeat(1024 * 1024) });
    const res = await rawRequest(server.url, { method: 'POST', path: '/secrets', headers: { ...AUTH, 'Content-Type': 'application/json' }, body });
    expect([res.status, res.text]).toEqual([413, '{"detail":"Request body too large"}']);
  });

  test.each([
    ['no boundary', 'multipart/form-data', '--x\r\n', 400, '{"detail":"Missing boundary in multipart."}'],
    ['a truncated body', 'multipart/form-data; boundary=tt', '--tt\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nhal', 422, '{"detail":[{"type":"missing","loc":["body","file"],"msg":"Field required","input":null}]}'],
    ['a 1 MB part header', 'multipart/form-data; boundary=tt', `--tt\r\nContent-Disposition: form-data; name="file"; filename="${'a'.repeat(1 << 20)}"\r\n\r\nx\r\n--tt--\r\n`, 400, '{"detail":"Invalid multipart data."}'],
  ])('malformed multipart (%s) is the contract’s 4xx and leaves nothing on disk', async (_, type, body, status, text) => {
    const res = await rawRequest(server.url, { method: 'POST', path: '/sessions/sess_demo/files', headers: { ...AUTH, 'Content-Type': type }, body });
    expect([res.status, res.text]).toEqual([status, text]);
    expect(blobs()).toEqual([]);
  });

  test('1,000 query parameters are answered, the one the operation takes read among them', async () => {
    const query = Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&') + '&limit=3';
    const res = await rawRequest(server.url, { method: 'GET', path: `/sessions/sess_many_files/files?${query}`, headers: AUTH });
    expect([res.status, JSON.parse(res.text).limit]).toEqual([200, 3]);
  });
});

test('a client sending its headers slowly does not block others, and is cut off', async () => {
  const url = new URL(server.url);
  const slow = connect(Number(url.port), url.hostname);
  slow.on('error', () => undefined);
  let slowOpen = true;
  const closed = new Promise<void>((resolve) => slow.on('close', () => resolve(void (slowOpen = false))));
  slow.write('GET /mailboxes HTTP/1.1\r\nHost: x\r\n');
  const drip = setInterval(() => slow.write('X-Slow: 1\r\n'), 200);
  try {
    // Others are answered while the slow client is still connected and sending…
    let answeredWhileSlowOpen = 0;
    for (let i = 0; i < 5; i++) {
      expect((await rawRequest(server.url, { method: 'GET', path: '/health' })).status).toBe(200);
      if (slowOpen) answeredWhileSlowOpen++;
    }
    expect(answeredWhileSlowOpen).toBeGreaterThan(0);
    // …and the slow client is cut off by the server (it never stops dripping by itself; jest's
    // test timeout is the only bound).
    await closed;
    expect(slowOpen).toBe(false);
  } finally {
    clearInterval(drip);
    slow.destroy();
  }
});
