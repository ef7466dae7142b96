/**
 * The request path is named stages (src/pipeline/stages.ts): each API composes them in its own
 * order, and one stage can be swapped for a stand-in while the others answer as before. The
 * service's stages run here on a bare node:http server, compared with the whole app.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { CONTROL_STAGES } from '../src/control-plane/dispatch.js';
import { splitTarget } from '../src/http/request-target.js';
import { Auth } from '../src/operations/auth.js';
import { handlers } from '../src/operations/index.js';
import { DEFAULTS } from '../src/options.js';
import { SERVICE_STAGES, ServiceRequest, handleServiceRequest, serviceStageDeps, type ServiceDeps } from '../src/pipeline/service-request.js';
import { replaceStage, type Composition } from '../src/pipeline/stages.js';
import { createOpenApiValidator } from '../src/validation/eov.js';
import { bearer, testApp } from './helpers.js';

const TOKEN = 'sk_test_demo';
let app: MockApp;
let deps: ServiceDeps;
let demo: string;

beforeAll(async () => {
  app = await testApp();
  const { store, clock, operations, document } = app.mock;
  deps = serviceStageDeps({
    operations,
    document,
    validator: createOpenApiValidator(document),
    handlers,
    store,
    clock,
    auth: new Auth({ mode: DEFAULTS.auth, tokenTtlMs: DEFAULTS.tokenTtlMs, clock, keys: store }),
    config: { fileTtlMs: DEFAULTS.fileTtlMs, maxUploadBytes: DEFAULTS.maxUploadBytes },
    texts: store.texts,
  });
  demo = (await request(app).post('/__mock/principal').send({ token: TOKEN }).expect(200)).body.principal;
});
afterAll(() => app.mock.close());

/** A bare server running one composition of the service's stages (404 text when not the service's). */
async function withStages<T>(stages: Composition<ServiceDeps, ServiceRequest>, use: (server: Server) => Promise<T>): Promise<T> {
  const server = createServer((req, res) => {
    const ctx = new ServiceRequest(req, res, deps, splitTarget(req.url ?? '/'));
    void handleServiceRequest(ctx, stages).then(() => {
      if (!ctx.isService) res.writeHead(404).end('not the service');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await use(server);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** One Host for both, so that a 307's Location is comparable. */
const HOST = { Host: 'localhost' };
const answer = (res: request.Response) => ({ status: res.status, type: res.headers['content-type'], location: res.headers.location, text: res.text });

test('each API composes the stages in its documented order', () => {
  expect(SERVICE_STAGES.front.map((s) => s.name)).toEqual(['route', 'fault', 'read body', 'authenticate', 'validate', 'prefer', 'operate']);
  expect(SERVICE_STAGES.closing.map((s) => s.name)).toEqual(['reply']);
  expect(CONTROL_STAGES.front.map((s) => s.name)).toEqual(['guards', 'admin token', 'route', 'read body', 'validate', 'operate']);
  expect(CONTROL_STAGES.closing.map((s) => s.name)).toEqual(['reply']);
});

test('the service stages on a bare server answer as the app does', async () => {
  await withStages(SERVICE_STAGES, async (server) => {
    for (const [path, headers] of [
      ['/mailboxes', bearer(TOKEN)],
      ['/mailboxes', {}],
      ['/mailboxes/', bearer(TOKEN)],
      ['/sessions/sess_x/files?limit=abc', bearer(TOKEN)],
    ] as const) {
      const bare = await request(server).get(path).set({ ...HOST, ...headers });
      const whole = await request(app).get(path).set({ ...HOST, ...headers });
      expect(answer(bare)).toEqual(answer(whole));
    }
  });
});

test('a stand-in authenticate stage changes who is asking and nothing else', async () => {
  let calls = 0;
  const standIn = replaceStage(SERVICE_STAGES, 'authenticate', (ctx) => {
    calls++;
    ctx.principal = ctx.facts.principal = demo;
    ctx.facts.body = null;
  });
  expect(standIn.front.map((s) => s.name)).toEqual(SERVICE_STAGES.front.map((s) => s.name));
  await withStages(standIn, async (server) => {
    // No Authorization header, yet the demo principal's answers: the stand-in authenticated.
    const listed = await request(server).get('/mailboxes');
    expect(answer(listed)).toEqual(answer(await request(app).get('/mailboxes').set(bearer(TOKEN))));
    expect(listed.status).toBe(200);
    // Routing, validation and the operation's own 404 are the real stages' still.
    for (const [method, path] of [
      ['get', '/mailboxes/mbx_nope'],
      ['get', '/sessions/sess_x/files?limit=abc'],
      ['put', '/mailboxes'],
      ['get', '/mailboxes/'],
    ] as const) {
      expect(answer(await request(server)[method](path).set(HOST))).toEqual(answer(await request(app)[method](path).set({ ...HOST, ...bearer(TOKEN) })));
    }
    expect((await request(server).get('/nothing-here')).text).toBe('not the service');
  });
  // Called for the listing and the two requests that reach it (the 404 and the 422), not for the routed-away ones.
  expect(calls).toBe(3);
});

test('replacing a stage that is not in the composition is an error naming it', () => {
  expect(() => replaceStage(SERVICE_STAGES, 'guards', () => undefined)).toThrow('no stage named guards');
});
