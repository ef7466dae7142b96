/**
 * --spec, the union (issue 30, items 1, 2 and 7): which operation answers a request when the
 * mock's own paths, the built-in fifteen and a supplied document all have something to say;
 * what GET /openapi.json serves; CBM_SPEC read as --spec (every bad document refused at start-up:
 * whole-service-cli.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { readOpenApi } from '../src/document/openapi.js';
import { bearer, FIXTURES, testApp } from './helpers.js';
import { runCli, startCli } from './cli-process.js';

const DOC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const DOC_30 = join(FIXTURES, 'whole-service', 'service-3.0.yaml');
const supplied = JSON.parse(readFileSync(DOC, 'utf8'));
const A = bearer('sk_test_demo');

/** The log lines an app writes, parsed. */
function logSink() {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, stream };
}

let app: MockApp;
const log = logSink();
beforeAll(async () => {
  app = await testApp({ spec: DOC, logLevel: 'warn', logDestination: log.stream });
});
afterAll(() => app.mock.close());

const lastEntry = async () => (await request(app).get('/__mock/requests?limit=1')).body.items[0];

describe('precedence', () => {
  test("GET /health stays the mock's own: not journalled, not an operation a fault may name", async () => {
    expect(supplied.paths['/health'].get.operationId).toBe('health_check');
    const before = (await request(app).get('/__mock/requests')).body.items.length;
    const res = await request(app).get('/health');
    expect([res.status, res.text]).toEqual([200, '{"status":"ok"}']);
    expect((await request(app).get('/__mock/requests')).body.items.length).toBe(before);
    const fault = await request(app).post('/__mock/faults').send({ operationId: 'health_check', status: 503 });
    expect(fault.status).toBe(422);
    expect((await request(app).get('/health')).status).toBe(200);
  });

  test('a method and path template the built-in document has stays the built-in operation', async () => {
    expect(supplied.paths['/sessions/{session_id}/files'].get.operationId).toBe('session_files_list');
    const res = await request(app).get('/sessions/sess_demo/files').set(A);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['files', 'limit', 'offset', 'total']);
    expect((await lastEntry()).operationId).toBe('listSessionFiles');
  });

  test('every shadowed operation of the document is named in one start-up warning line', () => {
    const warnings = log.lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    for (const named of ['GET /health (health_check', 'GET /sessions/{session_id}/files (session_files_list', 'POST /sessions/{session_id}/files (session_files_upload', 'GET /sessions/{session_id}/workflow/code (session_workflow_code']) {
      expect(warnings[0].msg).toContain(named);
    }
    expect(warnings[0].msg).not.toContain('session_start');
  });

  test('supplied routes follow the built-in ones in declaration order: /sessions/active before /sessions/{session_id}', async () => {
    const order = Object.keys(supplied.paths);
    expect(order.indexOf('/sessions/active')).toBeLessThan(order.indexOf('/sessions/{session_id}'));
    await request(app).get('/sessions/active').set(A);
    expect((await lastEntry()).operationId).toBe('session_list_active');
    await request(app).get('/sessions/sess_x').set(A);
    expect((await lastEntry()).operationId).toBe('session_status');
  });

  test("a method the path's routes lack is Starlette's 405 with the first route's method", async () => {
    const res = await request(app).put('/sessions/start').set(A);
    expect([res.status, res.headers.allow, res.body]).toEqual([405, 'POST', { detail: 'Method Not Allowed' }]);
  });

  test('a trailing slash on an added route is a 307 to the route without it', async () => {
    const res = await request(app).get('/usage/pricing/');
    expect(res.status).toBe(307);
    expect(res.headers.location).toMatch(/\/usage\/pricing$/);
  });
});

