/**
 * How a client's own test suite uses the mock: start it, drive it with fetch, make it fail on
 * purpose, move its clock. Copy this file into your project and import from 'cloud-browser-mock'.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { startMockServer, type MockServer } from '../src/index.js'; // in your project: 'cloud-browser-mock'

let mock: MockServer;
const auth = { Authorization: 'Bearer sk_test_demo' };

beforeAll(async () => {
  mock = await startMockServer({ logLevel: 'silent' }); // free port, in-memory state
});
beforeEach(() => mock.reset()); // every test starts from the scenario
afterAll(() => mock.close());

/** The client under test: lists a session's files, retrying once on 503. */
async function listFiles(base: string, session: string): Promise<{ total: number }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}/sessions/${session}/files`, { headers: auth });
    if (res.status === 503 && attempt === 0) continue;
    if (!res.ok) throw new Error(`list failed: ${res.status}`);
    return (await res.json()) as { total: number };
  }
}

test('the client retries a 503 once', async () => {
  await mock.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 });
  expect((await listFiles(mock.url, 'sess_demo')).total).toBe(2);
  expect((await mock.requests({ operationId: 'listSessionFiles' })).map((r) => r.status)).toEqual([200, 503]);
});

test('a file downloads until it expires, then answers 410', async () => {
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'hello.txt');
  const uploaded = await (await fetch(`${mock.url}/sessions/sess_demo/files`, { method: 'POST', headers: auth, body: form })).json();
  expect((await fetch(`${mock.url}/sessions/sess_demo/files/${uploaded.id}`, { headers: auth })).status).toBe(200);
  await mock.clock.advance('P8D'); // eight days later, without sleeping (seconds or ISO 8601)
  expect((await fetch(`${mock.url}/sessions/sess_demo/files/${uploaded.id}`, { headers: auth })).status).toBe(410);
});
