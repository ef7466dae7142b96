/** --cors: off, OPTIONS is FastAPI's 405; on, preflights from the allowed origins are answered. */
import { afterEach, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { EXPOSED_HEADERS, parseCorsOrigins } from '../src/web/cors.js';
import { bearer, testApp } from './helpers.js';

const WEB = 'http://localhost:5173';
let app: MockApp | undefined;
afterEach(async () => {
  await app?.mock.close();
  app = undefined;
});

const preflight = (a: MockApp, path: string, origin: string, method = 'GET') =>
  request(a).options(path).set('Origin', origin).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', 'authorization');

describe('without --cors', () => {
  test('a preflight is the service’s 405 with Allow, and no CORS header anywhere', async () => {
    app = await testApp();
    const pre = await preflight(app, '/secrets', WEB, 'POST');
    expect([pre.status, pre.headers.allow, pre.body]).toEqual([405, 'POST', { detail: 'Method Not Allowed' }]);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(app).get('/mailboxes').set('Origin', WEB).set(bearer('t'));
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe.each([
  [[WEB], WEB],
  [['*'], '*'],
])('with --cors %j', (origins, allowOrigin) => {
  test('a preflight from the origin is 204 with the methods and the requested headers allowed', async () => {
    app = await testApp({ cors: origins });
    const res = await preflight(app, '/sessions/sess_demo/files/file_demo_notes', WEB, 'DELETE');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(allowOrigin);
    expect(res.headers['access-control-allow-methods']).toContain('DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('authorization');
  });

  test('answers carry the origin and expose the headers a client reads', async () => {
    app = await testApp({ cors: origins });
    const res = await request(app).get('/sessions/sess_demo/files/file_demo_notes').set('Origin', WEB).set(bearer('t'));
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(allowOrigin);
    expect(res.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS.join(','));
    const denied = await request(app).get('/mailboxes').set('Origin', WEB);
    expect([denied.status, denied.headers['access-control-allow-origin']]).toEqual([401, allowOrigin]);
  });

  test('an OPTIONS that is no preflight still reaches the router: 405 as FastAPI', async () => {
    app = await testApp({ cors: origins });
    const res = await request(app).options('/secrets').set('Origin', WEB).set(bearer('t'));
    expect([res.status, res.headers.allow]).toEqual([405, 'POST']);
  });
});

test('a preflight from an origin not on the list gets no CORS headers (the browser then refuses)', async () => {
  app = await testApp({ cors: [WEB] });
  const res = await preflight(app, '/secrets', 'http://evil.example', 'POST');
  expect(res.status).toBe(405);
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
});

test.each([
  ['*', ['*']],
  ['http://localhost:5173', ['http://localhost:5173']],
  ['http://localhost:5173/, https://app.example.com', ['http://localhost:5173', 'https://app.example.com']],
  ['localhost:5173', null],
  ['http://localhost:5173/app', null],
  ['ftp://files.example.com', null],
  [' , ', null],
])('--cors %j parses as %j', (text, origins) => {
  expect(parseCorsOrigins(text)).toEqual(origins);
});
