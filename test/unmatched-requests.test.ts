/**
 * A typo'd URL leaves a trace (issue 11 item 10): requests no operation matches — unknown paths,
 * wrong methods, trailing-slash redirects — are logged and journalled with operationId null, a
 * 404/405 with the closest documented route as a hint, while the answer stays FastAPI's. The
 * mock's own pages and the control plane stay out; unmatched requests never count in coverage.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { prettyDestination } from '../src/cli/logging.js';
import { bearer, testApp } from './helpers.js';

let app: MockApp;
let logged = '';
beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (d) => (logged += d));
  app = await testApp({ logLevel: 'info', logDestination: sink });
});
afterAll(() => app.mock.close());
beforeEach(async () => {
  await request(app).post('/__mock/reset');
  logged = '';
});

const journal = async (query = '') => (await request(app).get(`/__mock/requests${query}`)).body.items;
const logLines = () => logged.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('GET /session/sess_demo/files is FastAPI’s 404, and the journal and the log name the route meant', async () => {
  const res = await request(app).get('/session/sess_demo/files?limit=5').set(bearer('sk_test_demo'));
  expect([res.status, res.text]).toEqual([404, '{"detail":"Not Found"}']);
  const [entry] = await journal();
  expect(entry).toMatchObject({
    method: 'GET',
    path: '/session/sess_demo/files',
    query: { limit: '5' },
    operationId: null,
    principal: null,
    status: 404,
    hint: 'did you mean GET /sessions/{session_id}/files?',
  });
  expect(logLines()).toEqual([
    expect.objectContaining({ method: 'GET', url: '/session/sess_demo/files?limit=5', operationId: null, principal: null, status: 404, hint: 'did you mean GET /sessions/{session_id}/files?' }),
  ]);
  expect(logged).not.toContain('sk_test_demo');
});

test('a 307 redirect (GET /mailboxes/) is journalled and logged too, without a hint', async () => {
  const res = await request(app).get('/mailboxes/').set(bearer('t')).redirects(0);
  expect(res.status).toBe(307);
  expect(await journal()).toEqual([expect.objectContaining({ method: 'GET', path: '/mailboxes/', operationId: null, status: 307, hint: null })]);
  expect(logLines()).toEqual([expect.objectContaining({ url: '/mailboxes/', operationId: null, status: 307 })]);
  expect(logLines()[0].hint).toBeUndefined();
});

describe('the closest documented route', () => {
  test.each([
    ['GET', '/mailbox', 'did you mean GET /mailboxes?'],
    ['GET', '/secret/OPENAI_API_KEY', 'did you mean GET /secrets/{name}?'],
    ['DELETE', '/session/sess_demo/files/file_demo_notes', 'did you mean DELETE /sessions/{session_id}/files/{file_id}?'],
    ['GET', '/sessions/sess_demo', 'did you mean GET /sessions/{session_id}/files?'],
    ['POST', '/tokens', 'did you mean POST /token?'],
    ['GET', '/sessions/sess_demo/workflow/cod', 'did you mean GET /sessions/{session_id}/workflow/code?'],
    ['GET', '/v1/mailboxes', 'did you mean GET /mailboxes?'],
    // 405s: the path is the service's, the method is not; the literal route beats a template.
    ['PUT', '/mailboxes/sync', 'did you mean POST /mailboxes/sync?'],
    ['PUT', '/mailboxes', 'did you mean GET /mailboxes?'],
  ])('%s %s → %s', async (method, path, hint) => {
    const res = await request(app)[method.toLowerCase() as 'get'](path).set(bearer('t'));
    expect([404, 405]).toContain(res.status);
    expect(res.body.detail).toBe(res.status === 404 ? 'Not Found' : 'Method Not Allowed');
    expect((await journal())[0]).toMatchObject({ method, path, operationId: null, hint });
  });

  test.each([['/favicon.ico'], ['/'], ['/completely/unrelated/thing/here']])('%s is journalled with no guess', async (path) => {
    expect((await request(app).get(path)).status).toBe(404);
    expect(await journal()).toEqual([expect.objectContaining({ path, operationId: null, status: 404, hint: null })]);
  });

  // Hostile paths (near-miss.test.ts shows the guess is the one the full comparison makes).
  test.each([
    ['4,000 segments', '/a'.repeat(4000), null],
    ['one segment of 5,000 letters', `/${'x'.repeat(5000)}`, null],
    ['a typo of a route, then 3,000 more segments', `/mailboxs${'/x'.repeat(3000)}`, null],
    // A typo (0.1), a parameter (0.01) and one extra segment (0.75): under 1, a guess.
    ['a typo of a route, a segment of 5,000 letters, one segment more', `/mailboxs/${'x'.repeat(5000)}/files`, 'did you mean GET /mailboxes/{mailbox_id}?'],
    ['a typo of a route and a long parameter', `/sesions/${'s'.repeat(5000)}/files`, 'did you mean GET /sessions/{session_id}/files?'],
  ])('%s: a 404, journalled with the guess the route table gives', async (_what, path, hint) => {
    expect((await request(app).get(path).set(bearer('t'))).status).toBe(404);
    expect(await journal()).toEqual([expect.objectContaining({ path, operationId: null, status: 404, hint })]);
  });
});

test('?unmatched=true lists only unmatched requests, ?unmatched=false only the others; anything else is 422', async () => {
  await request(app).get('/mailboxes').set(bearer('t'));
  await request(app).get('/mailbox').set(bearer('t'));
  await request(app).put('/secrets').set(bearer('t'));
  expect((await journal('?unmatched=true')).map((e: any) => `${e.method} ${e.path} ${e.status}`)).toEqual(['PUT /secrets 405', 'GET /mailbox 404']);
  expect((await journal('?unmatched=false')).map((e: any) => e.operationId)).toEqual(['listMailboxes']);
  expect((await journal()).length).toBe(3);
  const bad = await request(app).get('/__mock/requests?unmatched=maybe');
  expect([bad.status, bad.body.detail[0].type, bad.body.detail[0].loc]).toEqual([422, 'bool_parsing', ['query', 'unmatched']]);
});

test('the mock’s own paths and the control plane are never journalled or logged', async () => {
  for (const path of ['/health', '/openapi.json', '/docs', '/docs/swagger-ui.css', '/__mock/clock', '/__mock/no-such-thing']) await request(app).get(path);
  expect(await journal()).toEqual([]);
  expect(logged).toBe('');
});

test('unmatched requests do not count in coverage', async () => {
  const before = (await request(app).get('/__mock/coverage')).body;
  await request(app).get('/session/sess_demo/files').set(bearer('t'));
  await request(app).put('/mailboxes').set(bearer('t'));
  await request(app).get('/mailboxes/').set(bearer('t')).redirects(0);
  const after = (await request(app).get('/__mock/coverage')).body;
  expect(after).toEqual(before);
  expect(after.exercised).toBe(0);
});

test('in a terminal, the pretty log line ends with the hint', async () => {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (d) => (text += d));
  const pretty = await testApp({ logLevel: 'info', logDestination: await prettyDestination({ colorize: false, destination: sink }) });
  try {
    await request(pretty).get('/session/sess_demo/files');
  } finally {
    await pretty.mock.close();
  }
  expect(text.trim()).toMatch(/INFO: GET \/session\/sess_demo\/files → 404 in [\d.]+ ms \(-, -\) — did you mean GET \/sessions\/\{session_id\}\/files\?$/);
});
