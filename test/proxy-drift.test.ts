/**
 * Drift detection: a tiny upstream of our own answers deliberately drifted bodies — a missing
 * required field, a wrong type, an undocumented status, an extra field, a wrong content type —
 * and each must show up in /__mock/drift exactly once, with its count, naming types, not values.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockServer } from '../src/server.js';
import { testServer } from './helpers.js';
import { logCapture } from './proxy-support.js';

const LEAKY = 'TOPSECRET-drifted-value-93ab';
const NOW = '2025-01-01T12:00:00Z';
const file = { id: 'file_x', session_id: 'sess_1', filename: 'a.txt', mime_type: 'text/plain', size: 5, checksum: 'f'.repeat(64), created_at: NOW, expires_at: '2099-01-01T00:00:00Z', source: 'user_upload' };

/** method path → [status, content type, body] */
const ANSWERS: Record<string, [number, string, string]> = {
  'GET /mailboxes': [200, 'application/json', JSON.stringify({ items: [{ id: 'mbx_1' }, { id: 'mbx_2' }] })],
  'GET /mailboxes/mbx_1': [200, 'application/json', JSON.stringify({ id: 'mbx_1', email_address: 'a@example.com', healthy: 'yes' })],
  'GET /secrets': [418, 'application/json', JSON.stringify({ detail: "I'm a teapot" })],
  'POST /mailboxes/sync': [200, 'application/json', JSON.stringify({ items: [], next_cursor: 'abc' })],
  'GET /sessions/sess_text/files': [200, 'text/plain; charset=utf-8', 'files: none'],
  'GET /secrets/LEAKY': [200, 'application/json', JSON.stringify({ value: 12345, echo: LEAKY })],
  'GET /sessions/sess_1/files': [200, 'application/json', JSON.stringify({ files: [file], total: 1, limit: 50, offset: 0 })],
};

let drifted: Server;
let proxy: MockServer;
let log: ReturnType<typeof logCapture>;
let dir: string;

beforeAll(async () => {
  drifted = createServer((req, res) => {
    req.resume();
    const [status, type, body] = ANSWERS[`${req.method} ${req.url!.split('?')[0]}`] ?? [500, 'text/plain', 'unexpected'];
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((r) => drifted.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(join(tmpdir(), 'cbm-drift-'));
  log = logCapture();
  proxy = await testServer({ upstream: `http://127.0.0.1:${(drifted.address() as AddressInfo).port}`, record: join(dir, 'rec.json'), logLevel: 'warn', logDestination: log.stream });
  const auth = { Authorization: 'Bearer sk_drift_case_token' };
  for (let round = 0; round < 2; round++) {
    await fetch(`${proxy.url}/mailboxes`, { headers: auth });
    await fetch(`${proxy.url}/mailboxes/mbx_1`, { headers: auth });
    await fetch(`${proxy.url}/secrets`, { headers: auth });
    await fetch(`${proxy.url}/mailboxes/sync`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"provider":"gmail"}' });
    await fetch(`${proxy.url}/sessions/sess_text/files`, { headers: auth });
    await fetch(`${proxy.url}/secrets/LEAKY?namespace=function_env`, { headers: auth });
    await fetch(`${proxy.url}/sessions/sess_1/files`, { headers: auth });
  }
});

afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => drifted?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const byOp = async (id: string) => (await proxy.drift()).filter((r) => r.operationId === id);

describe('when the real service drifts from openapi.json', () => {
  test.each([
    ['listMailboxes', 200, { where: 'body.items[].email_address', what: 'missing required field', expected: 'string', got: 'absent' }],
    ['getMailbox', 200, { where: 'body.healthy', what: 'wrong type', expected: 'boolean', got: 'string' }],
    ['listSecrets', 418, { where: 'status', what: 'undocumented status', expected: '200, 401, 422', got: '418' }],
    ['syncMailboxes', 200, { where: 'body.next_cursor', what: 'field the document does not name', expected: 'absent', got: 'string' }],
    ['listSessionFiles', 200, { where: 'content-type', what: 'wrong content type', expected: 'application/json', got: 'text/plain' }],
  ])('%s (%d) is one drift record, counted twice, with its one problem', async (operationId, status, problem) => {
    expect(await byOp(operationId)).toEqual([expect.objectContaining({ source: 'service', operationId, status, count: 2, problems: [problem] })]);
  });

  test('every problem of one answer is collected, and got names types, never the values', async () => {
    expect(await byOp('getSecret')).toEqual([
      expect.objectContaining({
        count: 2,
        problems: expect.arrayContaining([
          { where: 'body.value', what: 'wrong type', expected: 'string', got: 'integer' },
          { where: 'body.echo', what: 'field the document does not name', expected: 'absent', got: 'string' },
        ]),
      }),
    ]);
    expect((await byOp('getSecret'))[0].problems).toHaveLength(2);
  });

  test('a drift is logged once as a warning, whatever its count; no value reaches the log', () => {
    const warnings = log.text().split('\n').filter((l) => l.includes('"operationId":"getMailbox"'));
    expect(warnings).toHaveLength(1);
    expect(log.text()).not.toContain(LEAKY);
    expect(log.text()).not.toContain('sk_drift_case_token');
  });

  test('GET /__mock/drift lists them; ?format=junit fails exactly the drifted operations; DELETE clears', async () => {
    const listed = (await (await fetch(`${proxy.url}/__mock/drift`)).json()) as { items: unknown[] };
    expect(listed.items).toHaveLength(6);
    expect(JSON.stringify(listed)).not.toContain(LEAKY);
    const res = await fetch(`${proxy.url}/__mock/drift?format=junit`);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await res.text();
    expect(xml).toMatch(/<testsuites name="cloud-browser-mock drift" tests="15" failures="6">/);
    const failed = [...xml.matchAll(/name="(\w+)"><failure/g)].map((m) => m[1]).sort();
    expect(failed).toEqual(['getMailbox', 'getSecret', 'listMailboxes', 'listSecrets', 'listSessionFiles', 'syncMailboxes']);
    expect(xml).not.toContain(LEAKY);
    expect((await fetch(`${proxy.url}/__mock/drift?format=yaml`)).status).toBe(422);
    expect((await fetch(`${proxy.url}/__mock/drift`, { method: 'DELETE' })).status).toBe(204);
    expect(((await (await fetch(`${proxy.url}/__mock/drift`)).json()) as { items: unknown[] }).items).toEqual([]);
  });

  test('a listed file whose bytes were never downloaded is recorded with derived bytes and the real checksum in a note', async () => {
    await proxy.app.mock.flushRecording!();
    const rec = JSON.parse(readFileSync(join(dir, 'rec.json'), 'utf8'));
    const f = rec.sessions.find((s: any) => s.id === 'sess_1').files[0];
    expect(f.checksum).not.toBe(file.checksum);
    expect(f.note).toContain(file.checksum);
    // Drifted answers included, the recording loads as a scenario.
    const replay = await testServer({ scenario: join(dir, 'rec.json') });
    await replay.close();
  });
});

test('without --upstream, /__mock/drift is empty and its JUnit report passes', async () => {
  const plain = await testServer();
  try {
    expect(await (await fetch(`${plain.url}/__mock/drift`)).json()).toEqual({ items: [] });
    expect(await (await fetch(`${plain.url}/__mock/drift?format=junit`)).text()).toMatch(/tests="15" failures="0"/);
    expect(await plain.drift()).toEqual([]);
  } finally {
    await plain.close();
  }
});
