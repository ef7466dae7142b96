/**
 * Fuzzing every control-plane operation (issue 16, "Done when"): seeded fast-check bodies for
 * each of them — valid shapes with hostile values (extreme numbers, instants that do not exist,
 * header names HTTP forbids, device paths) and arbitrary JSON — against the running CLI. None may
 * answer 5xx; then, with the state the fuzzing left (faults removed: they fail on purpose), every
 * service operation must still answer below 500, and again after a restart on the same data.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startCli, type RunningCli } from '../cli-process.js';
import { multipart, ROOT } from '../helpers.js';

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 50);
const SEED = Number(process.env.FUZZ_SEED ?? 16);
const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent', '--max-upload', '1MiB'];
const DEMO = { Authorization: 'Bearer sk_test_demo' };

const hostileNumber = fc.constantFrom(-1, 0, 1, 0.5, 2 ** 31, 2 ** 53, 2 ** 64, 9e12, -9e12, 1e300, -1e300, 1024 * 1024 + 1);
const hostileString = fc.constantFrom(
  '', ' ', 'x'.repeat(5000), '\u0000', '\ud800', 'é', '../../etc/passwd', '/dev/zero', '/dev/urandom', '/etc/passwd', '/', '.',
  '2030-06-30T23:59:60Z', '2030-13-01T00:00:00Z', '2030-02-30T00:00:00Z', '2030-01-01T00:00:00+99:99', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59Z', '2030-01-01T00:00:00Z', 'P99999999999D', 'PT1H', 'P8D', '-P1D', 'Bad Name', 'line\r\nInjected: x', 'Transfer-Encoding',
);
const anyValue = fc.oneof(hostileNumber, hostileString, fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
/** A field: mostly a plausible value of its kind, sometimes anything at all. */
const field = <T>(plausible: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: anyValue });
const instant = fc.oneof(hostileString, fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((d) => d.toISOString()));
const size = fc.oneof(hostileNumber, fc.nat(2048));
const id = fc.constantFrom('sess_demo', 'file_demo_notes', 'mbx_gmail', 'sec_openai', 'dup', 'x', '');
const headerName = fc.oneof(fc.constantFrom('X-Ok', 'Retry-After', 'Bad Name', 'Transfer-Encoding', 'content-length', 'Connection', 'é', ''), fc.string({ maxLength: 8 }));
const headerValue = fc.oneof(fc.constantFrom('1', 'line\r\nInjected: x', 'snow ☃', '\u0000', ''), fc.string({ maxLength: 8 }));

const snapshotFile = fc.record(
  { id: field(id), filename: field(fc.string()), mime_type: field(fc.constantFrom('text/plain', 'application/pdf')), size: field(size), created_at: field(instant), expires_at: field(instant), source: field(fc.constantFrom('user_upload', 'session_download')), content_base64: field(fc.constantFrom('YWJj', '', '!!!', 'A'.repeat(2_000_000))) },
  { requiredKeys: ['id', 'filename', 'mime_type', 'size', 'created_at', 'expires_at', 'source'] },
);
const snapshot = fc.record({
  sessions: fc.array(fc.record({ id: field(id), actions: field(fc.array(fc.dictionary(fc.constantFrom('type', 'url', 'n'), anyValue), { maxLength: 2 })), files: field(fc.array(snapshotFile, { maxLength: 3 })) }), { maxLength: 3 }),
  mailboxes: fc.array(fc.record({ id: field(id), email_address: field(fc.constant('a@example.com')), provider: field(fc.constantFrom('gmail', 'microsoft_outlook')), connection_healthy: field(fc.boolean()), created_at: field(fc.option(instant)), updated_at: field(fc.option(instant)) }), { maxLength: 3 }),
  secrets: fc.array(fc.record({ id: field(id), namespace: field(fc.constantFrom('function_env', 'llm_provider')), name: field(fc.constantFrom('A', 'B')), value: field(fc.constant('v')), created_at: field(instant), last_used_at: field(fc.option(instant)) }), { maxLength: 3 }),
});

type Call = { method: string; path: string; body?: unknown; multipart?: boolean };
const principal = fc.constantFrom('{demo}', 'key%3Afuzz', 'user%3Adev%40example.com', '%ZZ', 'x'.repeat(300));

