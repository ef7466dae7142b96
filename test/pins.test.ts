/**
 * Pinned answers (issue 30, item 5) over HTTP: `/__mock/pins` (add with times, list, remove,
 * clear; what it refuses), a scenario file's `pins` (valid, invalid, a reset brings them back),
 * and pins answering requests of the operations a --spec document adds — after authentication
 * and validation, before Prefer.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import type { MockOptions } from '../src/options.js';
import { FIXTURES, ROOT, bearer, testApp } from './helpers.js';
import { codeBlocks, section } from './doc-pages.js';
import { readScenarioFile } from '../src/scenarios/scenario.js';

/** The project's own stand-in for the service's published document (test/fixtures/whole-service). */
const SPEC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const withSpec = (options: MockOptions = {}) => testApp({ spec: SPEC, ...options } as MockOptions);
const AUTH = bearer('sk_test_demo');
const DEMO = 'user:dev@example.com';
const PRICING = { currency: 'USD', plans: [{ name: 'pinned plan', credits_per_hour: 2.5 }] };
const GONE = { detail: 'Session sess_gone not found' };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-pins-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A scenario file (the empty scenario's user and key) with these pins; returns its path. */
function scenarioWithPins(name: string, pins: unknown): string {
  const file = join(dir, `${name}.json`);
  const scenario = {
    name,
    generated_at: '2025-01-01T00:00:00Z',
    users: [{ username: 'dev@example.com', password: 'password' }],
    api_keys: [{ key: 'sk_test_demo', owner: 'dev@example.com' }],
    sessions: [],
    mailboxes: [],
    secrets: [],
    pins,
  };
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

let app: MockApp | undefined;
afterEach(async () => {
  await app?.mock.close();
  app = undefined;
});

describe('what /__mock/pins refuses, without --spec', () => {
  test.each([
    ['a built-in operation', { operationId: 'listSessionFiles', status: 200, body: { files: [] } }, /operationId "listSessionFiles" is one of the mock's built-in operations, which keep state \(add a fault with POST \/__mock\/faults/],
    ['any other operation, when no document adds one', { operationId: 'session_stop', status: 200 }, /unknown operationId "session_stop": the served document adds no operations to pin \(start the mock with --spec/],
  ])('a pin for %s is a 422 saying why, and nothing is pinned', async (_what, spec, detail) => {
    app = await testApp();
    const res = await request(app).post('/__mock/pins').send(spec);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(detail);
    expect((await request(app).get('/__mock/pins')).body).toEqual({ items: [] });
  });

  test.each([
    [{ status: 200 }, 'missing', ['body', 'operationId']],
    [{ operationId: 'x', status: 700 }, 'less_than_equal', ['body', 'status']],
    [{ operationId: 'x', status: 200, times: 0 }, 'greater_than_equal', ['body', 'times']],
    // A misspelt field is refused, not ignored (the pin would match more than meant).
    [{ operationId: 'x', status: 200, path_param: { a: 'b' } }, undefined, ['body', 'path_param']],
  ])('a malformed pin %j is a 422 with Pydantic-style errors', async (spec, type, loc) => {
    app = await testApp();
    const res = await request(app).post('/__mock/pins').send(spec);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining(type ? { type, loc } : { loc })]);
  });

  test('removing a pin that does not exist is a 404 naming it', async () => {
    app = await testApp();
    const res = await request(app).delete('/__mock/pins/pin_41');
    expect([res.status, res.body]).toEqual([404, { detail: 'Pin pin_41 not found' }]);
  });
});

describe("a scenario file's pins", () => {
  test.each([
    ['a status out of range', [{ operationId: 'session_stop', status: 99 }], /\$\.pins\[0\]\.status must be >= 200/],
    ['a pin without its operation', [{ status: 200 }], /\$\.pins\[0\] must have required property 'operationId'/],
    ['a misspelt field', [{ operationId: 'session_stop', status: 200, time: 1 }], /\$\.pins\[0\] must NOT have additional properties/],
    ['times of 0', [{ operationId: 'session_stop', status: 200, times: 0 }], /\$\.pins\[0\]\.times must be >= 1/],
    ['a built-in operation', [{ operationId: 'listSecrets', status: 200 }], /\$\.pins\[0\] operationId "listSecrets" is one of the mock's built-in operations/],
  ])('with %s stop start-up with one line naming the file and the pin', async (_what, pins, message) => {
    const file = scenarioWithPins('bad-pins', pins);
    const started = testApp({ scenario: file });
    await expect(started).rejects.toThrow(message);
    await expect(testApp({ scenario: file })).rejects.toThrow(`scenario file ${file}`);
  });

  test('the command exits 2 with one line when a pin names a built-in operation, and makes no data directory', () => {
    const file = scenarioWithPins('cli-bad-pins', [{ operationId: 'getSecret', status: 200 }]);
    const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'bin', 'cli.js'), '--port', '0', '--data-dir', 'data', '--scenario', file], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\$\.pins\[0\] operationId "getSecret" is one of the mock's built-in operations/);
    expect(lines[0]).toContain(file);
    // Refused before a data directory was made for it.
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  test('the pins example in docs/scenarios.md is a valid scenario file; with --spec its pins answer (once core is merged)', async () => {
    const file = join(dir, 'docs-example.json');
    writeFileSync(file, codeBlocks(section('docs/scenarios.md', 'Pinned answers in a scenario file'), 'json')[0]);
    const example = await readScenarioFile(file);
    expect(example.pins).toHaveLength(2);
    app = await withSpec({ scenario: file });
    const token = bearer('sk_test_mine');
    expect((await request(app).get('/sessions/sess_gone').set(token)).body).toEqual({ detail: 'Session sess_gone not found' });
    expect((await request(app).get('/usage/pricing')).body).toEqual(example.pins![1].body);
    expect((await request(app).get('/usage/pricing')).body).not.toEqual(example.pins![1].body);
  });

  test('switching to a file whose pins cannot answer is a 422 and leaves the scenario as it was', async () => {
    app = await testApp();
    const file = scenarioWithPins('switch-bad-pins', [{ operationId: 'listSecrets', status: 200 }]);
    const res = await request(app).post('/__mock/scenario').send({ path: file });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/\$\.pins\[0\] operationId "listSecrets" is one of the mock's built-in operations/);
    // Still the default scenario: its demo session is there.
    expect((await request(app).get('/sessions/sess_demo/files').set(AUTH)).status).toBe(200);
  });
});

// The tests below need the union of issue 30 (--spec, helper i30-core) to serve added operations
// and, for the body check, the answer validator (helper i30-answers); they pass once merged.
describe('with --spec: pins over the control plane', () => {
  test('a pin is added with its defaults filled in, listed, removed once, then gone (404)', async () => {
    app = await withSpec();
    const added = await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING, times: 2 });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.stringMatching(/^pin_\d+$/), operationId: 'usage_pricing', status: 200, body: PRICING, headers: {}, path_params: null, principal: null, times: 2, hits: 0, source: 'runtime' });
    expect((await request(app).get('/__mock/pins')).body).toEqual({ items: [added.body] });
    expect((await request(app).delete(`/__mock/pins/${added.body.id}`)).status).toBe(204);
    expect((await request(app).get('/__mock/pins')).body).toEqual({ items: [] });
    expect((await request(app).delete(`/__mock/pins/${added.body.id}`)).status).toBe(404);
  });

  test('ids keep growing across a reset', async () => {
    app = await withSpec();
    const first = (await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING })).body.id;
    await request(app).post('/__mock/reset');
    const second = (await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING })).body.id;
    expect(Number(second.slice(4))).toBeGreaterThan(Number(first.slice(4)));
  });

  test('a body not valid for the operation\'s schema for that status is a 422 naming the path in it', async () => {
    app = await withSpec();
    const bad = { currency: 'USD', plans: [{ name: 'x', credits_per_hour: 'two' }] };
    const res = await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: bad });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^the pinned answer is not one usage_pricing documents for status 200: .*plans.*0.*credits_per_hour/);
    expect((await request(app).get('/__mock/pins')).body.items).toEqual([]);
  });

  test.each([
    ['an operation the document lacks, with a guess', { operationId: 'session_stp', status: 200 }, /unknown operationId "session_stp" — did you mean .*session_stop.*\? a pin names one of the added operations: .*session_start/],
    ['a built-in operation', { operationId: 'getSecret', status: 200 }, /"getSecret" is one of the mock's built-in operations/],
    ['a status the operation does not document', { operationId: 'usage_pricing', status: 404, body: GONE }, /status 404 is not one usage_pricing documents \(it documents 200\)/],
    ['a path parameter the operation lacks', { operationId: 'session_status', status: 404, body: GONE, path_params: { id: 'x' } }, /path_params: session_status has no path parameter "id" \(its path parameters are session_id\)/],
    ['a framing header', { operationId: 'usage_pricing', status: 200, body: PRICING, headers: { 'Content-Length': '3' } }, /headers: Content-Length frames the answer/],
  ])('a pin for %s is a 422 saying why', async (_what, spec, detail) => {
    app = await withSpec();
    const res = await request(app).post('/__mock/pins').send(spec);
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(detail);
  });

  test('clear removes the pins added at run time; a reset brings back a removed scenario pin, whole', async () => {
    const file = scenarioWithPins('kept', [{ operationId: 'session_status', status: 404, body: GONE, path_params: { session_id: 'sess_gone' }, times: 1 }]);
    app = await withSpec({ scenario: file });
    const [fromFile] = (await request(app).get('/__mock/pins')).body.items;
    expect(fromFile).toMatchObject({ operationId: 'session_status', source: 'scenario', times: 1, path_params: { session_id: 'sess_gone' } });
    await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING });
    expect((await request(app).delete('/__mock/pins')).status).toBe(204);
    expect((await request(app).get('/__mock/pins')).body.items.map((p: any) => p.source)).toEqual(['scenario']);

    // Used up, then back after a reset, with its times.
    expect((await request(app).get('/sessions/sess_gone').set(AUTH)).status).toBe(404);
    expect((await request(app).get('/__mock/pins')).body.items).toEqual([]);
    await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING });
    expect((await request(app).post('/__mock/reset')).status).toBe(204);
    const after = (await request(app).get('/__mock/pins')).body.items;
    expect(after).toEqual([expect.objectContaining({ operationId: 'session_status', source: 'scenario', times: 1, hits: 0 })]);
  });

  test('a scenario switch replaces the pins with the new file\'s', async () => {
    app = await withSpec();
    await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING });
    const file = scenarioWithPins('switched', [{ operationId: 'session_stop', status: 200 }]);
    expect((await request(app).post('/__mock/scenario').send({ path: file })).status).toBe(200);
    expect((await request(app).get('/__mock/pins')).body.items).toEqual([expect.objectContaining({ operationId: 'session_stop', source: 'scenario' })]);
  });

  test('a scenario pin with a body its schema refuses stops start-up naming the pin and the path', async () => {
    const file = scenarioWithPins('bad-body', [{ operationId: 'usage_pricing', status: 200, body: { currency: 'EUR', plans: [] } }]);
    await expect(withSpec({ scenario: file })).rejects.toThrow(/\$\.pins\[0\] the pinned answer is not one usage_pricing documents for status 200: .*currency/);
  });
});

