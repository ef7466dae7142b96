/** Mailboxes over HTTP: list, get, update sender rules, sync, delete. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { DETAIL } from '../src/errors/http-error.js';
import { Clock } from '../src/primitives/clock.js';
import { bearer, testApp } from './helpers.js';

const AUTH = bearer('sk_test_mailboxes');
let app: MockApp;
let clock: Clock;

beforeEach(async () => {
  clock = new Clock();
  clock.set(Date.parse('2026-03-01T10:00:00Z'));
  app = await testApp({ clock });
});
afterEach(() => app.mock.close());

test('listMailboxes returns the scenario mailboxes by created_at then id, every field present', async () => {
  const res = await request(app).get('/mailboxes').set(AUTH);
  expect(res.status).toBe(200);
  expect(res.body.items.map((m: any) => m.id)).toEqual(['mbx_gmail', 'mbx_outlook']);
  expect(Object.keys(res.body.items[0])).toEqual([
    'id', 'email_address', 'provider', 'healthy', 'authorized_scopes', 'allow_all_senders', 'allowed_sender_domains', 'created_at', 'updated_at',
  ]);
  expect(res.body.items.map((m: any) => [m.provider, m.healthy])).toEqual([['gmail', true], ['microsoft_outlook', false]]);
});

test('getMailbox returns one mailbox, and 404 Mailbox not found for an unknown id', async () => {
  expect((await request(app).get('/mailboxes/mbx_outlook').set(AUTH)).body.email_address).toBe('dev@outlook.example');
  const res = await request(app).get('/mailboxes/mbx_nope').set(AUTH);
  expect([res.status, res.body]).toEqual([404, { detail: DETAIL.mailboxNotFound }]);
});

describe('updateMailbox', () => {
  test('sets allow_all_senders and the domains, stamps updated_at with the clock, and persists', async () => {
    const res = await request(app).patch('/mailboxes/mbx_gmail').set(AUTH).send({ allow_all_senders: true, allowed_sender_domains: ['a.org', 'b.org'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allow_all_senders: true, allowed_sender_domains: ['a.org', 'b.org'], updated_at: '2026-03-01T10:00:00Z' });
    expect((await request(app).get('/mailboxes/mbx_gmail').set(AUTH)).body).toEqual(res.body);
  });

  test.each([
    ['omitted', { allow_all_senders: true }],
    ['null', { allow_all_senders: true, allowed_sender_domains: null }],
  ])('when allowed_sender_domains is %s, the domains are unchanged', async (_, body) => {
    const res = await request(app).patch('/mailboxes/mbx_gmail').set(AUTH).send(body);
    expect(res.body.allowed_sender_domains).toEqual(['example.com']);
  });

  test('when allow_all_senders is missing, returns 422 missing with the whole body as input', async () => {
    const res = await request(app).patch('/mailboxes/mbx_gmail').set(AUTH).send({ allowed_sender_domains: [] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'allow_all_senders'], msg: 'Field required', input: { allowed_sender_domains: [] } }]);
  });

  test('validation comes before the 404: an unknown mailbox with a bad body is 422', async () => {
    expect((await request(app).patch('/mailboxes/mbx_nope').set(AUTH).send({})).status).toBe(422);
    expect((await request(app).patch('/mailboxes/mbx_nope').set(AUTH).send({ allow_all_senders: false })).status).toBe(404);
  });
});

describe('syncMailboxes', () => {
  test('with no body, re-checks every mailbox: healthy becomes the connection state', async () => {
    await request(app).patch('/mailboxes/mbx_gmail').set(AUTH).send({ allow_all_senders: false });
    const res = await request(app).post('/mailboxes/sync').set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.items.map((m: any) => [m.id, m.healthy, m.updated_at])).toEqual([
      ['mbx_gmail', true, '2026-03-01T10:00:00Z'],
      ['mbx_outlook', false, '2026-03-01T10:00:00Z'],
    ]);
  });

  test.each([
    [{ mailbox_id: 'mbx_outlook' }, ['mbx_outlook']],
    [{ provider: 'gmail' }, ['mbx_gmail']],
    [{ mailbox_id: null, provider: null }, ['mbx_gmail', 'mbx_outlook']],
    [{ mailbox_id: 'mbx_gmail', provider: 'microsoft_outlook' }, []],
  ])('with %j, syncs %j', async (body, ids) => {
    const res = await request(app).post('/mailboxes/sync').set(AUTH).send(body);
    expect(res.status).toBe(200);
    expect(res.body.items.map((m: any) => m.id)).toEqual(ids);
  });

  test('an unknown mailbox_id is 404 Mailbox not found', async () => {
    const res = await request(app).post('/mailboxes/sync').set(AUTH).send({ mailbox_id: 'mbx_nope' });
    expect([res.status, res.body]).toEqual([404, { detail: DETAIL.mailboxNotFound }]);
  });

  test('an invalid provider is 422 enum', async () => {
    const res = await request(app).post('/mailboxes/sync').set(AUTH).send({ provider: 'yahoo' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'enum', loc: ['body', 'provider'], input: 'yahoo' });
  });
});

test('deleteMailbox answers 204 with no body, then the mailbox is gone (404)', async () => {
  const del = await request(app).delete('/mailboxes/mbx_outlook').set(AUTH);
  expect([del.status, del.text]).toEqual([204, '']);
  expect((await request(app).get('/mailboxes').set(AUTH)).body.items.map((m: any) => m.id)).toEqual(['mbx_gmail']);
  expect((await request(app).delete('/mailboxes/mbx_outlook').set(AUTH)).status).toBe(404);
});
