/** Authentication modes, the token endpoint, and one workspace per principal. */
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { authenticate, keyPrincipal, type AuthContext } from '../src/operations/auth.js';
import { DETAIL } from '../src/errors/http-error.js';
import { bearer, testApp } from './helpers.js';

let app: MockApp;
afterEach(() => app?.mock.close());

/**
 * One app per auth mode for the cases that only read and ask for tokens, none of which changes
 * what another reads (making and warming an app costs ~0.2 CPU-s); the others make their own.
 */
const shared = new Map<string, Promise<MockApp>>();
const readingApp = (auth: 'open' | 'strict' = 'open') => {
  if (!shared.has(auth)) shared.set(auth, testApp(auth === 'strict' ? { auth } : {}));
  return shared.get(auth)!;
};
afterAll(async () => {
  for (const made of shared.values()) await (await made).mock.close();
});

const token = async (username = 'dev@example.com', password = 'password', target: MockApp = app) =>
  request(target).post('/token').type('form').send({ username, password, grant_type: 'password' });

describe('createToken', () => {
  test('a scenario user gets a bearer token', async () => {
    const res = await token(undefined, undefined, await readingApp());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
  });

  test.each([
    ['dev@example.com', 'wrong'],
    ['nobody@example.com', 'password'],
  ])('%s with password %s is 400 Incorrect username or password', async (u, p) => {
    const res = await token(u, p, await readingApp());
    expect([res.status, res.body]).toEqual([400, { detail: DETAIL.badLogin }]);
  });

  test('empty username and password are two missing errors, username first', async () => {
    const res = await request(await readingApp()).post('/token').type('form').send('username=&password=');
    expect(res.body.detail.map((e: any) => [e.type, e.loc, e.input])).toEqual([
      ['missing', ['body', 'username'], null],
      ['missing', ['body', 'password'], null],
    ]);
  });
});

describe('open mode (default)', () => {
  test('any non-empty bearer token is accepted', async () => {
    expect((await request(await readingApp()).get('/mailboxes').set(bearer('anything-at-all'))).status).toBe(200);
  });

  test('no token is 401 Not authenticated with WWW-Authenticate: Bearer', async () => {
    const res = await request(await readingApp()).get('/mailboxes');
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([401, { detail: DETAIL.notAuthenticated }, 'Bearer']);
  });
});

describe('strict mode', () => {
  test('a made-up token is 401 Could not validate credentials', async () => {
    const res = await request(await readingApp('strict')).get('/mailboxes').set(bearer('made-up'));
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([401, { detail: DETAIL.invalidCredentials }, 'Bearer']);
  });

  test('the scenario API key and an issued token are accepted', async () => {
    const strict = await readingApp('strict');
    expect((await request(strict).get('/mailboxes').set(bearer('sk_test_demo'))).status).toBe(200);
    const { access_token } = (await token(undefined, undefined, strict)).body;
    expect((await request(strict).get('/mailboxes').set(bearer(access_token))).status).toBe(200);
  });

  test('a token signed by another instance is refused', async () => {
    const other = await testApp();
    const { access_token } = (await request(other).post('/token').type('form').send({ username: 'dev@example.com', password: 'password' })).body;
    await other.mock.close();
    app = await testApp({ auth: 'strict' });
    expect((await request(app).get('/mailboxes').set(bearer(access_token))).status).toBe(401);
  });
});