/** One generator per control-plane operation; the test checks that none is missing. */
const OPERATIONS: Record<string, fc.Arbitrary<Call>> = {
  resetWorkspaces: fc.option(principal).map((p) => ({ method: 'POST', path: `/__mock/reset${p ? `?principal=${p}` : ''}` })),
  switchScenario: fc.record({ name: field(fc.constantFrom('default', 'empty', 'nope')), path: field(fc.constantFrom('/dev/zero', '/etc/passwd', '/', 'fixtures/empty.json', 'data')), seed: field(hostileNumber) }, { requiredKeys: [] }).map((body) => ({ method: 'POST', path: '/__mock/scenario', body })),
  listWorkspaces: fc.constant({ method: 'GET', path: '/__mock/workspaces' }),
  exportWorkspace: fc.tuple(principal, fc.constantFrom('', '?content=false', '?content=x')).map(([p, q]) => ({ method: 'GET', path: `/__mock/workspaces/${p}${q}` })),
  workspaceOverview: principal.map((p) => ({ method: 'GET', path: `/__mock/workspaces/${p}/overview` })),
  listWorkspaceFiles: fc.tuple(principal, id, fc.constantFrom('offset', 'limit', 'x'), hostileString).map(([p, s, k, v]) => ({ method: 'GET', path: `/__mock/workspaces/${p}/sessions/${s}/files?${k}=${encodeURIComponent(v.toWellFormed())}` })),
  importWorkspace: fc.tuple(principal, field(snapshot)).map(([p, body]) => ({ method: 'PUT', path: `/__mock/workspaces/${p}`, body })),
  createSession: fc.tuple(principal, fc.record({ id: field(id), actions: field(fc.array(fc.dictionary(fc.constantFrom('type', 'url'), anyValue), { maxLength: 3 })) }, { requiredKeys: [] })).map(([p, body]) => ({ method: 'POST', path: `/__mock/workspaces/${p}/sessions`, body })),
  connectMailbox: fc.tuple(principal, fc.record({ id: field(id), email_address: field(fc.constant('a@example.com')), provider: field(fc.constantFrom('gmail', 'microsoft_outlook')), healthy: field(fc.boolean()) }, { requiredKeys: [] })).map(([p, body]) => ({ method: 'POST', path: `/__mock/workspaces/${p}/mailboxes`, body })),
  setMailboxConnection: fc.tuple(principal, id, field(fc.boolean())).map(([p, m, healthy]) => ({ method: 'PATCH', path: `/__mock/workspaces/${p}/mailboxes/${m}/connection`, body: { healthy } })),
  addSessionDownload: fc.tuple(principal, id).map(([p, s]) => ({ method: 'POST', path: `/__mock/workspaces/${p}/sessions/${s}/files`, multipart: true })),
  listRequests: fc.tuple(fc.constantFrom('status', 'limit', 'since', 'after', 'operationId', 'x'), hostileString).map(([k, v]) => ({ method: 'GET', path: `/__mock/requests?${k}=${encodeURIComponent(v.toWellFormed())}` })),
  clearRequests: fc.constant({ method: 'DELETE', path: '/__mock/requests' }),
  getClock: fc.constant({ method: 'GET', path: '/__mock/clock' }),
  setClock: fc.record({ set: field(instant), advance: field(fc.oneof(hostileNumber, hostileString)) }, { requiredKeys: [] }).map((body) => ({ method: 'POST', path: '/__mock/clock', body })),
  resetClock: fc.constant({ method: 'POST', path: '/__mock/clock/reset' }),
  addFault: fc.record({ operationId: field(fc.constantFrom('listMailboxes', '*', 'nope')), status: field(fc.constantFrom(0, 100, 101, 199, 200, 204, 304, 429, 500, 599, 600)), headers: field(fc.dictionary(headerName, headerValue, { maxKeys: 2 })), body: anyValue, times: field(fc.constant(1)), probability: field(fc.constantFrom(0, 0.5, 1)) }, { requiredKeys: [] }).map((body) => ({ method: 'POST', path: '/__mock/faults', body })),
  listFaults: fc.constant({ method: 'GET', path: '/__mock/faults' }),
  clearFaults: fc.constant({ method: 'DELETE', path: '/__mock/faults' }),
  deleteFault: fc.constantFrom('flt_1', 'flt_x', '%ZZ').map((f) => ({ method: 'DELETE', path: `/__mock/faults/${f}` })),
  addPin: fc.record({ operationId: field(fc.constantFrom('session_status', 'listMailboxes', 'nope')), status: field(fc.constantFrom(100, 200, 204, 404, 599, 600)), headers: field(fc.dictionary(headerName, headerValue, { maxKeys: 2 })), body: anyValue, path_params: field(fc.dictionary(fc.constantFrom('session_id', 'x', ''), hostileString, { maxKeys: 2 })), principal: field(principal), times: field(hostileNumber) }, { requiredKeys: [] }).map((body) => ({ method: 'POST', path: '/__mock/pins', body })),
  listPins: fc.constant({ method: 'GET', path: '/__mock/pins' }),
  clearPins: fc.constant({ method: 'DELETE', path: '/__mock/pins' }),
  deletePin: fc.constantFrom('pin_1', 'pin_x', '%ZZ').map((p) => ({ method: 'DELETE', path: `/__mock/pins/${p}` })),
  getCoverage: fc.constantFrom('', '?format=junit', '?format=x').map((q) => ({ method: 'GET', path: `/__mock/coverage${q}` })),
  getControlPlaneDocument: fc.constant({ method: 'GET', path: '/__mock/openapi.json' }),
  getDrift: fc.constantFrom('', '?format=junit', '?format=x').map((q) => ({ method: 'GET', path: `/__mock/drift${q}` })),
  clearDrift: fc.constant({ method: 'DELETE', path: '/__mock/drift' }),
  principalOf: fc.record({ token: field(hostileString) }, { requiredKeys: [] }).map((body) => ({ method: 'POST', path: '/__mock/principal', body })),
};

