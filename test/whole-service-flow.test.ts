/**
 * Issue 30 end to end over HTTP: the mock serving the project's own stand-in for the service's
 * whole document (test/fixtures/whole-service, written here, never copied from the service). A
 * client's real flow — start a session, upload to it, list its files, export its workflow code,
 * stop it — in open and strict auth mode; the 3.0 YAML variant; determinism across two runs;
 * the journal's redaction of password fields; and every added operation answering 2xx with a
 * valid body to requests sampled from its own schemas.
 */
import { afterAll, afterEach, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import type { MockApp } from '../src/app.js';
import type { MockOptions } from '../src/options.js';
import { createAjv } from '../src/primitives/ajv.js';
import { FIXTURES, ROOT, bearer, testApp } from './helpers.js';
import { resolve, sampleRequest, type Document, type SampledRequest } from './schema-sampler.js';

const DIR = join(FIXTURES, 'whole-service');
const SPEC = join(DIR, 'service.openapi.json');
const SPEC_30 = join(DIR, 'service-3.0.yaml');
const supplied: Document = JSON.parse(readFileSync(SPEC, 'utf8'));
const builtIn: Document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** An app serving the test document (`spec` is issue 30's option of createApp). */
const specApp = (options: MockOptions & { spec: string }) => testApp(options);

let apps: MockApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((a) => a.mock.close()));
  apps = [];
});
const start = async (options: MockOptions & { spec: string }) => {
  const app = await specApp(options);
  apps.push(app);
  return app;
};

/**
 * An ajv that validates against `doc` by JSON pointer, as the document's own schemas say. One per
 * document text, kept: compiling the document's schemas is most of a sampled run's CPU, a
 * compiled schema answers the same for every seed, and each app serves its document as a new
 * object (the 3.0 variant's served union, fetched once per seed, is compiled once).
 */
const validators = new Map<string, ReturnType<typeof compileValidator>>();
function validatorFor(doc: Document) {
  const text = JSON.stringify(doc);
  if (!validators.has(text)) validators.set(text, compileValidator(doc));
  return validators.get(text)!;
}
function compileValidator(doc: Document) {
  const ajv = createAjv({ allErrors: true });
  ajv.addSchema(doc, 'doc.json');
  const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  return (parts: string[], value: unknown) => {
    const validate = ajv.getSchema(`doc.json#/${pointer(...parts)}`)!;
    return validate(value) ? [] : validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}

const journal = async (app: MockApp, operationId: string) =>
  (await request(app).get('/__mock/requests').query({ operationId })).body.items as any[];

describe.each(['open', 'strict'] as const)('a client flow across the whole document (--auth %s)', (auth) => {
  async function credentials(app: MockApp) {
    if (auth === 'open') return bearer('sk_test_whole_flow');
    const res = await request(app).post('/token').type('form').send({ username: 'dev@example.com', password: 'password', grant_type: 'password' });
    expect(res.status).toBe(200);
    return bearer(res.body.access_token);
  }

  test('start a session, upload a file to it, list its files, export its workflow code, stop it', async () => {
    const app = await start({ spec: SPEC, auth });
    const AUTH = await credentials(app);

    const started = await request(app).post('/sessions/start').set(AUTH).send({ headless: false, proxies: [{ server: 'http://proxy.test:3128' }], region: 'eu-central' });
    expect(started.status).toBe(200);
    const id = started.body.session_id;
    expect(id).toMatch(/^sess_[0-9a-f]{16}$/);
    // Fit to the request: the sent value where it is valid for the answer field, not where it is not.
    expect([started.body.headless, started.body.region, typeof started.body.proxies]).toEqual([false, 'eu-central', 'boolean']);

    const uploaded = await request(app).post(`/sessions/${id}/files`).set(AUTH).attach('file', Buffer.from('a,b\n1,2\n'), 'rows.csv');
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ session_id: id, filename: 'rows.csv', size: 8, source: 'user_upload' });

    const listed = await request(app).get(`/sessions/${id}/files`).set(AUTH);
    expect(listed.status).toBe(200);
    expect([listed.body.total, listed.body.files.map((f: any) => f.id)]).toEqual([1, [uploaded.body.id]]);

    const code = await request(app).get(`/sessions/${id}/workflow/code`).set(AUTH);
    expect(code.status).toBe(200);
    expect(typeof code.body.python_script).toBe('string');
    expect(Array.isArray(code.body.json_actions)).toBe(true);

    const stopped = await request(app).delete(`/sessions/${id}/stop`).set(AUTH);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ session_id: id, status: 'stopped' });

    const ids = (await request(app).get('/__mock/requests')).body.items.map((e: any) => e.operationId).reverse();
    expect(ids).toEqual([...(auth === 'strict' ? ['createToken'] : []), 'session_start', 'uploadSessionFile', 'listSessionFiles', 'getSessionScript', 'session_stop']);
  });

  test('the started session is in the caller’s workspace, and only there', async () => {
    const app = await start({ spec: SPEC, auth });
    const AUTH = await credentials(app);
    const id = (await request(app).post('/sessions/start').set(AUTH).send({})).body.session_id;
    const principal = (await request(app).post('/__mock/principal').send({ token: AUTH.Authorization.slice('Bearer '.length) })).body.principal;
    const snapshot = (await request(app).get(`/__mock/workspaces/${encodeURIComponent(principal)}`)).body;
    expect(snapshot.sessions.filter((s: any) => s.id === id)).toEqual([expect.objectContaining({ id, actions: [] })]);
    // Another caller does not see it (strict has no second user, so this is open mode's).
    if (auth === 'open') expect((await request(app).get(`/sessions/${id}/files`).set(bearer('sk_test_someone_else'))).status).toBe(404);
  });

  test('an added operation checks credentials as the built-in ones do', async () => {
    const app = await start({ spec: SPEC, auth });
    expect((await request(app).post('/sessions/start').send({})).status).toBe(401);
    const madeUp = (await request(app).post('/sessions/start').set(bearer('made-up-token')).send({})).status;
    expect(madeUp).toBe(auth === 'strict' ? 401 : 200);
    // An open operation (security: []) needs nothing.
    expect((await request(app).get('/usage/pricing')).status).toBe(200);
  });
});

