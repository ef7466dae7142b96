/**
 * --record across the union (issue 30, item 7): the answers of the operations a --spec document
 * adds are written as the recorded scenario's pins — one per operation and path parameter values,
 * the latest answer — and a mock started on the recording answers them again.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Clock } from '../src/primitives/clock.js';
import { Recorder } from '../src/proxy/recorder.js';
import { readScenarioFile } from '../src/scenarios/scenario.js';
import type { ServerOptions } from '../src/server.js';
import { FIXTURES, bearer, testServer } from './helpers.js';

const SPEC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const AUTH = bearer('sk_test_demo');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-record-pins-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the recorder', () => {
  const observed = (operationId: string, status: number, pathParams: Record<string, string>, json?: unknown) => ({ operationId, status, pathParams, query: new Map<string, string>(), json });

  test("writes an added operation's latest answer per path parameter values as a pin, in the order first seen; a valid scenario", async () => {
    const file = join(dir, 'unit.json');
    const recorder = new Recorder(file, { upstreamOrigin: 'http://upstream.invalid', clock: new Clock(), logger: pino({ level: 'silent' }), secretValues: false });
    recorder.observe(observed('session_status', 200, { session_id: 'sess_a' }, { session_id: 'sess_a', status: 'running' }));
    recorder.observe(observed('usage_pricing', 200, {}, { currency: 'USD', plans: [] }));
    recorder.observe(observed('session_status', 200, { session_id: 'sess_b' }, { session_id: 'sess_b', status: 'running' }));
    recorder.observe(observed('session_status', 200, { session_id: 'sess_a' }, { session_id: 'sess_a', status: 'stopped' }));
    recorder.observe(observed('session_keepalive', 204, { session_id: 'sess_a' }));
    // Not pinned: an error answer, and a download (no JSON to pin).
    recorder.observe(observed('session_status', 404, { session_id: 'sess_c' }, { detail: 'Not found' }));
    recorder.observe({ ...observed('storage_file_download', 200, { file_id: 'f1' }), download: { size: 3, checksum: 'x' } });
    await recorder.flush();
    const written = await readScenarioFile(file);
    expect(written.pins).toEqual([
      { operationId: 'session_status', status: 200, body: { session_id: 'sess_a', status: 'stopped' }, path_params: { session_id: 'sess_a' } },
      { operationId: 'usage_pricing', status: 200, body: { currency: 'USD', plans: [] } },
      { operationId: 'session_status', status: 200, body: { session_id: 'sess_b', status: 'running' }, path_params: { session_id: 'sess_b' } },
      { operationId: 'session_keepalive', status: 204, path_params: { session_id: 'sess_a' } },
    ]);
  });

  test('a recording of the built-in operations only has no pins key', async () => {
    const file = join(dir, 'built-in-only.json');
    const recorder = new Recorder(file, { upstreamOrigin: 'http://upstream.invalid', clock: new Clock(), logger: pino({ level: 'silent' }), secretValues: false });
    recorder.observe(observed('listSessionFiles', 200, { session_id: 'sess_a' }, { files: [] }));
    await recorder.flush();
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('pins');
  });
});

// Needs --spec (issue 30's core) for the proxy to route added operations: passes once merged.
test('with --spec, --upstream and --record: added operations answer the recorded answers when the recording is served', async () => {
  const recording = join(dir, 'recorded.json');
  const upstream = await testServer({ spec: SPEC, seed: 11 } as ServerOptions);
  const proxy = await testServer({ spec: SPEC, upstream: upstream.url, record: recording } as ServerOptions);
  let replay: Awaited<ReturnType<typeof testServer>> | undefined;
  try {
    const status = await (await fetch(`${proxy.url}/sessions/sess_rec`, { headers: AUTH })).json();
    const pricing = await (await fetch(`${proxy.url}/usage/pricing`)).json();
    await proxy.app.mock.flushRecording!();
    const pins = (await readScenarioFile(recording)).pins;
    expect(pins).toEqual([
      { operationId: 'session_status', status: 200, body: status, path_params: { session_id: 'sess_rec' } },
      { operationId: 'usage_pricing', status: 200, body: pricing },
    ]);
    // Another seed: the generated answers differ, the pinned ones are the recording's.
    replay = await testServer({ spec: SPEC, scenario: recording, seed: 12 } as ServerOptions);
    expect(await (await fetch(`${replay.url}/sessions/sess_rec`, { headers: AUTH })).json()).toEqual(status);
    expect(await (await fetch(`${replay.url}/usage/pricing`)).json()).toEqual(pricing);
  } finally {
    await replay?.close();
    await proxy.close();
    await upstream.close();
  }
}, 60_000);
