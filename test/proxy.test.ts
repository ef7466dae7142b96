/**
 * --upstream: a second mock instance plays the real service. A client flow through the proxy
 * must get exactly what it gets directly; the recording made on the way must replay as a
 * scenario; the proxy's journal, coverage and faults keep working; nothing secret leaks.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Clock } from '../src/primitives/clock.js';
import { RECORDED_API_KEY } from '../src/proxy/recorder.js';
import type { MockServer } from '../src/server.js';
import { testServer } from './helpers.js';
import { SECRET_VALUE, UPLOAD, clientFlow, logCapture, sha256, type Answer } from './proxy-support.js';

const PROXY_TOKEN = 'sk_flow_through_proxy_5d1e';

/** Token signatures differ between instances (each has its own random key); the claims do not. */
const claimsOnly = (answers: Answer[]) =>
  answers.map((a) => (a.step === 'createToken' && a.status === 200 ? { ...a, body: JSON.stringify({ ...JSON.parse(a.body), access_token: JSON.parse(a.body).access_token.split('.')[1] }) } : a));

let dir: string;
let upstream: MockServer;
/** The same service again, at the same frozen instant: what the direct flow talks to. */
let twin: MockServer;
let proxy: MockServer;
let log: ReturnType<typeof logCapture>;
let recording: string;
let viaProxy: Answer[];
let direct: Answer[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-proxy-'));
  recording = join(dir, 'recorded.json');
  // A frozen upstream clock: both flows see the same instants, so their answers can be equal.
  const clock = new Clock();
  clock.set(Date.now());
  upstream = await testServer({ clock });
  twin = await testServer({ clock });
  log = logCapture();
  proxy = await testServer({ upstream: upstream.url, record: recording, logLevel: 'info', logDestination: log.stream });
  viaProxy = await clientFlow(proxy.url, PROXY_TOKEN);
  direct = await clientFlow(twin.url, PROXY_TOKEN);
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
  await twin?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('when a client goes through the proxy', () => {
  test('every answer equals the upstream answer to the same flow, download bytes compared by SHA-256', () => {
    expect(viaProxy.length).toBeGreaterThan(20);
    expect(claimsOnly(viaProxy)).toEqual(claimsOnly(direct));
    const uploaded = viaProxy.find((a) => a.step === 'downloadSessionFile uploaded')!;
    expect(uploaded.body).toBe(`sha256:${sha256(UPLOAD)}`);
  });

  test('the requests reached the upstream under the caller\'s own token, and the proxy kept no state', async () => {
    const seen = await upstream.requests({ operationId: 'uploadSessionFile' });
    expect(seen.map((r) => r.principal)).toEqual([(await twin.requests({ operationId: 'uploadSessionFile' }))[0].principal]);
    expect(proxy.app.mock.store.principals()).toEqual([]);
  });

  test('the proxy journals every request and counts coverage from the real statuses', async () => {
    const listed = await proxy.requests({ operationId: 'listSessionFiles' });
    expect(listed.map((r) => r.status).sort()).toEqual([200, 200, 200, 404, 422]);
    const coverage = (await (await fetch(`${proxy.url}/__mock/coverage`)).json()) as { operations: { operationId: string; responses: Record<string, number> }[] };
    expect(coverage.operations.find((o) => o.operationId === 'deleteMailbox')!.responses['204']).toBe(1);
    expect(coverage.operations.find((o) => o.operationId === 'listMailboxes')!.responses['401']).toBe(1);
  });

  test('a request the contract forbids is forwarded, answered by the upstream and listed as client drift', async () => {
    expect(viaProxy.find((a) => a.step === 'a forbidden limit')!.status).toBe(422);
    const drift = (await (await fetch(`${proxy.url}/__mock/drift`)).json()) as { items: any[] };
    expect(drift.items).toEqual([
      expect.objectContaining({ source: 'client', operationId: 'listSessionFiles', status: 422, count: 1, problems: [{ where: 'query.limit', what: 'less_than_equal', expected: 'Input should be less than or equal to 1000', got: 'string' }] }),
    ]);
    expect(await proxy.drift()).toEqual(drift.items);
  });
});

describe('when the proxy answers on its own', () => {
  test('a fault applies before forwarding: the upstream never sees the request', async () => {
    const before = (await upstream.requests({ operationId: 'listMailboxes' })).length;
    await proxy.faults.add({ operationId: 'listMailboxes', status: 503, times: 1 });
    const res = await fetch(`${proxy.url}/mailboxes`, { headers: { Authorization: `Bearer ${PROXY_TOKEN}` } });
    expect(res.status).toBe(503);
    expect((await upstream.requests({ operationId: 'listMailboxes' })).length).toBe(before);
  });

  test('Prefer is not applied: the answer is the real one', async () => {
    const res = await fetch(`${proxy.url}/mailboxes`, { headers: { Authorization: `Bearer ${PROXY_TOKEN}`, Prefer: 'code=404' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBeNull();
  });

  test('/health, /openapi.json and the control plane stay local', async () => {
    const before = (await upstream.requests()).length;
    expect((await fetch(`${proxy.url}/health`)).status).toBe(200);
    expect((await fetch(`${proxy.url}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${proxy.url}/__mock/requests?limit=1`)).status).toBe(200);
    expect((await upstream.requests()).length).toBe(before);
  });
});

describe('the recording', () => {
  let scenario: any;
  let text: string;
  beforeAll(async () => {
    await proxy.app.mock.flushRecording!();
    text = readFileSync(recording, 'utf8');
    scenario = JSON.parse(text);
  });

  test('says it holds everything seen through one proxy whatever the token, with a placeholder user and key', () => {
    expect(scenario.description).toMatch(/whatever the token/);
    expect(scenario.api_keys).toEqual([{ key: RECORDED_API_KEY, owner: scenario.users[0].username }]);
    expect(log.text()).toMatch(/whatever the token/);
  });

  test('holds no token, no secret value and no access token — nor do the log, the drift report or the journal', async () => {
    const accessToken = JSON.parse(viaProxy.find((a) => a.step === 'createToken')!.body).access_token as string;
    const drift = await (await fetch(`${proxy.url}/__mock/drift?format=junit`)).text();
    const journal = await (await fetch(`${proxy.url}/__mock/requests`)).text();
    expect((await proxy.requests({ operationId: 'storeSecret' }))[0].body).toEqual({ name: 'FLOW_SECRET', value: '***', namespace: 'function_env' });
    for (const where of [text, log.text(), drift, JSON.stringify(await proxy.drift()), journal]) {
      expect(where).not.toContain(PROXY_TOKEN);
      expect(where).not.toContain(SECRET_VALUE);
      expect(where).not.toContain(accessToken);
    }
  });

  test('loaded with --scenario at its generated_at, answers listSessionFiles, getMailbox and listSecrets as the upstream did', async () => {
    const clock = new Clock();
    clock.set(Date.parse(scenario.generated_at));
    const replay = await testServer({ scenario: recording, clock, auth: 'strict' });
    try {
      const get = async (base: string, path: string, token: string) => {
        const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
        return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
      };
      for (const path of ['/sessions/sess_demo/files?limit=100', '/mailboxes/mbx_gmail', '/secrets', '/sessions/sess_demo/workflow/code?as_workflow=true']) {
        const real = await get(upstream.url, path, PROXY_TOKEN);
        const replayed = await get(replay.url, path, RECORDED_API_KEY);
        expect({ path, status: replayed.status, body: replayed.body.toString('utf8') }).toEqual({ path, status: real.status, body: real.body.toString('utf8') });
      }
      // Binary bytes downloaded through the proxy replay byte for byte.
      const uploadedId = JSON.parse(viaProxy.find((a) => a.step === 'uploadSessionFile')!.body).id;
      const bytes = await get(replay.url, `/sessions/sess_demo/files/${uploadedId}`, RECORDED_API_KEY);
      expect(sha256(bytes.body)).toBe(sha256(UPLOAD));
      // It is a live, writable mock: a write lands and is listed.
      const stored = await fetch(`${replay.url}/secrets`, { method: 'POST', headers: { Authorization: `Bearer ${RECORDED_API_KEY}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'NEW_ONE', value: 'v-123456789' }) });
      expect(stored.status).toBe(201);
    } finally {
      await replay.close();
    }
  });

  test('a file listed but never downloaded gets derived bytes, and the service\'s checksum in a note', () => {
    const many = scenario.sessions.find((s: any) => s.id === 'sess_many_files');
    expect(many.files.length).toBe(2); // three listed, one deleted
    for (const f of many.files) {
      expect(f.content_base64).toBeUndefined();
      expect(typeof f.checksum).toBe('string');
    }
  });
});

describe('with --record-secret-values', () => {
  test('a value read through getSecret is kept; without the switch it is a placeholder with the same key_hint', async () => {
    const file = join(dir, 'with-values.json');
    const p = await testServer({ upstream: upstream.url, record: file, recordSecretValues: true });
    try {
      const auth = { Authorization: 'Bearer sk_values_case' };
      await fetch(`${p.url}/secrets`, { headers: auth });
      await fetch(`${p.url}/secrets/OPENAI_API_KEY?namespace=llm_provider`, { headers: auth });
    } finally {
      await p.close();
    }
    const withValues = JSON.parse(readFileSync(file, 'utf8'));
    const direct = (await (await fetch(`${upstream.url}/secrets/OPENAI_API_KEY?namespace=llm_provider`, { headers: { Authorization: 'Bearer sk_values_case' } })).json()) as { value: string };
    expect(withValues.secrets.find((s: any) => s.name === 'OPENAI_API_KEY').value).toBe(direct.value);
    const without = JSON.parse(text());
    const placeholder = without.secrets.find((s: any) => s.name === 'OPENAI_API_KEY').value;
    expect(placeholder).not.toBe(direct.value);
    expect(placeholder).toMatch(/not-recorded|unrec/);
  });
});

const text = () => readFileSync(recording, 'utf8');
