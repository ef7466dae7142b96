/**
 * Issue 14 item 2: the non-file fields of one form are bounded together, in count and in bytes
 * (docs/guarantees.md, Limits), whatever the operation: past either bound, 413 — before, a multipart body of
 * many 1 MiB fields was held whole in memory, and a few of them crashed the process.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { MockServer } from '../../src/server.js';
import { multipart, rawRequest, testServer } from '../helpers.js';

let server: MockServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(async () => {
  await server.close();
});

const MiB = 1024 * 1024;
const post = (body: Buffer, type: string) => rawRequest(server.url, { method: 'POST', path: '/token', headers: { 'Content-Type': type }, body });

test('multipart /token with many fields just under 1 MiB each is 413, and the mock still answers', async () => {
  const parts = Array.from({ length: 8 }, (_, i) => ({ name: `f${i}`, content: 'x'.repeat(MiB - 16) }));
  const res = await post(multipart('ff', [{ name: 'username', content: 'alice' }, { name: 'password', content: 'pw' }, ...parts]), 'multipart/form-data; boundary=ff');
  expect([res.status, JSON.parse(res.text)]).toEqual([413, { detail: 'Request body too large' }]);
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
});

test('multipart /token with more than 1,000 small fields is 413', async () => {
  const parts = Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}`, content: 'v' }));
  const res = await post(multipart('ff', parts), 'multipart/form-data; boundary=ff');
  expect(res.status).toBe(413);
});

test('fields within the bounds are read as before: a wrong login is 400', async () => {
  const res = await post(multipart('ff', [{ name: 'username', content: 'nobody' }, { name: 'password', content: 'x'.repeat(1000) }]), 'multipart/form-data; boundary=ff');
  expect([res.status, JSON.parse(res.text)]).toEqual([400, { detail: 'Incorrect username or password' }]);
});

test('an urlencoded /token with more than 1,000 fields is 413', async () => {
  const body = Buffer.from(Array.from({ length: 1001 }, (_, i) => `f${i}=v`).join('&'));
  const res = await post(body, 'application/x-www-form-urlencoded');
  expect(res.status).toBe(413);
});