describe('GET /openapi.json serves the union', () => {
  let served: any;
  beforeAll(async () => {
    served = (await request(app).get('/openapi.json')).body;
  });

  test('the fifteen exactly as built in, the added operations after them', () => {
    const builtIn = readOpenApi();
    for (const [path, item] of Object.entries(builtIn.paths as Record<string, any>)) {
      for (const [method, op] of Object.entries(item)) expect(served.paths[path][method]).toEqual(op);
    }
    expect(served.paths['/sessions/start'].post.operationId).toBe('session_start');
    expect(served.paths['/health']).toBeUndefined();
    expect(served['x-route-order'].slice(0, builtIn['x-route-order'].length)).toEqual(builtIn['x-route-order']);
  });

  test('a component named like a built-in one but different is renamed, and its references follow', () => {
    expect(served.components.schemas.SessionFile).toEqual(readOpenApi().components.schemas.SessionFile);
    expect(served.components.schemas.SessionFileSpec).toEqual(supplied.components.schemas.SessionFile);
    expect(served.paths['/storage/files'].post.responses['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SessionFileSpec' });
    const refs = JSON.stringify(served).match(/"#\/components\/schemas\/[^"]+"/g)!;
    for (const ref of new Set(refs)) expect(Object.keys(served.components.schemas)).toContain(JSON.parse(ref).split('/').pop());
  });

  test("an operation without an operationId gets FastAPI's generated form", async () => {
    expect(supplied.paths['/debug/echo'].post.operationId).toBeUndefined();
    expect(served.paths['/debug/echo'].post.operationId).toBe('debug_echo_debug_echo_post');
    expect(served.paths['/debug/sessions/{session_id}/logs'].get.operationId).toBe('debug_sessions_logs_debug_sessions__session_id__logs_get');
    await request(app).post('/debug/echo').set(A).send({ a: 1 });
    expect((await lastEntry()).operationId).toBe('debug_echo_debug_echo_post');
  });

  test('an operation inheriting the document-wide security carries it', () => {
    expect(served.paths['/sessions/start'].post.security).toEqual([{ bearerAuth: [] }]);
    expect(served.paths['/usage/pricing'].get.security).toEqual([]);
  });
});

test('a 3.0 YAML document is read in 3.1 meaning: nullable, boolean exclusive bounds and binary files rewritten', async () => {
  const app30 = await testApp({ spec: DOC_30 });
  try {
    const served = (await request(app30).get('/openapi.json')).body;
    const text = JSON.stringify(served);
    expect(text).not.toMatch(/"nullable"|"exclusiveMinimum":(true|false)|"exclusiveMaximum":(true|false)/);
    expect(served.openapi).toBe('3.1.0');
    expect((await request(app30).post('/sessions/start').set(A).send({ headless: false })).status).toBe(200);
  } finally {
    await app30.mock.close();
  }
});

test('without --spec nothing changes: the served document is openapi.json', async () => {
  const plain = await testApp();
  try {
    const served = (await request(plain).get('/openapi.json')).body;
    expect(served.paths).toEqual(readOpenApi().paths);
    expect((await request(plain).post('/sessions/start').set(A).send({})).status).toBe(404);
  } finally {
    await plain.mock.close();
  }
});

// Every bad document of the fixtures refused by the command, one line naming the file and the
// exact problem, exit 2: whole-service-cli.test.ts ("a bad document: …"), which ran the same
// commands too; here, what only CBM_SPEC shows.
test('CBM_SPEC is read as --spec, and a missing file is named by the variable', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-spec-'));
  try {
    const r = runCli(['--in-memory', '--port', '0'], { cwd: dir, env: { CBM_SPEC: 'nosuch.json' } });
    expect([r.status, r.stderr.trim()]).toEqual([2, 'cloud-browser-mock: CBM_SPEC nosuch.json: no such file']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the command serves a document given by CBM_SPEC, relative to its working directory', async () => {
  const cli = await startCli(['--in-memory', '--port', '0', '--log-level', 'silent'], { cwd: join(FIXTURES, 'whole-service'), env: { CBM_SPEC: 'service.openapi.json' } });
  try {
    const res = await fetch(`${cli.url}/usage/pricing`);
    expect(res.status).toBe(200);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
});
