/**
 * What the proxy's journal keeps of a request body (issue 25): the proxy hands the journal what it
 * parsed of its kept copy, and the journal summarises and redacts it from the operation's
 * descriptor, as it does for the local pipeline — a secret is "***", a body it could not parse or
 * streamed on without keeping is only a count of bytes.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { MockServer } from '../src/server.js';
import { testServer } from './helpers.js';

const TOKEN = 'sk_proxy_journal_41c7';
const auth = { Authorization: `Bearer ${TOKEN}` };

let upstream: MockServer;
let proxy: MockServer;

beforeAll(async () => {
  upstream = await testServer();
  proxy = await testServer({ upstream: upstream.url });
});

afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function send(path: string, init: RequestInit): Promise<number> {
  const res = await fetch(`${proxy.url}${path}`, init);
  await res.arrayBuffer();
  return res.status;
}

/** The body the proxy's journal kept of the newest request to `operationId`. */
const journalled = async (operationId: string) => (await proxy.requests({ operationId }))[0]?.body;

test('a secret in a JSON body or a form is "***", the fields the operation shows are kept', async () => {
  expect(await send('/secrets', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'PROXY_JOURNAL', value: 'journal-secret-9f3a', namespace: 'function_env' }) })).toBe(201);
  expect(await journalled('storeSecret')).toEqual({ name: 'PROXY_JOURNAL', value: '***', namespace: 'function_env' });
  expect(await send('/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&username=nobody%40example.com&password=journal-pw-77' })).toBe(400);
  expect(await journalled('createToken')).toEqual({ grant_type: 'password', username: 'nobody@example.com', password: '***' });
});

test('a body of another type than JSON is kept as its size in bytes, an upload as the bytes streamed', async () => {
  // "héllo" is 6 bytes of UTF-8.
  expect(await send('/mailboxes/sync', { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'héllo' })).toBe(422);
  expect(await journalled('syncMailboxes')).toEqual({ unparsed_bytes: 6 });
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(5000)]), 'journal.bin');
  expect(await send('/sessions/sess_demo/files', { method: 'POST', headers: auth, body: form })).toBe(201);
  const upload = (await journalled('uploadSessionFile')) as { streamed_bytes: number };
  expect(Object.keys(upload)).toEqual(['streamed_bytes']);
  expect(upload.streamed_bytes).toBeGreaterThan(5000);
});

test('a request without a body leaves none', async () => {
  expect(await send('/mailboxes', { headers: auth })).toBe(200);
  expect(await journalled('listMailboxes')).toBeNull();
});