test('an open operation answering a session_id starts no session', async () => {
  const app = await start({ spec: SPEC });
  const res = await request(app).post('/scrape/quick').send({ url: 'https://example.test/' });
  expect(res.status).toBe(200);
  expect(typeof res.body.session_id).toBe('string');
  expect((await request(app).get(`/sessions/${encodeURIComponent(res.body.session_id)}/files`).set(bearer('sk_test_whole_flow'))).status).toBe(404);
});

test('the 3.0 YAML variant serves the same flow, read with 3.1’s meaning', async () => {
  const app = await start({ spec: SPEC_30 });
  const AUTH = bearer('sk_test_whole_30');
  const started = await request(app).post('/sessions/start').set(AUTH).send({ headless: false, timeout_minutes: null, region: null });
  expect(started.status).toBe(200);
  const id = started.body.session_id;
  expect(id).toMatch(/^sess_[0-9a-f]{16}$/);
  expect((await request(app).post(`/sessions/${id}/files`).set(AUTH).attach('file', Buffer.from('x'), 'x.txt')).status).toBe(201);
  expect((await request(app).get(`/sessions/${id}/files`).set(AUTH)).body.total).toBe(1);
  expect((await request(app).delete(`/sessions/${id}/stop`).set(AUTH)).body).toMatchObject({ session_id: id, status: 'stopped' });
  // 3.0's boolean exclusiveMinimum beside minimum 0: limit 0 is out, 1 is in.
  expect((await request(app).get('/sessions?limit=0').set(AUTH)).status).toBe(422);
  expect((await request(app).get('/sessions?limit=1').set(AUTH)).status).toBe(200);
  // A format: binary part is a file part.
  const upload = await request(app).post('/storage/files').set(AUTH).field('purpose', 'extension').attach('file', Buffer.from('zip'), 'ext.zip');
  expect(upload.status).toBe(201);
  // The documented (singular) example is the answer.
  expect((await request(app).get('/usage/pricing')).body).toEqual({ currency: 'USD', price_per_hour: 0.25 });
  // The served document is 3.1: nullable became anyOf with null, and every answer above is valid for it.
  const served = (await request(app).get('/openapi.json')).body;
  expect(served.openapi).toMatch(/^3\.1\./);
  expect(JSON.stringify(served)).not.toContain('"nullable"');
  const check = validatorFor(served);
  const startSchema = ['paths', '/sessions/start', 'post', 'responses', '200', 'content', 'application/json', 'schema'];
  expect(check(startSchema, started.body)).toEqual([]);
  expect(check(startSchema, { ...started.body, expires_at: null, region: null })).toEqual([]);
});

