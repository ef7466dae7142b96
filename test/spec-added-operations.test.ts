/**
 * --spec, the operations a supplied document adds (issue 30, items 4, 6 and 7) as a client meets
 * them over HTTP: their security in open and strict mode, FastAPI's 422 with Pydantic's types,
 * a multipart body read and discarded, a session the service started that then exists for the
 * fifteen, the journal's redaction of password and writeOnly fields, faults and coverage.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { bearer, FIXTURES, testApp } from './helpers.js';

const DOC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const DEMO = bearer('sk_test_demo');
/** The principal of the default scenario's API key (its owner's). */
const DEMO_PRINCIPAL = 'user:dev@example.com';

describe('security', () => {
  let open: MockApp;
  let strict: MockApp;
  beforeAll(async () => {
    [open, strict] = await Promise.all([testApp({ spec: DOC }), testApp({ spec: DOC, auth: 'strict' })]);
  });
  afterAll(() => Promise.all([open.mock.close(), strict.mock.close()]));

  test.each([
    ['open', 'no credentials', {}, 401, 'Not authenticated'],
    ['open', 'any bearer token', bearer('anything'), 200, undefined],
    ['strict', 'an unknown bearer token', bearer('anything'), 401, 'Could not validate credentials'],
    ['strict', "the scenario's API key", DEMO, 200, undefined],
  ] as const)('%s mode, document-wide HTTP bearer (the 401 undocumented by the operation, response validation on), %s', async (mode, _what, headers, status, detail) => {
    const res = await request(mode === 'open' ? open : strict).get('/sessions/active').set(headers);
    expect(res.status).toBe(status);
    if (detail) expect(res.body).toEqual({ detail });
  });

  test.each([
    ['open', 'no key', {}, 401],
    ['open', 'a bearer token where the key header is wanted', bearer('anything'), 401],
    ['open', 'any key in x-api-key', { 'x-api-key': 'k1' }, 200],
    ['strict', 'an unknown key', { 'x-api-key': 'k1' }, 401],
    ['strict', "the scenario's API key in x-api-key", { 'x-api-key': 'sk_test_demo' }, 200],
  ] as const)('%s mode, apiKey in a header, %s', async (mode, _what, headers, status) => {
    const res = await request(mode === 'open' ? open : strict).post('/functions/f1/invoke').set(headers).send({});
    expect(res.status).toBe(status);
  });

  test('an API key in a header is the same principal as the same token as a bearer', async () => {
    await request(open).post('/functions/f1/invoke').set('x-api-key', 'sk_test_demo').send({});
    const entry = (await request(open).get('/__mock/requests?limit=1')).body.items[0];
    expect(entry.principal).toBe(DEMO_PRINCIPAL);
  });

  test.each(['open', 'strict'] as const)('an operation with security: [] answers anyone in %s mode', async (mode) => {
    const res = await request(mode === 'open' ? open : strict).get('/usage/pricing');
    expect(res.status).toBe(200);
  });
});

