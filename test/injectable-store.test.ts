/**
 * createApp({ store }) (json-server's createApp(db)): a test opens a store, arranges data in it
 * directly, and reads that data over HTTP from the app made around it.
 */
import { afterEach, expect, test } from '@jest/globals';
import request from 'supertest';
import { createStore, type MockApp } from '../src/index.js';
import { Clock } from '../src/primitives/clock.js';
import { keyHint } from '../src/model/secret-rules.js';
import { testApp } from './helpers.js';

let app: MockApp | undefined;
afterEach(async () => {
  await app?.mock.close();
  app = undefined;
});

test('when a test arranges a secret in a store it passes in, GET /secrets lists it', async () => {
  const clock = new Clock();
  clock.set(Date.parse('2026-05-01T09:30:00Z'));
  const store = await createStore({ scenario: 'empty', clock });
  // A scenario's API key is its owner's: the workspace of principal user:<owner> (CONTRACT §3).
  const owner = store.scenario.apiKeys.get('sk_test_demo');
  expect(owner).toBe('dev@example.com');
  const ws = await store.workspace(`user:${owner}`);
  const value = 'sk-arranged-0123456789';
  ws.addSecret({ id: 'sec_arranged', namespace: 'llm_provider', name: 'ARRANGED_KEY', value, key_hint: keyHint(value), created_at: store.clock.now(), last_used_at: null });

  app = await testApp({ store });
  expect(app.mock.store).toBe(store);
  expect(app.mock.clock).toBe(store.clock);
  const res = await request(app).get('/secrets').set('Authorization', 'Bearer sk_test_demo');
  expect(res.status).toBe(200);
  expect(res.body.items).toEqual([expect.objectContaining({ name: 'ARRANGED_KEY', namespace: 'llm_provider', key_hint: 'sk-***', created_at: '2026-05-01T09:30:00Z' })]);
  expect(res.text).not.toContain(value);
});

test('when the store passed in has a clock, a different options.clock is refused in one line', async () => {
  const store = await createStore({ scenario: 'empty' });
  try {
    await expect(testApp({ store, clock: new Clock() })).rejects.toThrow(/^createApp: options\.clock is not the clock of options\.store; [^\n]*$/);
  } finally {
    await store.close();
  }
});