describe('determinism', () => {
  /** The same requests, in the same order, on a fresh app with a frozen clock; every answer's status and body. */
  async function run(seed: number) {
    const app = await start({ spec: SPEC, seed });
    expect((await request(app).post('/__mock/clock').send({ set: '2026-03-01T12:00:00Z' })).status).toBe(200);
    const AUTH = bearer('sk_test_determinism');
    const answers: unknown[] = [];
    const keep = (res: request.Response) => answers.push([res.status, res.headers['content-type'] ?? null, res.body instanceof Buffer ? res.body.toString('base64') : res.body]);
    keep(await request(app).post('/sessions/start').set(AUTH).send({ headless: true }));
    keep(await request(app).post('/sessions/start').set(AUTH).send({ headless: false, region: 'us-east' }));
    keep(await request(app).get('/sessions/sess_given/page/dom?depth=3').set(AUTH));
    keep(await request(app).get('/storage/files?limit=5').set(AUTH));
    keep(await request(app).post('/agents/run').set(AUTH).send({ task: { type: 'extract', url: 'https://example.test/', fields: ['title'] } }));
    keep(await request(app).get('/sessions/sess_given/screenshot').set(AUTH).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    }));
    keep(await request(app).post('/vaults/v1/credentials').set(AUTH).send({ name: 'shop', username: 'u', password: 'p' }));
    return answers;
  }

  /** One run of seed 7 for every test here that needs one (the first test makes a second). */
  let sevenOnce: Promise<unknown[]> | undefined;
  const seven = () => (sevenOnce ??= run(7));

  test('two fresh apps with the same seed answer the same requests with the same bodies', async () => {
    const [first, second] = [await seven(), await run(7)];
    expect(first.filter((a: any) => a[0] < 200 || a[0] >= 300)).toEqual([]);
    expect(second).toEqual(first);
  });

  test('another seed answers other values', async () => {
    expect(await run(8)).not.toEqual(await seven());
  });

  test('two sessions started in one run get distinct ids', async () => {
    const [a, b] = (await seven()).slice(0, 2).map((x: any) => x[2].session_id);
    expect(a).not.toBe(b);
  });
});

describe('the journal redacts password fields of added operations', () => {
  test('format password and writeOnly fields are "***", the rest as sent', async () => {
    const app = await start({ spec: SPEC });
    const AUTH = bearer('sk_test_redaction');
    const sent = { name: 'shop', username: 'alice@example.test', password: 'hunter2-do-not-log', totp_secret: 'JBSWY3DPEHPK3PXP', domains: ['shop.test'] };
    expect((await request(app).post('/vaults/vlt_1/credentials').set(AUTH).send(sent)).status).toBe(201);
    const [entry] = await journal(app, 'vault_credentials_add');
    expect(entry.body).toEqual({ ...sent, password: '***', totp_secret: '***' });
    expect(JSON.stringify((await request(app).get('/__mock/requests')).body)).not.toContain('hunter2-do-not-log');
  });

  test('a password nested in a union member of the request is redacted too', async () => {
    const app = await start({ spec: SPEC });
    const res = await request(app)
      .post('/sessions/start')
      .set(bearer('sk_test_redaction'))
      .send({ proxies: [{ server: 'http://proxy.test:3128', username: 'p', password: 'proxy-pass-do-not-log' }] });
    expect(res.status).toBe(200);
    const [entry] = await journal(app, 'session_start');
    expect(entry.body.proxies).toEqual([{ server: 'http://proxy.test:3128', username: 'p', password: '***' }]);
  });
});

