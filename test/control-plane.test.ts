/** The /__mock control plane over HTTP: every endpoint, with good and bad input. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { keyPrincipal } from '../src/operations/auth.js';
import { bearer, multipart, testApp } from './helpers.js';

// A fresh app for each case, except within refusedRows(): see there.
let app: MockApp;
let shared: MockApp | undefined;
beforeEach(async () => {
  app = shared ?? (await testApp());
});
afterEach(async () => {
  if (app !== shared) await app.mock.close();
});

/**
 * Rows of input the control plane refuses share one app: a refusal changes nothing (the rows that
 * say so check it, and a change would meet the rows after it too), and making and warming an app
 * costs about 0.2 CPU-s.
 */
function refusedRows(rows: () => void) {
  describe('refused input (one app for the rows)', () => {
    beforeAll(async () => {
      shared = await testApp();
    });
    afterAll(async () => {
      const made = shared;
      shared = undefined;
      await made?.mock.close();
    });
    rows();
  });
}

const A = bearer('alice-token');
const B = bearer('bob-token');
const ALICE = keyPrincipal('alice-token');
const BOB = keyPrincipal('bob-token');
const cp = () => request(app);
const enc = encodeURIComponent;

describe('reset and scenario', () => {
  test('a reset of one principal leaves another untouched, even while both work in parallel', async () => {
    await Promise.all([
      cp().post('/secrets').set(A).send({ name: 'A1', value: 'alice-value' }),
      cp().post('/secrets').set(B).send({ name: 'B1', value: 'bob-value-1' }),
    ]);
    const [reset] = await Promise.all([
      cp().post(`/__mock/reset?principal=${enc(ALICE)}`),
      cp().post('/secrets').set(B).send({ name: 'B2', value: 'bob-value-2' }),
    ]);
    expect(reset.status).toBe(204);
    expect((await cp().get('/secrets').set(A)).body.items.map((s: any) => s.name)).toEqual(['OPENAI_API_KEY', 'SCRAPER_TOKEN']);
    expect((await cp().get('/secrets').set(B)).body.items.map((s: any) => s.name)).toEqual(['B1', 'B2', 'OPENAI_API_KEY', 'SCRAPER_TOKEN']);
  });

  test('a full reset restores every workspace and clears journal, faults and coverage', async () => {
    await cp().delete('/mailboxes/mbx_gmail').set(A);
    await cp().post('/__mock/faults').send({ operationId: 'getMailbox', status: 500 });
    expect((await cp().post('/__mock/reset')).status).toBe(204);
    expect((await cp().get('/mailboxes').set(A)).body.items).toHaveLength(2);
    expect((await cp().get('/__mock/faults')).body.items).toEqual([]);
    expect((await cp().get('/__mock/requests')).body.items.map((e: any) => e.operationId)).toEqual(['listMailboxes']);
  });

  test('switching the scenario answers its name and seed and resets', async () => {
    await cp().post('/secrets').set(A).send({ name: 'GONE', value: 'value-value' });
    const res = await cp().post('/__mock/scenario').send({ name: 'empty', seed: 7 });
    expect([res.status, res.body]).toEqual([200, { scenario: 'empty', seed: 7 }]);
    expect((await cp().get('/secrets').set(A)).body.items).toEqual([]);
  });

  refusedRows(() => {
    test.each([
      [{}, /exactly one of name .* and path/],
      [{ name: 'default', path: 'x.json' }, /exactly one of name/],
      [{ name: 'nope' }, /unknown scenario \\"nope\\": name is one of default/],
      [{ path: '/nowhere/x.json' }, /not found: no file \/nowhere\/x.json/],
      [{ name: 5 }, /string_type/],
      [{ name: 'empty', seed: 1.5 }, /int_from_float/],
    ])('a bad scenario switch %j is 422 and changes nothing', async (body, message) => {
      const res = await cp().post('/__mock/scenario').send(body);
      expect(res.status).toBe(422);
      expect(res.text).toMatch(message);
      expect((await cp().get('/mailboxes').set(A)).body.items).toHaveLength(2);
    });
  });
});