describe('requests', () => {
  let app: MockApp;
  beforeAll(async () => {
    app = await testApp({ spec: DOC });
  });
  afterAll(() => app.mock.close());

  test("a body the schema refuses is FastAPI's 422: detail of type, loc, msg, input", async () => {
    const res = await request(app).post('/sessions/start').set(DEMO).send({ headless: 'maybe', timeout_minutes: 0 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: 'bool_parsing', loc: ['body', 'headless'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' },
      expect.objectContaining({ loc: ['body', 'timeout_minutes'], input: 0 }),
    ]);
  });

  test('a discriminated union with an unknown tag is one union_tag_invalid at the union', async () => {
    const res = await request(app).post('/agents/run').set(DEMO).send({ task: { type: 'fly', instruction: 'x' } });
    expect([res.status, res.body.detail]).toEqual([
      422,
      [
        {
          type: 'union_tag_invalid',
          loc: ['body', 'task'],
          msg: "Input tag 'fly' found using 'type' does not match any of the expected tags: 'browse', 'extract'",
          input: { type: 'fly', instruction: 'x' },
          ctx: { discriminator: "'type'", tag: 'fly', expected_tags: "'browse', 'extract'" },
        },
      ],
    ]);
  });

  test('a discriminated union without its tag is one union_tag_not_found (a default does not count)', async () => {
    const res = await request(app).post('/agents/run').set(DEMO).send({ task: { instruction: 'x' } });
    expect([res.status, res.body.detail]).toEqual([
      422,
      [{ type: 'union_tag_not_found', loc: ['body', 'task'], msg: "Unable to extract tag using discriminator 'type'", input: { instruction: 'x' }, ctx: { discriminator: "'type'" } }],
    ]);
  });

  test("a valid tag is checked against its own member only, the tag in the error's location as Pydantic puts it", async () => {
    const res = await request(app).post('/agents/run').set(DEMO).send({ task: { type: 'browse' } });
    expect([res.status, res.body.detail]).toEqual([422, [{ type: 'missing', loc: ['body', 'task', 'browse', 'instruction'], msg: 'Field required', input: { type: 'browse' } }]]);
  });

  test('a multipart upload with a contentMediaType file part is read, checked and answered', async () => {
    const ok = await request(app).post('/storage/files').set(DEMO).field('purpose', 'extension').attach('file', Buffer.from('zip bytes'), 'ext.zip');
    expect(ok.status).toBe(201);
    const missing = await request(app).post('/storage/files').set(DEMO).attach('file', Buffer.from('zip bytes'), 'ext.zip');
    expect([missing.status, missing.body.detail.map((d: any) => [d.type, d.loc])]).toEqual([422, [['missing', ['body', 'purpose']]]]);
  });

  test('the upload of an added operation is discarded, not kept in any workspace', async () => {
    const before = (await request(app).get('/__mock/workspaces')).body.items.find((w: any) => w.principal === DEMO_PRINCIPAL).files;
    await request(app).post('/storage/files').set(DEMO).field('purpose', 'extension').attach('file', Buffer.from('more bytes'), 'b.zip');
    expect((await request(app).get('/__mock/workspaces')).body.items.find((w: any) => w.principal === DEMO_PRINCIPAL).files).toBe(before);
  });

  test('a binary answer goes out as bytes of its documented type (response validation on)', async () => {
    const res = await request(app).get('/sessions/sess_1/screenshot').set(DEMO).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'image/png']);
    expect((res.body as Buffer).length).toBeGreaterThan(0);
  });

  test("a multipart body the mock cannot parse is its own 400, not a response-validation 500", async () => {
    const res = await request(app).post('/storage/files').set(DEMO).set('Content-Type', 'multipart/form-data; boundary=zz').send('{');
    expect(res.status).toBe(400);
  });

  test('a body that is not JSON is a 422 json_invalid, never a 5xx', async () => {
    const res = await request(app).post('/sessions/start').set(DEMO).set('Content-Type', 'application/json').send('{"headless": ');
    expect([res.status, res.body.detail[0].type]).toEqual([422, 'json_invalid']);
  });

  test('the journal redacts a format: password field and a writeOnly one, at any depth of the body', async () => {
    await request(app).post('/vaults/v_1/credentials').set(DEMO).send({ name: 'github', username: 'octo', password: 'hunter2', totp_secret: 'JBSWY3DP' });
    const entry = (await request(app).get('/__mock/requests?limit=1')).body.items[0];
    expect(entry.operationId).toBe('vault_credentials_add');
    expect(entry.body).toEqual({ name: 'github', username: 'octo', password: '***', totp_secret: '***' });
    expect(JSON.stringify((await request(app).get('/__mock/requests')).body)).not.toMatch(/hunter2|JBSWY3DP/);
  });
});