describe('every added operation, sent a request sampled from its own schemas, answers 2xx with a valid body', () => {
  const mockOwn = (path: string) => ['/health', '/openapi.json', '/docs', '/'].includes(path) || path.startsWith('/__mock');
  /** What the union adds: the supplied operations the built-in document and the mock's own paths do not shadow. */
  const addedBy = (doc: Document) =>
    Object.entries<any>(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m] && !builtIn.paths[path]?.[m] && !mockOwn(path)).map((m) => [m, path] as [string, string]));
  const added = addedBy(supplied);
  const SEEDS = [1, 2, 3, 4, 5];

  test('the test document adds at least 60 operations (the size of the service’s)', () => {
    expect(added.length).toBeGreaterThanOrEqual(60);
  });

  /** Sends a sampled request with the credentials its operation's security asks for. */
  function send(app: MockApp, doc: Document, r: SampledRequest) {
    const operation = doc.paths[r.template][r.method];
    const security: any[] = operation.security ?? doc.security ?? [];
    let req = (request(app) as any)[r.method](r.path).query(r.query);
    if (security.some((s) => 'bearerAuth' in s)) req = req.set(bearer('sk_test_every_operation'));
    if (security.some((s) => 'apiKeyAuth' in s)) req = req.set('x-api-key', 'sk_test_every_operation');
    if (r.multipart) {
      for (const [name, value] of Object.entries(r.multipart)) req = Buffer.isBuffer(value) ? req.attach(name, value, `${name}.bin`) : req.field(name, value);
    } else if (r.body !== undefined) req = req.send(r.body);
    return req.buffer(true).parse((res: any, done: any) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  }

  /**
   * Every added operation of `doc` once, sampled with `seed`: what went wrong, one line each.
   * Answers are validated against `valid` (the document in 3.1's words); samples too, when
   * `checkSamples` (a 3.0 document's schemas are not JSON Schema 2020-12).
   */
  async function everyAdded(app: MockApp, doc: Document, valid: Document, seed: number, checkSamples: boolean) {
    const check = validatorFor(valid);
    const problems: string[] = [];
    for (const [method, path] of addedBy(doc)) {
      const r = sampleRequest(doc, path, method, seed);
      const label = `${method.toUpperCase()} ${r.path} (${r.operationId ?? 'no operationId'})`;
      const operation = doc.paths[path][method];
      // The sample itself must be valid, or the sampler is wrong (not the mock).
      const bodyContent = resolve(doc, operation.requestBody ?? {}).content;
      if (checkSamples && r.body !== undefined && bodyContent?.['application/json']) {
        const sampleErrors = check(['paths', path, method, 'requestBody', 'content', 'application/json', 'schema'], r.body);
        expect([label, sampleErrors]).toEqual([label, []]);
      }
      const res = await send(app, doc, r);
      const codes = Object.keys(operation.responses).filter((c) => /^2\d\d$/.test(c)).sort();
      if (res.status !== Number(codes[0])) {
        problems.push(`${label}: ${res.status} (expected ${codes[0]}) ${res.body.toString('utf8').slice(0, 300)}`);
        continue;
      }
      const content = resolve(doc, operation.responses[codes[0]]).content;
      if (!content) {
        if (res.body.length) problems.push(`${label}: a ${res.status} with a body`);
        continue;
      }
      const [mediaType] = Object.keys(content);
      if (!String(res.headers['content-type']).startsWith(mediaType)) problems.push(`${label}: content-type ${res.headers['content-type']}, documented ${mediaType}`);
      if (mediaType !== 'application/json') continue;
      const errors = check(['paths', path, method, 'responses', codes[0], 'content', mediaType, 'schema'], JSON.parse(res.body.toString('utf8')));
      if (errors.length) problems.push(`${label}: ${errors.join('; ')}`);
    }
    return problems;
  }

  /**
   * One app per document for every seed, kept for this block: the first seed is the app's own
   * option, each next one a scenario switch (`POST /__mock/scenario` with the seed: every
   * workspace reset, answers from that seed, as a fresh app with it). A fresh app per seed built
   * the union and compiled each operation's validators again, most of this file's CPU; none of
   * these cases depends on anything but the seed and an empty workspace.
   */
  const seeded = new Map<string, MockApp>();
  afterAll(async () => {
    await Promise.all([...seeded.values()].map((a) => a.mock.close()));
  });
  async function appSeeded(spec: string, seed: number) {
    let app = seeded.get(spec);
    if (!app) {
      app = await specApp({ spec, seed });
      seeded.set(spec, app);
      return app;
    }
    const switched = await request(app).post('/__mock/scenario').send({ name: 'default', seed });
    expect([switched.status, switched.body]).toEqual([200, { scenario: 'default', seed }]);
    return app;
  }

  test.each(SEEDS)('seed %i', async (seed) => {
    const app = await appSeeded(SPEC, seed);
    expect(await everyAdded(app, supplied, supplied, seed, true)).toEqual([]);
  });

  test.each(SEEDS)('the 3.0 YAML variant, seed %i (answers valid for the served 3.1 union)', async (seed) => {
    const app = await appSeeded(SPEC_30, seed);
    const doc30: Document = parseYaml(readFileSync(SPEC_30, 'utf8'));
    const served = (await request(app).get('/openapi.json')).body;
    expect(addedBy(doc30).length).toBeGreaterThan(5);
    expect(await everyAdded(app, doc30, served, seed, false)).toEqual([]);
  });

  test('a union member’s optional type discriminator is always in the answer', async () => {
    const app = await start({ spec: SPEC });
    for (const seed of SEEDS) {
      const r = sampleRequest(supplied, '/sessions/start', 'post', seed);
      const res = await request(app).post('/sessions/start').set(bearer(`sk_test_seed_${seed}`)).send(r.body as object);
      expect(['chromium', 'firefox']).toContain(res.body.browser.type);
    }
  });
});