describe('with --spec: pinned answers', () => {
  test('a pin with times answers that many requests, then the generated answer does; hits count them', async () => {
    app = await withSpec();
    const pin = (await request(app).post('/__mock/pins').send({ operationId: 'usage_pricing', status: 200, body: PRICING, headers: { 'X-Pinned': 'yes' }, times: 2 })).body;
    for (let i = 0; i < 2; i++) {
      const res = await request(app).get('/usage/pricing');
      expect([res.status, res.body, res.headers['x-pinned']]).toEqual([200, PRICING, 'yes']);
    }
    const generated = await request(app).get('/usage/pricing');
    expect(generated.status).toBe(200);
    expect(generated.body).not.toEqual(PRICING);
    expect(generated.headers['x-pinned']).toBeUndefined();
    expect((await request(app).get('/__mock/pins')).body.items.find((p: any) => p.id === pin.id)).toBeUndefined();
  });

  test('a pin for given path parameters answers only those; the latest pin wins', async () => {
    app = await withSpec();
    await request(app).post('/__mock/pins').send({ operationId: 'session_status', status: 404, body: GONE, path_params: { session_id: 'sess_gone' } });
    expect((await request(app).get('/sessions/sess_gone').set(AUTH)).body).toEqual(GONE);
    expect((await request(app).get('/sessions/sess_other').set(AUTH)).status).toBe(200);
    await request(app).post('/__mock/pins').send({ operationId: 'session_status', status: 404, body: { detail: 'newer' } });
    expect((await request(app).get('/sessions/sess_gone').set(AUTH)).body).toEqual({ detail: 'newer' });
  });

  test('a pin for a principal answers only that principal\'s requests', async () => {
    app = await withSpec();
    await request(app).post('/__mock/pins').send({ operationId: 'session_status', status: 404, body: GONE, principal: DEMO });
    expect((await request(app).get('/sessions/sess_x').set(AUTH)).status).toBe(404);
    expect((await request(app).get('/sessions/sess_x').set(bearer('someone-else'))).status).toBe(200);
  });

  test('a pinned answer comes after authentication and validation, and before Prefer', async () => {
    app = await withSpec();
    await request(app).post('/__mock/pins').send({ operationId: 'session_stop', status: 200 });
    await request(app).post('/__mock/pins').send({ operationId: 'session_status', status: 404, body: GONE });
    expect((await request(app).delete('/sessions/sess_x/stop')).status).toBe(401);
    const preferred = await request(app).get('/sessions/sess_x').set(AUTH).set('Prefer', 'code=200');
    expect([preferred.status, preferred.body]).toEqual([404, GONE]);
    // No body pinned: the body generated for the status, fit to the request.
    const stopped = await request(app).delete('/sessions/sess_x/stop').set(AUTH);
    expect([stopped.status, stopped.body.status]).toEqual([200, 'stopped']);
  });

  test('a scenario file\'s pin answers from start-up', async () => {
    const file = scenarioWithPins('answering', [{ operationId: 'usage_pricing', status: 200, body: PRICING }]);
    app = await withSpec({ scenario: file });
    expect((await request(app).get('/usage/pricing')).body).toEqual(PRICING);
    await request(app).post('/__mock/reset');
    expect((await request(app).get('/usage/pricing')).body).toEqual(PRICING);
  });
});