describe('a session the service started', () => {
  let app: MockApp;
  beforeAll(async () => {
    app = await testApp({ spec: DOC });
  });
  afterAll(() => app.mock.close());

  test('exists for upload, listing and workflow export, in the workspace snapshot too', async () => {
    const started = await request(app).post('/sessions/start').set(DEMO).send({ headless: false });
    expect(started.status).toBe(200);
    const id = started.body.session_id;
    expect(id).toMatch(/^sess_[0-9a-f]{16}$/);
    const up = await request(app).post(`/sessions/${id}/files`).set(DEMO).attach('file', Buffer.from('hello'), 'hello.txt');
    expect([up.status, up.body.session_id]).toEqual([201, id]);
    const list = await request(app).get(`/sessions/${id}/files`).set(DEMO);
    expect([list.status, list.body.files.map((f: any) => f.filename)]).toEqual([200, ['hello.txt']]);
    expect((await request(app).get(`/sessions/${id}/workflow/code`).set(DEMO)).status).toBe(200);
    const snapshot = (await request(app).get(`/__mock/workspaces/${encodeURIComponent(DEMO_PRINCIPAL)}`)).body;
    expect(snapshot.sessions.map((s: any) => s.id)).toContain(id);
    expect((await request(app).delete(`/sessions/${id}/stop`).set(DEMO)).status).toBe(200);
  });

  test('only in the caller\'s workspace: another principal still gets 404 for it', async () => {
    const id = (await request(app).post('/sessions/start').set(DEMO).send({})).body.session_id;
    const other = await request(app).get(`/sessions/${id}/files`).set(bearer('someone-else'));
    expect([other.status, other.body]).toEqual([404, { detail: 'Session not found' }]);
  });

  test('an answer carrying the session the client named makes that one exist, once', async () => {
    const run = { task: { type: 'browse', instruction: 'look' }, session_id: 'sess_named_by_client' };
    const first = await request(app).post('/agents/run').set(DEMO).send(run);
    expect([first.status, first.body.session_id]).toEqual([200, 'sess_named_by_client']);
    await request(app).post('/agents/run').set(DEMO).send(run);
    const snapshot = (await request(app).get(`/__mock/workspaces/${encodeURIComponent(DEMO_PRINCIPAL)}`)).body;
    expect(snapshot.sessions.filter((s: any) => s.id === 'sess_named_by_client')).toEqual([expect.objectContaining({ id: 'sess_named_by_client', actions: [] })]);
    expect((await request(app).get('/sessions/sess_named_by_client/files').set(DEMO)).status).toBe(200);
  });

  test('a session the service started survives a restart of a file-backed mock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cbm-spec-data-'));
    try {
      const first = await testApp({ spec: DOC, dataDir: dir });
      const id = (await request(first).post('/sessions/start').set(DEMO).send({})).body.session_id;
      await first.mock.close();
      const again = await testApp({ spec: DOC, dataDir: dir });
      try {
        expect((await request(again).get(`/sessions/${id}/files`).set(DEMO)).status).toBe(200);
      } finally {
        await again.mock.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a session that does not exist stays 404 for the fifteen', async () => {
    const res = await request(app).get('/sessions/sess_never_started/files').set(DEMO);
    expect(res.status).toBe(404);
  });
});

describe('Prefer on an added operation', () => {
  let app: MockApp;
  beforeAll(async () => {
    app = await testApp({ spec: DOC });
  });
  afterAll(() => app.mock.close());

  test('code=N picks a documented status, answered with a body for it', async () => {
    const res = await request(app).get('/sessions/sess_1').set(DEMO).set('Prefer', 'code=404');
    expect(res.status).toBe(404);
    expect(res.headers['x-mock-warning']).toBeUndefined();
  });

  test('code=N the operation does not document is ignored, and the answer says why', async () => {
    const res = await request(app).post('/sessions/start').set(DEMO).set('Prefer', 'code=409').send({});
    expect(res.status).toBe(200);
    expect(res.headers['x-mock-warning']).toMatch(/code=409.*session_start/);
  });

  test('example=NAME answers that named example', async () => {
    const named = JSON.parse(readFileSync(DOC, 'utf8')).paths['/personas/{persona_id}'].get.responses['200'].content['application/json'].examples.minimal.value;
    const res = await request(app).get('/personas/per_minimal').set(DEMO).set('Prefer', 'example=minimal');
    expect([res.status, res.body]).toEqual([200, named]);
  });
});

describe('faults and coverage across the union', () => {
  let app: MockApp;
  beforeAll(async () => {
    app = await testApp({ spec: DOC });
  });
  afterAll(() => app.mock.close());

  test('a fault may name an added operation, and fires before authentication', async () => {
    const fault = await request(app).post('/__mock/faults').send({ operationId: 'session_stop', status: 503, times: 1 });
    expect(fault.status).toBe(201);
    expect((await request(app).delete('/sessions/sess_x/stop')).status).toBe(503);
    expect((await request(app).delete('/sessions/sess_x/stop').set(DEMO)).status).toBe(200);
  });

  test('coverage lists every operation of the union and counts an added one, in JUnit too', async () => {
    await request(app).get('/usage/pricing');
    const report = (await request(app).get('/__mock/coverage')).body;
    const ids = report.operations.map((o: any) => o.operationId);
    expect(ids).toEqual(expect.arrayContaining(['listSessionFiles', 'session_start', 'usage_pricing', 'debug_echo_debug_echo_post']));
    expect(ids).not.toContain('health_check');
    expect(report.operations.find((o: any) => o.operationId === 'usage_pricing').responses).toEqual({ 200: 1 });
    const junit = (await request(app).get('/__mock/coverage?format=junit')).text;
    expect(junit).toContain('name="usage_pricing 200"');
  });
});
