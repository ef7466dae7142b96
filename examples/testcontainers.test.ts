/**
 * The mock's Docker image from a Node test suite through Testcontainers: two containers with
 * different scenarios, started in parallel, each with its own URL and control handle. Needs a
 * Docker engine and the image built: CI runs it under docker-smoke.sh, which sets IMAGE_TAG;
 * without IMAGE_TAG it is skipped (a machine with Docker but no built image must not pull one).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { CloudBrowserMockContainer, type StartedCloudBrowserMockContainer } from '../src/testcontainers.js'; // in your project: 'cloud-browser-mock/testcontainers'

const IMAGE = process.env.IMAGE_TAG;
const auth = { Authorization: 'Bearer sk_test_demo' };
const run = IMAGE ? describe : describe.skip;
const title = IMAGE ? `Testcontainers: ${IMAGE}` : 'Testcontainers (skipped: IMAGE_TAG is not set; .ci/run sets it under docker-smoke.sh)';

run(title, () => {
  let paging: StartedCloudBrowserMockContainer;
  let strict: StartedCloudBrowserMockContainer;
  beforeAll(async () => {
    // docs/testing.md: Testcontainers (Node)
    [paging, strict] = await Promise.all([
      new CloudBrowserMockContainer(IMAGE).withScenario('paging').start(),
      new CloudBrowserMockContainer(IMAGE).withScenario('empty').withAuth('strict').withAdminToken('adm-secret').start(),
    ]);
  }, 120_000);
  afterAll(() => Promise.all([paging?.stop(), strict?.stop()]));

  test('each container serves its own scenario', async () => {
    const many = (await (await fetch(`${paging.url}/sessions/sess_paging/files?limit=1`, { headers: auth })).json()) as { total: number };
    expect(many.total).toBeGreaterThan(1);
    expect((await fetch(`${strict.url}/sessions/sess_paging/files`, { headers: auth })).status).toBe(404);
  });

  test('state, faults and clocks are independent', async () => {
    // each container is a MockControl, as startMockServer's handle is:
    await paging.faults.add({ operationId: 'listSecrets', status: 503, times: 1 });
    await paging.clock.advance('P8D');
    expect((await fetch(`${paging.url}/secrets`, { headers: auth })).status).toBe(503);
    expect((await fetch(`${strict.url}/secrets`, { headers: auth })).status).toBe(200);
    expect(await strict.faults.list()).toEqual([]);
    expect((await strict.clock.now()).offset_seconds).toBeCloseTo(0, 0);
    expect((await paging.requests({ operationId: 'listSecrets' })).map((r) => r.status)).toEqual([503]);
    expect((await strict.requests({ operationId: 'listSecrets' })).map((r) => r.status)).toEqual([200]);
    await paging.reset();
  });

  test('.control, the handle under its 0.2 name, drives the same mock', async () => {
    await paging.control.faults.add({ operationId: 'listSecrets', status: 500, times: 1 });
    expect((await paging.faults.list()).map((f) => f.status)).toEqual([500]);
    await paging.reset();
    expect(await paging.control.faults.list()).toEqual([]);
  });

  test('withSpec(path): the document is copied in read-only, and its other operations are served (--spec, issue 30)', async () => {
    const spec = fileURLToPath(new URL('../test/fixtures/whole-service/service.openapi.json', import.meta.url));
    const whole = await new CloudBrowserMockContainer(IMAGE).withSpec(spec).start();
    try {
      const started = await fetch(`${whole.url}/sessions/start`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{}' });
      expect(started.status).toBeGreaterThanOrEqual(200);
      expect(started.status).toBeLessThan(300);
      expect((await whole.requests({ path: '/sessions/start' })).map((r) => r.status)).toEqual([started.status]);
    } finally {
      await whole.stop();
    }
  }, 120_000);

  test('withAuth("strict") and withAdminToken(): made-up tokens and a bare /__mock are refused, the handle sends the token', async () => {
    expect((await fetch(`${strict.url}/secrets`, { headers: { Authorization: 'Bearer made-up' } })).status).toBe(401);
    expect((await fetch(`${strict.url}/__mock/faults`)).status).toBe(401);
    expect(await strict.principalOf('sk_test_demo')).toBe('user:dev@example.com');
  });
});