describe('workspaces', () => {
  test('lists principals with counts; expired files count', async () => {
    await cp().get('/mailboxes').set(A);
    app.mock.clock.advance(30 * 24 * 3600 * 1000);
    await cp().get('/mailboxes').set(bearer('later'));
    const res = await cp().get('/__mock/workspaces');
    expect(res.body.items.find((w: any) => w.principal === ALICE)).toEqual({ principal: ALICE, sessions: 3, files: 152, mailboxes: 2, secrets: 2 });
  });

  test('export → change → import restores the snapshot, secret values and upload bytes included', async () => {
    const up = await cp().post('/sessions/sess_empty/files').set(A).attach('file', Buffer.from('uploaded bytes'), 'u.txt');
    const snapshot = (await cp().get(`/__mock/workspaces/${enc(ALICE)}`)).body;
    expect(snapshot.secrets.find((s: any) => s.name === 'OPENAI_API_KEY').value).toMatch(/^sk-demo-/);
    expect(snapshot.mailboxes.find((m: any) => m.id === 'mbx_outlook').connection_healthy).toBe(false);
    await cp().delete('/mailboxes/mbx_gmail').set(A);
    await cp().delete(`/sessions/sess_empty/files/${up.body.id}`).set(A);
    expect((await cp().put(`/__mock/workspaces/${enc(ALICE)}`).send(snapshot)).status).toBe(204);
    expect((await cp().get('/mailboxes').set(A)).body.items).toHaveLength(2);
    const down = await cp().get(`/sessions/sess_empty/files/${up.body.id}`).set(A);
    expect([down.status, down.text]).toEqual([200, 'uploaded bytes']);
  });

  test('import takes file bytes as base64 and seeds a principal never seen', async () => {
    const res = await cp().put('/__mock/workspaces/key%3Afresh').send({
      sessions: [{ id: 'sess_x', actions: [{ type: 'goto', url: 'https://x.example' }], files: [{ id: 'file_x', filename: 'x.txt', mime_type: 'text/plain', size: 0, created_at: '2030-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z', source: 'user_upload', content_base64: Buffer.from('hello').toString('base64') }] }],
      mailboxes: [],
      secrets: [{ id: 'sec_x', namespace: 'function_env', name: 'X', value: 'x-secret-value', created_at: '2030-01-01T00:00:00Z' }],
    });
    expect(res.status).toBe(204);
    const exported = (await cp().get('/__mock/workspaces/key%3Afresh')).body;
    expect(exported.sessions[0].files[0]).toMatchObject({ size: 5, checksum: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' });
    expect(exported.secrets[0]).toMatchObject({ name: 'X', value: 'x-secret-value', key_hint: 'x-s***' });
  });

  refusedRows(() => {
    test.each([
      [{ sessions: [] }, 'missing'],
      [{ sessions: 'x', mailboxes: [], secrets: [] }, 'list_type'],
      [{ sessions: [{ id: 's', actions: [], files: [] }, { id: 's', actions: [], files: [] }], mailboxes: [], secrets: [] }, 'appears twice'],
      [{ sessions: [], mailboxes: [], secrets: [{ id: 'x', namespace: 'other', name: 'n', value: 'v', created_at: '2030-01-01T00:00:00Z' }] }, 'enum'],
    ])('a bad snapshot %j is 422', async (body, message) => {
      const res = await cp().put(`/__mock/workspaces/${enc(ALICE)}`).send(body);
      expect(res.status).toBe(422);
      expect(res.text).toContain(message);
    });
  });

  test('creates a session with actions, and refuses a duplicate id or an action without type', async () => {
    const res = await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions`).send({ id: 'sess_new', actions: [{ type: 'goto', url: 'https://a.example' }] });
    expect([res.status, res.body]).toEqual([201, { id: 'sess_new', actions: [{ type: 'goto', url: 'https://a.example' }] }]);
    expect((await cp().get('/sessions/sess_new/workflow/code').set(A)).body.json_actions).toEqual([{ type: 'goto', url: 'https://a.example' }]);
    expect((await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions`).send({ id: 'sess_new' })).status).toBe(409);
    expect((await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions`).send({ actions: [{ url: 'x' }] })).status).toBe(422);
    const generated = await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions`).send({});
    expect(generated.body).toEqual({ id: expect.stringMatching(/^sess_[0-9a-f]{16}$/), actions: [] });
  });

  test('connects a mailbox; the connection state shows at the next sync only', async () => {
    const made = await cp().post(`/__mock/workspaces/${enc(ALICE)}/mailboxes`).send({ email_address: 'qa@example.com', provider: 'gmail', healthy: true });
    expect(made.status).toBe(201);
    const id = made.body.id;
    const patched = await cp().patch(`/__mock/workspaces/${enc(ALICE)}/mailboxes/${id}/connection`).send({ healthy: false });
    expect([patched.status, patched.body.healthy]).toEqual([200, true]);
    const synced = await cp().post('/mailboxes/sync').set(A).send({ mailbox_id: id });
    expect(synced.body.items[0].healthy).toBe(false);
    expect((await cp().patch(`/__mock/workspaces/${enc(ALICE)}/mailboxes/mbx_nope/connection`).send({ healthy: true })).status).toBe(404);
    expect((await cp().patch(`/__mock/workspaces/${enc(ALICE)}/mailboxes/${id}/connection`).send({ healthy: 'perhaps' })).status).toBe(422);
    expect((await cp().post(`/__mock/workspaces/${enc(ALICE)}/mailboxes`).send({ provider: 'yahoo' })).status).toBe(422);
  });

  test('adds a session_download file as if the browser had downloaded it', async () => {
    const res = await cp()
      .post(`/__mock/workspaces/${enc(ALICE)}/sessions/sess_demo/files`)
      .set('Content-Type', 'multipart/form-data; boundary=zz')
      .send(multipart('zz', [{ name: 'file', filename: 'invoice.pdf', type: 'application/pdf', content: '%PDF-1.4' }]));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ source: 'session_download', filename: 'invoice.pdf', size: 8 });
    const listed = await cp().get('/sessions/sess_demo/files?source=session_download').set(A);
    expect(listed.body.files.map((f: any) => f.id)).toContain(res.body.id);
    const noFile = await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions/sess_demo/files`).set('Content-Type', 'multipart/form-data; boundary=zz').send(multipart('zz', []));
    expect(noFile.status).toBe(422);
    const noSession = await cp().post(`/__mock/workspaces/${enc(ALICE)}/sessions/sess_nope/files`).set('Content-Type', 'multipart/form-data; boundary=zz').send(multipart('zz', [{ name: 'file', filename: 'a', content: 'a' }]));
    expect(noSession.status).toBe(404);
  });
});

describe('journal', () => {
  test('newest first, filtered, and a stored secret’s value appears nowhere', async () => {
    await cp().post('/secrets').set(A).send({ name: 'DB_PASSWORD', value: 'correct-horse-battery' });
    await cp().get('/secrets/DB_PASSWORD?namespace=function_env').set(A);
    await cp().post('/token').type('form').send({ username: 'dev@example.com', password: 'password' });
    await cp().get('/mailboxes').set(B);
    await cp().get('/health');
    const all = await cp().get('/__mock/requests');
    expect(all.body.items.map((e: any) => e.operationId)).toEqual(['listMailboxes', 'createToken', 'getSecret', 'storeSecret']);
    expect(all.text).not.toContain('correct-horse-battery');
    expect(all.text).not.toContain('"password":"password"');
    const stored = all.body.items[3];
    expect(stored).toMatchObject({ method: 'POST', path: '/secrets', query: {}, principal: ALICE, status: 201, body: { name: 'DB_PASSWORD', value: '***' } });
    expect(all.body.items[2].query).toEqual({ namespace: 'function_env' });
    expect((await cp().get(`/__mock/requests?principal=${enc(BOB)}`)).body.items).toHaveLength(1);
    expect((await cp().get('/__mock/requests?status=201')).body.items.map((e: any) => e.operationId)).toEqual(['storeSecret']);
    expect((await cp().get('/__mock/requests?method=get&limit=1')).body.items.map((e: any) => e.operationId)).toEqual(['listMailboxes']);
    expect((await cp().get('/__mock/requests?since=2999-01-01T00:00:00Z')).body.items).toEqual([]);
    expect((await cp().get('/__mock/requests?path=/secrets')).body.items).toHaveLength(1);
  });

  test('uploads are journaled as name, size and checksum; bad filters are 422; DELETE clears', async () => {
    await cp().post('/sessions/sess_demo/files').set(A).attach('file', Buffer.from('bytes!'), 'b.bin');
    const e = (await cp().get('/__mock/requests')).body.items[0];
    expect(e.body).toEqual({ file: { filename: 'b.bin', size: 6, checksum: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect((await cp().get('/__mock/requests?limit=0')).status).toBe(422);
    expect((await cp().get('/__mock/requests?status=abc')).status).toBe(422);
    expect((await cp().get('/__mock/requests?since=yesterday')).status).toBe(422);
    expect((await cp().delete('/__mock/requests')).status).toBe(204);
    expect((await cp().get('/__mock/requests')).body.items).toEqual([]);
  });

  test('the journal is a ring buffer of --journal-size entries', async () => {
    const small = await testApp({ journalSize: 2 });
    try {
      for (let i = 0; i < 4; i++) await request(small).get('/mailboxes').set(A);
      expect((await request(small).get('/__mock/requests')).body.items.map((e: any) => e.id)).toEqual(['req_4', 'req_3']);
    } finally {
      await small.mock.close();
    }
  });
});

describe('clock', () => {
  test('set freezes; advance moves; reset returns to real time; files expire without sleeping', async () => {
    const f = (await cp().get('/sessions/sess_demo/files').set(A)).body.files[0];
    const set = await cp().post('/__mock/clock').send({ set: '2030-01-01T00:00:00Z' });
    expect(set.body).toMatchObject({ now: '2030-01-01T00:00:00Z', frozen: true });
    const adv = await cp().post('/__mock/clock').send({ advance: 'P1D' });
    expect(adv.body.now).toBe('2030-01-02T00:00:00Z');
    expect((await cp().post('/__mock/clock').send({ advance: 90 })).body.now).toBe('2030-01-02T00:01:30Z');
    expect((await cp().get(`/sessions/sess_demo/files/${f.id}`).set(A)).status).toBe(410);
    const reset = await cp().post('/__mock/clock/reset');
    expect(reset.body.frozen).toBe(false);
    expect(Math.abs(reset.body.offset_seconds)).toBeLessThan(1);
    expect((await cp().get(`/sessions/sess_demo/files/${f.id}`).set(A)).status).toBe(200);
  });

  test('an uploaded file expires after 8 days on a running clock moved forward', async () => {
    const up = await cp().post('/sessions/sess_demo/files').set(A).attach('file', Buffer.from('x'), 'x.txt');
    const moved = await cp().post('/__mock/clock').send({ advance: 'P8D' });
    expect([moved.body.frozen, Math.round(moved.body.offset_seconds)]).toEqual([false, 8 * 86400]);
    const res = await cp().get(`/sessions/sess_demo/files/${up.body.id}`).set(A);
    expect([res.status, res.body]).toEqual([410, { detail: 'File expired' }]);
  });

  refusedRows(() => {
    test.each([[{}], [{ set: 'soon' }], [{ advance: 'later' }], [{ set: '2030-01-01T00:00:00Z', advance: 5 }], [{ advance: true }]])('a bad clock request %j is 422', async (body) => {
      expect((await cp().post('/__mock/clock').send(body)).status).toBe(422);
    });
  });
});

describe('faults', () => {
  test('a fault with times: 2 answers twice, then the operation works again', async () => {
    const made = await cp().post('/__mock/faults').send({ operationId: 'listMailboxes', status: 503, times: 2 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ id: expect.any(String), status: 503, body: { detail: 'Service Unavailable' }, times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await cp().get('/mailboxes').set(A)).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await cp().get('/__mock/faults')).body.items).toEqual([]);
  });

  test('a fault comes before authentication and validation; body, headers and principal apply', async () => {
    await cp().post('/__mock/faults').send({ operationId: '*', status: 500, body: { error: 'boom' }, headers: { 'X-Trace': 't1' }, principal: BOB });
    expect((await cp().get('/mailboxes').set(A)).status).toBe(200);
    const res = await cp().get('/sessions/sess_demo/files?limit=0').set(B);
    expect([res.status, res.body, res.headers['x-trace']]).toEqual([500, { error: 'boom' }, 't1']);
  });

  test('a 429 without headers gets Retry-After: 1; a delay is honoured', async () => {
    await cp().post('/__mock/faults').send({ operationId: 'listSecrets', status: 429, delay_ms: 50, times: 1 });
    const started = Date.now();
    const res = await cp().get('/secrets').set(A);
    expect([res.status, res.headers['retry-after']]).toEqual([429, '1']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  test('status 0 drops the connection without an answer', async () => {
    await cp().post('/__mock/faults').send({ operationId: 'getMailbox', status: 0, times: 1 });
    await expect(cp().get('/mailboxes/mbx_gmail').set(A)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await cp().get('/mailboxes/mbx_gmail').set(A)).status).toBe(200);
    expect((await cp().get('/__mock/requests?operationId=getMailbox')).body.items.map((e: any) => e.status)).toEqual([200, 0]);
  });

  test('probability 0 never fires; DELETE one and DELETE all', async () => {
    const never = (await cp().post('/__mock/faults').send({ operationId: 'listSecrets', status: 500, probability: 0 })).body;
    expect((await cp().get('/secrets').set(A)).status).toBe(200);
    const other = (await cp().post('/__mock/faults').send({ operationId: 'getMailbox', status: 500 })).body;
    expect((await cp().delete(`/__mock/faults/${never.id}`)).status).toBe(204);
    expect((await cp().delete(`/__mock/faults/${never.id}`)).status).toBe(404);
    expect((await cp().get('/__mock/faults')).body.items.map((f: any) => f.id)).toEqual([other.id]);
    expect((await cp().delete('/__mock/faults')).status).toBe(204);
    expect((await cp().get('/__mock/faults')).body.items).toEqual([]);
  });

  refusedRows(() => {
    test.each([
      [{ operationId: 'nope', status: 500 }, /operationId must be \* or one of createToken/],
      [{ operationId: '*', status: 42 }, /status must be 0/],
      [{ operationId: '*', status: 700 }, /less_than_equal/],
      [{ operationId: '*' }, /missing/],
      [{ operationId: '*', status: 500, probability: 2 }, /less_than_equal/],
      [{ operationId: '*', status: 500, times: 0 }, /greater_than_equal/],
    ])('a bad fault %j is 422', async (body, message) => {
      const res = await cp().post('/__mock/faults').send(body);
      expect(res.status).toBe(422);
      expect(res.text).toMatch(message);
    });
  });
});

describe('Prefer', () => {
  test('Prefer: code=404 answers the documented 404 after validation passes', async () => {
    const res = await cp().get('/mailboxes/mbx_gmail').set(A).set('Prefer', 'code=404');
    expect([res.status, res.body, res.headers['preference-applied']]).toEqual([404, { detail: 'Mailbox not found' }, 'code=404']);
    expect((await cp().get('/sessions/sess_demo/files?limit=0').set(A).set('Prefer', 'code=404')).status).toBe(422);
    expect((await cp().get('/mailboxes/mbx_gmail').set('Prefer', 'code=404')).status).toBe(401);
  });

  test('Prefer: code=422 gives a valid validation error; an undocumented code is ignored with a warning', async () => {
    const res = await cp().post('/secrets').set(A).set('Prefer', 'code=422').send({ name: 'K', value: 'value-value' });
    expect([res.status, res.body]).toEqual([422, { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] }]);
    const ignored = await cp().get('/mailboxes').set(A).set('Prefer', 'code=418');
    expect(ignored.status).toBe(200);
    expect(ignored.headers['x-mock-warning']).toContain('Prefer code=418 ignored: not a documented response of listMailboxes');
  });

  test('Prefer: delay=MS waits', async () => {
    const started = Date.now();
    expect((await cp().get('/mailboxes').set(A).set('Prefer', 'delay=60')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });
});

describe('coverage', () => {
  test('counts answers per documented status and reports the share exercised', async () => {
    await cp().get('/mailboxes').set(A);
    await cp().get('/mailboxes').set(A);
    await cp().get('/mailboxes');
    await cp().get('/mailboxes/nope').set(A);
    const res = await cp().get('/__mock/coverage');
    const list = res.body.operations.find((o: any) => o.operationId === 'listMailboxes');
    expect(list).toEqual({ operationId: 'listMailboxes', method: 'GET', path: '/mailboxes', responses: { '200': 2, '401': 1, '422': 0 } });
    expect(res.body.exercised).toBe(3);
    expect(res.body.share).toBeCloseTo(3 / res.body.documented);
  });

  test('?format=junit is JUnit XML with unexercised responses skipped', async () => {
    await cp().get('/mailboxes').set(A);
    const res = await cp().get('/__mock/coverage?format=junit');
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(res.text).toContain('<testcase classname="GET /mailboxes" name="listMailboxes 200"><system-out>answered 1 time</system-out></testcase>');
    expect(res.text).toContain('<testcase classname="GET /mailboxes" name="listMailboxes 401"><skipped message="never answered"/></testcase>');
    expect((await cp().get('/__mock/coverage?format=xml')).status).toBe(422);
  });
});

describe('admin token and documents', () => {
  test('with --admin-token, /__mock refuses requests without it, and the service is unaffected', async () => {
    const guarded = await testApp({ adminToken: 'let-me-in' });
    try {
      const res = await request(guarded).get('/__mock/requests');
      expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([401, { detail: 'Not authenticated' }, 'Bearer']);
      expect((await request(guarded).get('/__mock/requests').set(bearer('wrong'))).status).toBe(401);
      expect((await request(guarded).get('/__mock/requests').set(bearer('let-me-in'))).status).toBe(200);
      expect((await request(guarded).get('/mailboxes').set(A)).status).toBe(200);
    } finally {
      await guarded.mock.close();
    }
  });

  test('GET /__mock/openapi.json describes every control-plane route, and unknown routes are 404', async () => {
    const doc = (await cp().get('/__mock/openapi.json')).body;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).length).toBeGreaterThanOrEqual(14);
    expect((await cp().get('/__mock/nope')).status).toBe(404);
  });

  test('control-plane requests are not journaled', async () => {
    await cp().get('/__mock/clock');
    await cp().get('/__mock/workspaces');
    expect((await cp().get('/__mock/requests')).body.items).toEqual([]);
  });
});
