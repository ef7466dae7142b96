/**
 * The fault stage and authentication (issue 32): a request is authenticated at most once, and the
 * fault stage authenticates only when a fault for the operation names a principal — with no fault
 * (nearly every request) it checks nothing. CONTRACT §7/§8's order holds: a fault for a principal
 * still answers before the body is read, and a failed authentication met in the fault stage
 * changes nothing about what the authenticate stage answers. The service's stages run on a bare
 * node:http server over the app's store, with an auth configuration that counts how often a token
 * is checked (each check looks the token up among the scenario's API keys once).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { splitTarget } from '../src/http/request-target.js';
import { Auth, type AuthContext } from '../src/operations/auth.js';
import { handlers } from '../src/operations/index.js';
import { DEFAULTS } from '../src/options.js';
import { SERVICE_STAGES, ServiceRequest, handleServiceRequest, serviceStageDeps, type ServiceDeps } from '../src/pipeline/service-request.js';
import { Faults } from '../src/records/faults.js';
import { createOpenApiValidator } from '../src/validation/eov.js';
import { bearer, testApp } from './helpers.js';

const KEY = 'sk_test_demo';
const OWNER = 'user:dev@example.com';
let app: MockApp;
let faults: Faults;
let checks = 0;
let server: Server;

/** The runtime's configuration, each token check counted (the API-key lookup every check makes). */
class CountingAuth extends Auth {
  override context(): AuthContext {
    const ctx = super.context();
    const apiKeys = ctx.apiKeys;
    return {
      ...ctx,
      get apiKeys() {
        checks++;
        return apiKeys;
      },
    };
  }
}

beforeAll(async () => {
  app = await testApp();
  const { store, clock, operations, document } = app.mock;
  faults = new Faults(operations.map((o) => o.id));
  const deps: ServiceDeps = serviceStageDeps({
    operations,
    document,
    validator: createOpenApiValidator(document),
    handlers,
    store,
    clock,
    auth: new CountingAuth({ mode: DEFAULTS.auth, tokenTtlMs: DEFAULTS.tokenTtlMs, clock, keys: store }),
    config: { fileTtlMs: DEFAULTS.fileTtlMs, maxUploadBytes: DEFAULTS.maxUploadBytes },
    texts: store.texts,
    faults,
  });
  server = createServer((req, res) => {
    const ctx = new ServiceRequest(req, res, deps, splitTarget(req.url ?? '/'));
    void handleServiceRequest(ctx, SERVICE_STAGES).then(() => {
      if (!ctx.isService) res.writeHead(404).end('not the service');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app.mock.close();
});
beforeEach(() => {
  faults.clear();
  checks = 0;
});

const listSecrets = (headers: Record<string, string> = bearer(KEY)) => request(server).get('/secrets').set(headers);
const answer = (res: request.Response) => ({ status: res.status, body: res.body as unknown, challenge: res.headers['www-authenticate'] });

test('no fault: the token is checked once, by the authenticate stage', async () => {
  expect((await listSecrets()).status).toBe(200);
  expect(checks).toBe(1);
});

test('faults for other operations only: the fault stage checks nothing', async () => {
  faults.add({ operationId: 'listMailboxes', status: 503, principal: OWNER });
  faults.add({ operationId: 'deleteSecret', status: 500 });
  expect((await listSecrets()).status).toBe(200);
  expect(checks).toBe(1);
});

test('a fault for the operation naming no principal answers without any token check', async () => {
  faults.add({ operationId: 'listSecrets', status: 503 });
  expect((await listSecrets({})).status).toBe(503);
  expect(checks).toBe(0);
});

test('a fault naming another principal: the fault stage checks the token and the authenticate stage reuses it', async () => {
  faults.add({ operationId: 'listSecrets', status: 503, principal: 'user:someone-else@example.com' });
  expect((await listSecrets()).status).toBe(200);
  expect(checks).toBe(1);
});

test("a fault naming the caller's principal answers before the body is read, after one check", async () => {
  faults.add({ operationId: 'storeSecret', status: 429, principal: OWNER });
  // A body that is not JSON would be a 422 from the later stages: the fault came first.
  const res = await request(server).post('/secrets').set({ ...bearer(KEY), 'Content-Type': 'application/json' }).send('{not json');
  expect(res.status).toBe(429);
  expect(checks).toBe(1);
});

test('a token refused in the fault stage gets the authenticate stage\'s own 401, as without the fault', async () => {
  const bad = { Authorization: 'Bearer ' };
  const without = answer(await listSecrets(bad));
  const missing = answer(await listSecrets({}));
  faults.add({ operationId: 'listSecrets', status: 503, principal: OWNER });
  expect(answer(await listSecrets(bad))).toEqual(without);
  expect(answer(await listSecrets({}))).toEqual(missing);
  expect(without.status).toBe(401);
  expect(missing.status).toBe(401);
  // The fault (for a principal) was not answered to a caller without one, and stays.
  expect(faults.list()[0].hits).toBe(0);
});
