/** Secrets over HTTP: store, list, read by name, delete; the value never shows elsewhere. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { DETAIL } from '../src/errors/http-error.js';
import { Clock } from '../src/primitives/clock.js';
import { keyHint } from '../src/model/secret-rules.js';
import { bearer, testApp } from './helpers.js';

const AUTH = bearer('sk_test_secrets');
let app: MockApp;
let clock: Clock;

beforeEach(async () => {
  clock = new Clock();
  clock.set(Date.parse('2026-03-01T10:00:00Z'));
  app = await testApp({ clock });
});
afterEach(() => app.mock.close());

const store = (body: object) => request(app).post('/secrets').set(AUTH).send(body);

describe('storeSecret', () => {
  test('answers 201 with metadata (never the value); namespace defaults to function_env', async () => {
    const res = await store({ name: 'GITHUB_TOKEN', value: 'ghp_0123456789' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^sec_[0-9a-f]{16}$/), namespace: 'function_env', name: 'GITHUB_TOKEN', key_hint: 'ghp***', created_at: '2026-03-01T10:00:00Z', last_used_at: null });
    expect(res.text).not.toContain('ghp_0123456789');
  });

  test('storing an existing name replaces the value and keeps id and created_at', async () => {
    const first = await store({ name: 'K', value: 'first-value', namespace: 'llm_provider' });
    clock.advance(60_000);
    const second = await store({ name: 'K', value: 'second-value', namespace: 'llm_provider' });
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.created_at).toBe(first.body.created_at);
    expect((await request(app).get('/secrets/K?namespace=llm_provider').set(AUTH)).body).toEqual({ value: 'second-value' });
  });

  test('the same name in another namespace is another secret', async () => {
    const a = await store({ name: 'K', value: 'aaaaaaaa', namespace: 'llm_provider' });
    const b = await store({ name: 'K', value: 'bbbbbbbb', namespace: 'function_env' });
    expect(a.body.id).not.toBe(b.body.id);
  });

  test.each([
    ['abcdefgh', 'abc***'],
    ['abcdefg', '***'],
    ['😀😀😀😀😀😀😀😀', '😀😀😀***'],
  ])('the key hint of %j is %j', (value, hint) => {
    expect(keyHint(value)).toBe(hint);
  });
});

test('listSecrets is sorted by name and filters by namespace; values never appear', async () => {
  await store({ name: 'AAA_FIRST', value: 'value-aaa-123', namespace: 'function_env' });
  const all = await request(app).get('/secrets').set(AUTH);
  expect(all.body.items.map((s: any) => s.name)).toEqual(['AAA_FIRST', 'OPENAI_API_KEY', 'SCRAPER_TOKEN']);
  expect(all.text).not.toContain('value-aaa-123');
  const llm = await request(app).get('/secrets?namespace=llm_provider').set(AUTH);
  expect(llm.body.items.map((s: any) => s.name)).toEqual(['OPENAI_API_KEY']);
});

describe('getSecret', () => {
  test('returns the value and stamps last_used_at', async () => {
    await store({ name: 'DB_PASSWORD', value: 'hunter2-hunter2' });
    clock.advance(5000);
    const res = await request(app).get('/secrets/DB_PASSWORD?namespace=function_env').set(AUTH);
    expect(res.body).toEqual({ value: 'hunter2-hunter2' });
    const listed = (await request(app).get('/secrets').set(AUTH)).body.items.find((s: any) => s.name === 'DB_PASSWORD');
    expect(listed.last_used_at).toBe('2026-03-01T10:00:05Z');
  });

  test('without namespace, 422 missing; in the wrong namespace, 404 Secret not found', async () => {
    const missing = await request(app).get('/secrets/OPENAI_API_KEY').set(AUTH);
    expect(missing.body.detail).toEqual([{ type: 'missing', loc: ['query', 'namespace'], msg: 'Field required', input: null }]);
    const wrong = await request(app).get('/secrets/OPENAI_API_KEY?namespace=function_env').set(AUTH);
    expect([wrong.status, wrong.body]).toEqual([404, { detail: DETAIL.secretNotFound }]);
  });

  test('a name with spaces and unicode is found through its percent-encoded path', async () => {
    await store({ name: 'my key é', value: 'v-v-v-v-v' });
    const res = await request(app).get(`/secrets/${encodeURIComponent('my key é')}?namespace=function_env`).set(AUTH);
    expect(res.body).toEqual({ value: 'v-v-v-v-v' });
  });
});

test('deleteSecret by id answers 204, then 404 Secret not found', async () => {
  const { body } = await store({ name: 'TMP', value: 'temporary' });
  const del = await request(app).delete(`/secrets/${body.id}`).set(AUTH);
  expect([del.status, del.text]).toEqual([204, '']);
  expect((await request(app).get('/secrets/TMP?namespace=function_env').set(AUTH)).status).toBe(404);
  expect((await request(app).delete(`/secrets/${body.id}`).set(AUTH)).status).toBe(404);
});