describe('tenancy', () => {
  test('two tokens have separate workspaces: one cannot see, read, change or delete the other’s data', async () => {
    app = await testApp();
    const alice = bearer('alice-token');
    const bob = bearer('bob-token');
    const stored = await request(app).post('/secrets').set(alice).send({ name: 'ALICE_ONLY', value: 'alice-secret-value' });
    const uploaded = await request(app)
      .post('/sessions/sess_demo/files')
      .set(alice)
      .attach('file', Buffer.from('alice bytes'), { filename: 'alice.txt', contentType: 'text/plain' });
    expect(uploaded.status).toBe(201);
    await request(app).delete('/mailboxes/mbx_gmail').set(alice);

    expect((await request(app).get('/secrets').set(bob)).body.items.map((s: any) => s.name)).not.toContain('ALICE_ONLY');
    expect((await request(app).get('/secrets/ALICE_ONLY?namespace=function_env').set(bob)).status).toBe(404);
    expect((await request(app).delete(`/secrets/${stored.body.id}`).set(bob)).status).toBe(404);
    expect((await request(app).get(`/sessions/sess_demo/files/${uploaded.body.id}`).set(bob)).status).toBe(404);
    expect((await request(app).delete(`/sessions/sess_demo/files/${uploaded.body.id}`).set(bob)).status).toBe(404);
    expect((await request(app).get('/sessions/sess_demo/files').set(bob)).body.total).toBe(2);
    expect((await request(app).get('/mailboxes/mbx_gmail').set(bob)).status).toBe(200);

    expect((await request(app).get('/secrets/ALICE_ONLY?namespace=function_env').set(alice)).body).toEqual({ value: 'alice-secret-value' });
    expect((await request(app).get(`/sessions/sess_demo/files/${uploaded.body.id}`).set(alice)).status).toBe(200);
  });

  test('a mailbox only one principal has is 404 to another for get, update, sync and delete', async () => {
    app = await testApp();
    const made = await request(app).post(`/__mock/workspaces/${encodeURIComponent(keyPrincipal('alice-token'))}/mailboxes`).send({ email_address: 'a@x.example', provider: 'gmail' });
    const id = made.body.id;
    const bob = bearer('bob-token');
    const answers = [
      await request(app).get(`/mailboxes/${id}`).set(bob),
      await request(app).patch(`/mailboxes/${id}`).set(bob).send({ allow_all_senders: true }),
      await request(app).post('/mailboxes/sync').set(bob).send({ mailbox_id: id }),
      await request(app).delete(`/mailboxes/${id}`).set(bob),
    ];
    // Indistinguishable from an id that never existed.
    for (const res of answers) expect([res.status, res.body]).toEqual([404, { detail: DETAIL.mailboxNotFound }]);
    expect((await request(app).get(`/mailboxes/${id}`).set(bearer('alice-token'))).status).toBe(200);
  });

  test('the scenario API key is its owner’s: curl with sk_test_demo and /docs after /token see the same data', async () => {
    app = await testApp();
    const issued = bearer((await token()).body.access_token);
    expect((await request(app).delete('/sessions/sess_demo/files/file_demo_notes').set(bearer('sk_test_demo'))).status).toBe(204);
    expect((await request(app).get('/sessions/sess_demo/files/file_demo_notes').set(issued)).status).toBe(404);
    await request(app).post('/secrets').set(issued).send({ name: 'FROM_DOCS', value: 'from-docs-value' });
    expect((await request(app).get('/secrets/FROM_DOCS?namespace=function_env').set(bearer('sk_test_demo'))).body).toEqual({ value: 'from-docs-value' });
    const principals = (await request(app).get('/__mock/workspaces')).body.items.map((w: any) => w.principal);
    expect(principals).toEqual(['user:dev@example.com']);
  });

  test('in strict mode too, the scenario API key is its owner’s principal', async () => {
    app = await testApp({ auth: 'strict' });
    await request(app).get('/mailboxes').set(bearer('sk_test_demo'));
    expect((await request(app).get('/__mock/requests')).body.items[0].principal).toBe('user:dev@example.com');
  });

  test('any other token in open mode is a principal of its own: key: and 24 hex digits (96 bits) of its SHA-256', async () => {
    app = await testApp();
    await request(app).get('/mailboxes').set(bearer('worker-7-token'));
    const sha = createHash('sha256').update('worker-7-token').digest('hex');
    const principals = (await request(app).get('/__mock/workspaces')).body.items.map((w: any) => w.principal);
    expect(principals).toEqual([`key:${sha.slice(0, 24)}`]);
  });

  test('an issued token and the same user’s second token share one workspace', async () => {
    app = await testApp();
    const t1 = (await token()).body.access_token;
    await request(app).post('/secrets').set(bearer(t1)).send({ name: 'SHARED', value: 'shared-value' });
    const t2 = (await token()).body.access_token;
    expect((await request(app).get('/secrets/SHARED?namespace=function_env').set(bearer(t2))).status).toBe(200);
  });
});

test('the memo of API-key principals answers what hashing would, and stays bounded', () => {
  const keyPrincipals = new Map<string, string>();
  const ctx: AuthContext = { mode: 'open', signingKey: Buffer.alloc(32), users: new Map(), apiKeys: new Map(), keyPrincipals };
  for (let i = 0; i < 5000; i++) {
    const t = `sk_memo_${i % 4500}`;
    expect(authenticate(`Bearer ${t}`, ctx)).toBe(keyPrincipal(t));
  }
  expect(keyPrincipals.size).toBeLessThanOrEqual(4096);
});
