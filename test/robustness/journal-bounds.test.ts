/**
 * The journal cannot be made to outgrow its budget (issue 14, item 1): an anonymous client's
 * body is not kept, a large body is kept as a short summary, and the entries together stay under
 * a byte limit whatever each one weighs.
 */
import { afterEach, expect, test } from '@jest/globals';
import { bearer, rawRequest, testServer } from '../helpers.js';
import type { MockServer } from '../../src/server.js';

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const json = { 'Content-Type': 'application/json' };
const items = (n: number) => `[${Array(n).fill('{}').join(',')}]`;
const journal = async (m: MockServer) => (await (await fetch(`${m.url}/__mock/requests`)).json()) as { items: { path: string; body: unknown; status: number }[] };

test('a request that fails authentication is journalled without its body', async () => {
  mock = await testServer({ auth: 'strict' });
  const res = await rawRequest(mock.url, { method: 'PATCH', path: '/mailboxes/mbx_gmail', headers: json, body: '{"allow_all_senders":true,"note":"anonymous bytes"}' });
  expect(res.status).toBe(401);
  const [entry] = (await journal(mock)).items;
  expect(entry).toMatchObject({ path: '/mailboxes/mbx_gmail', status: 401, body: null });
});

test('an authenticated body is still journalled as sent when it is small', async () => {
  mock = await testServer();
  await rawRequest(mock.url, { method: 'PATCH', path: '/mailboxes/mbx_gmail', headers: { ...json, ...bearer('t') }, body: '{"allow_all_senders":true,"allowed_sender_domains":["a.org"]}' });
  expect((await journal(mock)).items[0].body).toEqual({ allow_all_senders: true, allowed_sender_domains: ['a.org'] });
});

test('a 1 MiB body of 349k items is journalled as a summary of a few KiB that says what it left out', async () => {
  mock = await testServer();
  const body = items(349_525);
  const res = await rawRequest(mock.url, { method: 'PATCH', path: '/mailboxes/mbx_gmail', headers: { ...json, ...bearer('t') }, body });
  expect(res.status).toBe(422);
  const entry = (await journal(mock)).items[0];
  const kept = JSON.stringify(entry.body);
  expect(kept.length).toBeLessThan(4096);
  expect(kept).toMatch(/more items/);
});

test('deep nesting and long strings are cut short too, and a secret stays "***"', async () => {
  mock = await testServer();
  const deep = '['.repeat(500) + ']'.repeat(500);
  await rawRequest(mock.url, { method: 'PATCH', path: '/mailboxes/mbx_gmail', headers: { ...json, ...bearer('t') }, body: deep });
  await rawRequest(mock.url, { method: 'POST', path: '/secrets', headers: { ...json, ...bearer('t') }, body: JSON.stringify({ name: 'N'.repeat(5000), namespace: 'function_env', value: 'hunter2-secret' }) });
  const [secret, nested] = (await journal(mock)).items;
  expect(JSON.stringify(nested.body).length).toBeLessThan(4096);
  expect(JSON.stringify(secret.body).length).toBeLessThan(4096);
  expect(JSON.stringify(secret.body)).not.toContain('hunter2');
  expect(secret.body).toMatchObject({ value: '***' });
});

test('the entries together stay under the byte limit; the newest are the ones kept', async () => {
  const limit = 64 * 1024;
  mock = await testServer({ journalMaxBytes: limit });
  for (let i = 0; i < 120; i++) {
    await rawRequest(mock.url, { method: 'GET', path: `/mailboxes/mbx_${i}_${'p'.repeat(2000)}`, headers: bearer('t') });
  }
  const kept = (await journal(mock)).items;
  expect(Buffer.byteLength(JSON.stringify(kept))).toBeLessThanOrEqual(limit);
  expect(kept.length).toBeGreaterThan(10);
  expect(kept.length).toBeLessThan(120);
  expect(kept[0].path).toMatch(/^\/mailboxes\/mbx_119_/);
});
