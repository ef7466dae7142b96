/** The spec drives routing: every operation has a handler, and FastAPI's route order shows. */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { OPERATION_IDS, buildOperations, readOpenApi } from '../src/document/openapi.js';
import { handlers } from '../src/operations/index.js';
import { bearer, testApp } from './helpers.js';

const doc = readOpenApi();
let app: MockApp;
beforeAll(async () => {
  app = await testApp({ allowedHosts: ['mock.internal', 'h'] }); // the Host names two tests use
});
afterAll(() => app.mock.close());

test('openapi.json declares the 15 operations, OpenAPI 3.1.0, version 1.9.8, each with a handler', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.version).toBe('1.9.8');
  const ids = buildOperations(doc).map((o) => o.id);
  expect(ids).toEqual([...OPERATION_IDS]);
  for (const id of ids) expect(typeof handlers[id]).toBe('function');
  expect(Object.keys(handlers).sort()).toEqual([...ids].sort());
});

test('every service operation documents 401 and 422; the token URL stays relative', () => {
  for (const op of buildOperations(doc)) {
    expect(op.statuses).toContain('422');
    if (op.id !== 'createToken') expect(op.statuses).toContain('401');
  }
  expect(doc.components.securitySchemes.OAuth2PasswordBearer.flows.password.tokenUrl).toBe('token');
});

test('GET /openapi.json serves the document with servers pointing at the request host', async () => {
  const res = await request(app).get('/openapi.json').set('Host', 'mock.internal:9999');
  expect(res.body.servers).toEqual([{ url: 'http://mock.internal:9999' }]);
  expect(res.body.paths).toEqual(doc.paths);
});

test.each([
  ['delete', '/sessions/x/files', 'GET'],
  ['put', '/secrets', 'POST'],
  ['put', '/mailboxes/sync', 'GET'],
  ['post', '/mailboxes/mbx_gmail', 'GET'],
  ['put', '/token', 'POST'],
  ['options', '/sessions/x/workflow/code', 'GET'],
])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
  const res = await (request(app) as any)[method](path).set(bearer('t'));
  expect(res.status).toBe(405);
  expect(res.headers.allow).toBe(allow);
  expect(res.body).toEqual({ detail: 'Method Not Allowed' });
});

test('GET /mailboxes/sync reaches getMailbox (route order), so it is 404 Mailbox not found', async () => {
  const res = await request(app).get('/mailboxes/sync').set(bearer('t'));
  expect([res.status, res.body]).toEqual([404, { detail: 'Mailbox not found' }]);
});

test.each(['/nope', '/sessions', '/sessions/x', '/secrets/a/b', '/'])('unknown path %s is 404 Not Found', async (path) => {
  const res = await request(app).get(path).set(bearer('t'));
  expect([res.status, res.body]).toEqual([404, { detail: 'Not Found' }]);
});

test('a trailing slash redirects 307 to the path without it, keeping the query', async () => {
  const res = await request(app).get('/sessions/sess_demo/files/?limit=5').set('Host', 'h:1').redirects(0);
  expect(res.status).toBe(307);
  expect(res.headers.location).toBe('http://h:1/sessions/sess_demo/files?limit=5');
});

test('GET /health needs no token', async () => {
  expect((await request(app).get('/health')).body).toEqual({ status: 'ok' });
});