const operationIds = (file: string) =>
  Object.values(JSON.parse(readFileSync(join(ROOT, file), 'utf8')).paths as Record<string, Record<string, { operationId?: string }>>).flatMap((p) => Object.values(p).flatMap((o) => (o.operationId ? [o.operationId] : [])));

let dir: string;
let cli: RunningCli;
let demo: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-cp-fuzz-'));
  cli = await startCli(ARGS, { cwd: dir });
  await fetch(`${cli.url}/mailboxes`, { headers: DEMO });
  demo = encodeURIComponent(((await (await fetch(`${cli.url}/__mock/workspaces`)).json()) as { items: { principal: string }[] }).items[0].principal);
});
afterAll(async () => {
  cli.child.kill('SIGKILL');
  await cli.exited;
  rmSync(dir, { recursive: true, force: true });
});

async function call(c: Call): Promise<number> {
  const path = c.path.replace('{demo}', demo);
  if (c.multipart) {
    const body = multipart('fz', [{ name: 'file', filename: 'f.txt', type: 'text/plain', content: 'fuzz' }]);
    return (await fetch(`${cli.url}${path}`, { method: c.method, headers: { 'Content-Type': 'multipart/form-data; boundary=fz' }, body })).status;
  }
  const res = await fetch(`${cli.url}${path}`, { method: c.method, headers: { 'Content-Type': 'application/json' }, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
  await res.arrayBuffer();
  return res.status;
}

/** One valid request per service operation, with ids taken from what the workspace now holds. */
async function everyServiceOperation(): Promise<Record<string, number>> {
  const get = async (path: string) => (await (await fetch(`${cli.url}${path}`, { headers: DEMO })).json()) as any;
  const send = async (method: string, path: string, init: { json?: unknown; form?: string; multipart?: Buffer } = {}) => {
    const headers: Record<string, string> = { ...DEMO };
    let body: string | Buffer | undefined;
    if (init.json !== undefined) [headers['Content-Type'], body] = ['application/json', JSON.stringify(init.json)];
    if (init.form !== undefined) [headers['Content-Type'], body] = ['application/x-www-form-urlencoded', init.form];
    if (init.multipart) [headers['Content-Type'], body] = ['multipart/form-data; boundary=sv', init.multipart];
    const res = await fetch(`${cli.url}${path}`, { method, headers, body });
    await res.arrayBuffer();
    return res.status;
  };
  const exported = await get(`/__mock/workspaces/${demo}?content=false`);
  const session = exported.sessions?.[0]?.id ?? 'sess_demo';
  const file = exported.sessions?.[0]?.files?.[0]?.id ?? 'file_none';
  const mailbox = exported.mailboxes?.[0]?.id ?? 'mbx_none';
  const secret = exported.secrets?.[0] ?? { id: 'sec_none', name: 'NONE', namespace: 'function_env' };
  const s = encodeURIComponent(session);
  return {
    createToken: await send('POST', '/token', { form: 'username=dev%40example.com&password=password' }),
    listSessionFiles: await send('GET', `/sessions/${s}/files`),
    uploadSessionFile: await send('POST', `/sessions/${s}/files`, { multipart: multipart('sv', [{ name: 'file', filename: 'after.txt', type: 'text/plain', content: 'after fuzzing' }]) }),
    downloadSessionFile: await send('GET', `/sessions/${s}/files/${encodeURIComponent(file)}`),
    getSessionScript: await send('GET', `/sessions/${s}/workflow/code?as_workflow=true&infer_response_format=true`),
    deleteSessionFile: await send('DELETE', `/sessions/${s}/files/${encodeURIComponent(file)}`),
    listMailboxes: await send('GET', '/mailboxes'),
    getMailbox: await send('GET', `/mailboxes/${encodeURIComponent(mailbox)}`),
    updateMailbox: await send('PATCH', `/mailboxes/${encodeURIComponent(mailbox)}`, { json: { allow_all_senders: true } }),
    syncMailboxes: await send('POST', '/mailboxes/sync', { json: {} }),
    deleteMailbox: await send('DELETE', `/mailboxes/${encodeURIComponent(mailbox)}`),
    storeSecret: await send('POST', '/secrets', { json: { name: 'AFTER_FUZZ', value: 'after-fuzz-value' } }),
    listSecrets: await send('GET', '/secrets'),
    getSecret: await send('GET', `/secrets/${encodeURIComponent(secret.name)}?namespace=${secret.namespace}`),
    deleteSecret: await send('DELETE', `/secrets/${encodeURIComponent(secret.id)}`),
  };
}

test('the fuzzer has a generator for every control-plane operation', () => {
  expect(Object.keys(OPERATIONS).sort()).toEqual(operationIds('control-plane.openapi.json').sort());
});

/**
 * The distinct calls among `RUNS_PER_OPERATION` samples, in the order drawn. An operation with a
 * small domain (listWorkspaces has one request; getCoverage three) draws the same request again and
 * again, each sent right after the last on the state it left: sent once, it tries what the repeats
 * tried. (Seed 16 draws 581 distinct calls of 1,450.)
 */
function distinctCalls(arbitrary: fc.Arbitrary<Call>): Call[] {
  const seen = new Set<string>();
  return fc.sample(arbitrary, { seed: SEED, numRuns: RUNS_PER_OPERATION }).filter((c) => {
    const key = JSON.stringify([c.method, c.path, c.body, c.multipart]);
    return !seen.has(key) && (seen.add(key), true);
  });
}

test(`${RUNS_PER_OPERATION} fuzzed requests per control-plane operation, each distinct one sent: never a 5xx; then every service operation answers below 500, also after a restart`, async () => {
  const failures: string[] = [];
  // Drawn before the first request: drawing a snapshot's 2 MB strings between two requests can
  // leave the keep-alive connection idle past its timeout on a busy machine, and the next request
  // then meets the connection closing (read ECONNRESET), which is not what this test looks for.
  const drawn = Object.entries(OPERATIONS).map(([name, arbitrary]) => [name, distinctCalls(arbitrary)] as const);
  for (const [name, calls] of drawn) {
    for (const c of calls) {
      const status = await call(c);
      if (status >= 500) failures.push(`${name}: ${c.method} ${c.path.slice(0, 80)} ${JSON.stringify(c.body)?.slice(0, 300)} → ${status}`);
    }
  }
  expect(failures).toEqual([]);

  // Faults make the service fail on purpose; everything else the fuzzing left stays.
  expect((await fetch(`${cli.url}/__mock/faults`, { method: 'DELETE' })).status).toBe(204);
  const after = await everyServiceOperation();
  expect(Object.keys(after).sort()).toEqual(operationIds('openapi.json').sort());
  expect(Object.entries(after).filter(([, status]) => status >= 500)).toEqual([]);

  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
  // The data directory remembers the scenario the fuzzing switched to; start-up must name it.
  const meta = JSON.parse(readFileSync(join(dir, 'data', 'meta.json'), 'utf8')) as { scenario: string; seed: number };
  cli = await startCli([...ARGS, '--scenario', meta.scenario, '--seed', String(meta.seed)], { cwd: dir });
  const restarted = await everyServiceOperation();
  expect(Object.entries(restarted).filter(([, status]) => status >= 500)).toEqual([]);
  // About a thousand requests: jest's 30 s default is a time bound this test does not mean to set
  // (it timed out at 30 s beside a second jest worker on a 2-core machine under a load average of 13).
}, 180_000);
