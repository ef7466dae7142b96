/**
 * Pins through the Node handle (src/control-client.ts): startMockServer() in-process and
 * connectMockServer() against the CLI as a child process, alike. The Python handle's are in
 * python/tests/test_pins.py (run by test/python-package.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMockServer, MockControlError, startMockServer, type MockControl, type MockOptions } from '../src/index.js';
import { startCli } from './cli-process.js';
import { FIXTURES, bearer } from './helpers.js';

const SPEC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const AUTH = bearer('sk_test_demo');
const GONE = { detail: 'Session sess_gone not found' };

interface Started {
  control: MockControl;
  stop(): Promise<void>;
}

async function inProcess(spec?: string): Promise<Started> {
  const mock = await startMockServer({ logLevel: 'silent', validateResponses: true, ...(spec ? ({ spec } as MockOptions) : {}) });
  return { control: mock, stop: () => mock.close() };
}

async function cliProcess(spec?: string): Promise<Started> {
  const cwd = mkdtempSync(join(tmpdir(), 'cbm-pins-handle-'));
  const cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'warn', '--validate-responses', ...(spec ? ['--spec', spec] : [])], { cwd });
  return {
    control: await connectMockServer(cli.url),
    stop: async () => {
      cli.child.kill('SIGTERM');
      await cli.exited;
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

describe.each([
  ['startMockServer (in-process)', inProcess],
  ['connectMockServer → the CLI as a child process', cliProcess],
])('%s', (_name, start) => {
  describe('without --spec', () => {
    let started: Started;
    beforeAll(async () => {
      started = await start();
    });
    afterAll(() => started.stop());

    test('pins.add for a built-in operation throws a 422 saying to use a fault; list is empty; remove of an unknown id throws 404', async () => {
      const mock = started.control;
      const builtIn = mock.pins.add({ operationId: 'listSecrets', status: 200, body: { items: [] } });
      await expect(builtIn).rejects.toBeInstanceOf(MockControlError);
      await expect(builtIn).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^POST \/__mock\/pins → 422: operationId "listSecrets" is one of the mock's built-in operations.*POST \/__mock\/faults/) });
      expect(await mock.pins.list()).toEqual([]);
      await expect(mock.pins.remove('pin_77')).rejects.toMatchObject({ status: 404, detail: 'Pin pin_77 not found' });
    });
  });

  // Needs --spec (issue 30's core): passes once it is merged.
  describe('with --spec', () => {
    let started: Started;
    let mock: MockControl;
    beforeAll(async () => {
      started = await start(SPEC);
      mock = started.control;
    });
    beforeEach(() => mock.reset());
    afterAll(() => started.stop());

    test('pins.add/list/remove/clear: a pinned 404 for one session, once, then the generated answer', async () => {
      const pin = await mock.pins.add({ operationId: 'session_status', status: 404, body: GONE, path_params: { session_id: 'sess_gone' }, times: 1 });
      expect(pin).toMatchObject({ operationId: 'session_status', status: 404, body: GONE, path_params: { session_id: 'sess_gone' }, times: 1, hits: 0, source: 'runtime' });
      expect(await mock.pins.list()).toEqual([pin]);
      const pinned = await fetch(`${mock.url}/sessions/sess_gone`, { headers: AUTH });
      expect([pinned.status, await pinned.json()]).toEqual([404, GONE]);
      expect((await fetch(`${mock.url}/sessions/sess_gone`, { headers: AUTH })).status).toBe(200);
      expect(await mock.pins.list()).toEqual([]);

      const kept = await mock.pins.add({ operationId: 'session_status', status: 404, body: GONE });
      await mock.pins.remove(kept.id);
      expect(await mock.pins.list()).toEqual([]);
      await mock.pins.add({ operationId: 'session_status', status: 404, body: GONE });
      await mock.pins.clear();
      expect((await fetch(`${mock.url}/sessions/sess_gone`, { headers: AUTH })).status).toBe(200);
    });

    test('reset() removes the pins added at run time', async () => {
      await mock.pins.add({ operationId: 'session_status', status: 404, body: GONE });
      await mock.reset();
      expect(await mock.pins.list()).toEqual([]);
    });

    test('pins.add with a body the schema refuses throws a 422 naming the path in it', async () => {
      const bad = mock.pins.add({ operationId: 'session_status', status: 404, body: { detail: 7 } });
      await expect(bad).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/the pinned answer is not one session_status documents for status 404: .*detail/) });
    });
  });
});
