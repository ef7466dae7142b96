/**
 * Control-plane input the service cannot represent is refused (issue 16, item 3), so the service
 * keeps answering: a clock outside years 1–9999, sizes outside 0 … the upload limit, dates that
 * do not exist, repeated ids, fault headers HTTP cannot send, seeded bytes never built whole in
 * memory, and an upload as large as the upload limit that survives export and re-import.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type RunningCli } from '../cli-process.js';
import { multipart } from '../helpers.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const AUTH = { Authorization: 'Bearer sk_test_demo' };

// A refused input changes nothing, so the cases of a group share one CLI (each in a workspace of
// its own where it writes one); starting a CLI per case cost most of this file's time.
const root = mkdtempSync(join(tmpdir(), 'cbm-control-input-'));
const running = new Set<RunningCli>();
afterAll(async () => {
  for (const cli of running) {
    cli.child.kill('SIGKILL');
    await cli.exited;
  }
  rmSync(root, { recursive: true, force: true });
});

/** A CLI on a data directory (`dir`, made when not given), and the requests a case sends it. */
async function start(args: string[] = [], dir = mkdtempSync(join(root, 'cli-'))) {
  const cli = await startCli(['--port', '0', '--data-dir', 'data', '--log-level', 'silent', ...args], { cwd: dir });
  running.add(cli);
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${cli.url}${path}`, { method, headers: { ...JSON_TYPE, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  return {
    cli,
    dir,
    send,
    async stop() {
      cli.child.kill('SIGTERM');
      await cli.exited;
      running.delete(cli);
    },
    /** The principal of `token`, URL-encoded. */
    async principal(token = 'sk_test_demo') {
      const res = await send('POST', '/__mock/principal', { token });
      expect(res.status).toBe(200);
      return encodeURIComponent(JSON.parse(res.text).principal as string);
    },
    /** Every service operation this suite touches answers as it should (never 500). */
    async serviceAnswers(auth: Record<string, string> = AUTH) {
      expect((await send('GET', '/secrets', undefined, auth)).status).toBe(200);
      expect((await send('GET', '/mailboxes', undefined, auth)).status).toBe(200);
      expect((await send('GET', '/sessions/sess_demo/files', undefined, auth)).status).toBe(200);
    },
  };
}
type Mock = Awaited<ReturnType<typeof start>>;

/** One CLI for the describe block it is called in (at the top level: for the whole file). */
function shared(args: string[] = []): () => Mock {
  let m: Mock;
  beforeAll(async () => {
    m = await start(args);
  });
  return () => m;
}

/**
 * The upload limit of the shared CLI. The bound, not the size, is what the cases at it test: a
 * snapshot's file may be as large as the upload limit (control-input.ts snapshotValueErrors), so
 * 16 MiB tests the same bound as the default 100 MiB, whose round trip moved ~133 MiB of base64
 * out and back (~12 CPU-s).
 */
const LIMIT = 16 * 1024 * 1024;

// The snapshot and fault refusals (each case in a workspace of its own, or writing nothing) and
// the round trip at the upload limit, which runs last and in the demo key's workspace, which no
// refusal changes, share one CLI.
const common = shared(['--max-upload', '16MiB']);

/**
 * One request on a connection of its own, closed after it. fetch's pool would send the next
 * request on the connection the previous one used: after a 133 MiB answer, a client starved for
 * the server's 5 s keep-alive timeout (a loaded machine) writes its next body onto a socket the
 * server has closed, and fetch fails with EPIPE — an HTTP/1.1 race, not the mock's answer.
 */
function fresh(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const file = (over: Record<string, unknown> = {}) => ({ id: 'file_x', filename: 'x.txt', mime_type: 'text/plain', size: 3, created_at: '2030-01-01T00:00:00Z', expires_at: '2030-02-01T00:00:00Z', source: 'user_upload', ...over });
const snapshot = (files: unknown[], extra: Record<string, unknown> = {}) => ({ sessions: [{ id: 'sess_demo', actions: [], files }], mailboxes: [], secrets: [], ...extra });

describe('the clock stays within years 1–9999', () => {
  const mock = shared();
  const CHANGES = [[{ advance: 9e12 }], [{ advance: 1e300 }], [{ advance: -1e300 }], [{ advance: 'P99999999999D' }], [{ set: '0000-12-31T00:00:00Z' }], [{ set: '0001-01-01T00:00:00+01:00' }]];
  test.each(CHANGES)('%j is 422; a secret stored afterwards lists, also after a clock reset', async (change) => {
    const { send, serviceAnswers } = mock();
    const res = await send('POST', '/__mock/clock', change);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text).detail).toMatch(/years? 1 to 9999/);
    const name = `AFTER_${CHANGES.findIndex(([c]) => c === change)}`;
    expect((await send('POST', '/secrets', { name, value: 'after-value' }, AUTH)).status).toBe(201);
    await serviceAnswers();
    await send('POST', '/__mock/clock/reset');
    await serviceAnswers();
    expect(JSON.parse((await send('GET', `/secrets/${name}?namespace=function_env`, undefined, AUTH)).text)).toEqual({ value: 'after-value' });
  });

  // The restart below, which the last case of the group goes on using (a CLI of its own when run alone).
  let restarted: Mock | undefined;
  test('after the refused changes a restart reads the data: every secret stored after them lists', async () => {
    const before = mock();
    await before.stop();
    const again = (restarted = await start([], before.dir));
    await again.serviceAnswers();
    const names = JSON.parse((await again.send('GET', '/secrets?namespace=function_env', undefined, AUTH)).text).items.map((s: { name: string }) => s.name);
    expect(names.filter((n: string) => n.startsWith('AFTER_')).sort()).toEqual(CHANGES.map((_, i) => `AFTER_${i}`));
  });

  test('the last representable instant is accepted, and an upload then still lists', async () => {
    const { cli, send, serviceAnswers } = restarted ?? (await start());
    expect((await send('POST', '/__mock/clock', { set: '9999-12-31T23:59:59Z' })).status).toBe(200);
    const body = multipart('bb', [{ name: 'file', filename: 'late.txt', type: 'text/plain', content: 'late' }]);
    const up = await fetch(`${cli.url}/sessions/sess_demo/files`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'multipart/form-data; boundary=bb' }, body });
    expect(up.status).toBe(201);
    expect(((await up.json()) as { expires_at: string }).expires_at).toBe('9999-12-31T23:59:59.999000Z');
    await serviceAnswers();
  });
});

describe('a workspace snapshot holds only what the service can represent', () => {
  const mock = common;
  // Each case imports into a workspace of its own: that of a token of its own.
  let n = 0;
  const own = () => {
    const token = `snapshot-case-${n++}`;
    return { token, auth: { Authorization: `Bearer ${token}` } };
  };
  test.each([
    ['size −1', [file({ size: -1 })], /greater_than_equal/],
    ['size 2^53', [file({ size: 2 ** 53 })], /less_than_equal/],
    ['size over the upload limit', [file({ size: LIMIT + 1 })], /less_than_equal/],
    ['a leap second', [file({ created_at: '2030-06-30T23:59:60Z' })], /datetime_from_date_parsing/],
    ['month 13', [file({ created_at: '2030-13-01T00:00:00Z' })], /datetime_from_date_parsing/],
    ['February 30', [file({ expires_at: '2030-02-30T00:00:00Z' })], /datetime_from_date_parsing/],
    ['an offset of +99:99', [file({ expires_at: '2030-01-01T00:00:00+99:99' })], /datetime_from_date_parsing/],
    ['the same file id twice', [file(), file()], /file id file_x appears twice in session sess_demo/],
  ])('%s: 422, and the workspace still answers', async (_what, files, message) => {
    const { send, principal, serviceAnswers } = mock();
    const { token, auth } = own();
    const res = await send('PUT', `/__mock/workspaces/${await principal(token)}`, snapshot(files));
    expect(res.status).toBe(422);
    expect(res.text).toMatch(message);
    await serviceAnswers(auth);
  });

  test.each([
    ['mailboxes', { mailboxes: [{ id: 'mbx_a', email_address: 'a@example.com', provider: 'gmail', connection_healthy: true, created_at: '2030-01-01T24:00:00Z' }] }, /datetime_from_date_parsing/],
    ['secrets', { secrets: [{ id: 'sec_a', namespace: 'function_env', name: 'A', value: 'v', created_at: '2030-01-01T00:00:00Z', last_used_at: '2030-04-31T00:00:00Z' }] }, /datetime_from_date_parsing/],
    ['secret ids', { secrets: [1, 2].map(() => ({ id: 'sec_a', namespace: 'function_env', name: 'A', value: 'v', created_at: '2030-01-01T00:00:00Z' })) }, /secret id sec_a appears twice/],
  ])('bad %s: 422, and the service still answers', async (_what, extra, message) => {
    const { send, principal, serviceAnswers } = mock();
    const { token, auth } = own();
    const res = await send('PUT', `/__mock/workspaces/${await principal(token)}`, snapshot([], extra));
    expect(res.status).toBe(422);
    expect(res.text).toMatch(message);
    await serviceAnswers(auth);
  });
});

describe('a fault is one HTTP can answer', () => {
  const mock = common;
  test.each([
    [{ status: 500, headers: { 'Bad Name': 'x' } }, /not a valid header name/],
    [{ status: 500, headers: { 'X-Ok': 'line\r\nInjected: yes' } }, /not a valid header value|string_pattern_mismatch/],
    [{ status: 500, headers: { 'X-Ok': 'snow ☃' } }, /not a valid header value|string_pattern_mismatch/],
    [{ status: 500, headers: { 'Transfer-Encoding': 'chunked' } }, /Transfer-Encoding frames the answer/],
    [{ status: 500, headers: { 'content-length': '5' } }, /content-length frames the answer/],
    [{ status: 100 }, /final HTTP status from 200 to 599, not 100/],
    [{ status: 101 }, /final HTTP status from 200 to 599, not 101/],
  ])('%j: 422, and listMailboxes still answers', async (fault, message) => {
    const { send, serviceAnswers } = mock();
    const res = await send('POST', '/__mock/faults', { operationId: 'listMailboxes', ...fault });
    expect(res.status).toBe(422);
    expect(res.text).toMatch(message);
    await serviceAnswers();
  });
});

describe('large files', () => {
  test('a snapshot file of 300 MB without content is imported and downloaded without building it in memory', async () => {
    const size = 300_000_000;
    const { cli, send, principal } = await start(['--max-upload', '1GiB']);
    const p = await principal();
    expect((await send('PUT', `/__mock/workspaces/${p}`, snapshot([file({ id: 'file_huge', size })]))).status).toBe(204);
    const listed = JSON.parse((await send('GET', '/sessions/sess_demo/files', undefined, AUTH)).text).files[0];
    const res = await fetch(`${cli.url}/sessions/sess_demo/files/file_huge`, { headers: AUTH });
    expect(res.status).toBe(200);
    const hash = createHash('sha256');
    let received = 0;
    let peak = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      received += chunk.length;
      peak = Math.max(peak, cli.rss());
    }
    expect(received).toBe(size);
    expect(hash.digest('hex')).toBe(listed.checksum);
    // Far below the file's own size: its bytes were never held at once.
    expect(peak).toBeLessThan(size);
  });

  // One byte more is refused, so the file round-tripped is the largest upload allowed.
  test('a workspace holding an upload of exactly the upload limit exports and re-imports; /health answers meanwhile', async () => {
    const { cli, principal } = common();
    const upload = (content: Buffer) =>
      fresh('POST', `${cli.url}/sessions/sess_demo/files`, { ...AUTH, 'Content-Type': 'multipart/form-data; boundary=bb' }, multipart('bb', [{ name: 'file', filename: 'big.bin', type: 'application/octet-stream', content }]));
    expect((await upload(Buffer.alloc(LIMIT + 1, 'ab'))).status).toBe(413);
    const content = Buffer.alloc(LIMIT, 'ab');
    expect((await upload(content)).status).toBe(201);
    const p = await principal();
    const exported = (await fresh('GET', `${cli.url}/__mock/workspaces/${p}`)).body;
    const reimport = fresh('PUT', `${cli.url}/__mock/workspaces/${p}`, JSON_TYPE, exported);
    expect((await fresh('GET', `${cli.url}/health`)).status).toBe(200);
    const answer = await reimport;
    expect([answer.status, answer.body.toString()]).toEqual([204, '']);
    const down = await fresh('GET', `${cli.url}/sessions/sess_demo/files?limit=1`, AUTH);
    const [listed] = (JSON.parse(down.body.toString()) as { files: { size: number; checksum: string }[] }).files;
    expect(listed).toMatchObject({ size: content.length, checksum: createHash('sha256').update(content).digest('hex') });
    // A loaded machine slows the base64 out and back: jest's 30 s default is a time bound this
    // test does not mean to set.
  }, 180_000);
});
