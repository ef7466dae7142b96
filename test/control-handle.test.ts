/**
 * One test body, two handles: startMockServer() in-process and connectMockServer() against the
 * CLI started as a child process. Both must behave alike — same methods, same units (seconds or
 * ISO 8601), same errors — so a test written against one runs against the other.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMockServer, MockControlError, startMockServer, type MockControl } from '../src/index.js';
import { startCli, type RunningCli } from './cli-process.js';
import { bearer, multipart } from './helpers.js';

const A = bearer('sk_test_demo');
const WORKER = 'worker-7-made-up-token';

interface Started {
  control: MockControl;
  stop(): Promise<void>;
}

async function inProcess(): Promise<Started> {
  const mock = await startMockServer({ logLevel: 'silent', validateResponses: true });
  return { control: mock, stop: () => mock.close() };
}

async function cliProcess(args: string[] = [], adminToken?: string): Promise<Started & { cli: RunningCli }> {
  const cwd = mkdtempSync(join(tmpdir(), 'cbm-handle-'));
  const cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'warn', '--validate-responses', ...args], { cwd });
  const control = await connectMockServer(cli.url, { adminToken });
  return {
    cli,
    control,
    stop: async () => {
      cli.child.kill('SIGTERM');
      await cli.exited;
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

const upload = (url: string, token: string, name: string) =>
  fetch(`${url}/sessions/sess_demo/files`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'multipart/form-data; boundary=h' },
    body: multipart('h', [{ name: 'file', filename: name, type: 'text/plain', content: 'hello' }]),
  });

describe.each([
  ['startMockServer (in-process)', inProcess],
  ['connectMockServer → the CLI as a child process', () => cliProcess()],
])('%s', (_name, start) => {
  let started: Started;
  let mock: MockControl;
  beforeAll(async () => {
    started = await start();
    mock = started.control;
  });
  beforeEach(() => mock.reset());
  afterAll(() => started.stop());

  test('faults.add/list/remove/clear: a 503 once, then the real answer; the journal shows both', async () => {
    const fault = await mock.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 });
    expect(fault).toMatchObject({ operationId: 'listSessionFiles', status: 503, times: 1 });
    expect((await mock.faults.list()).map((f) => f.id)).toEqual([fault.id]);
    expect((await fetch(`${mock.url}/sessions/sess_demo/files`, { headers: A })).status).toBe(503);
    expect((await fetch(`${mock.url}/sessions/sess_demo/files`, { headers: A })).status).toBe(200);
    expect((await mock.requests({ operationId: 'listSessionFiles' })).map((r) => r.status)).toEqual([200, 503]);

    const forever = await mock.faults.add({ operationId: '*', status: 500 });
    await mock.faults.remove(forever.id);
    expect(await mock.faults.list()).toEqual([]);
    await mock.faults.add({ operationId: '*', status: 500 });
    await mock.faults.clear();
    expect((await fetch(`${mock.url}/secrets`, { headers: A })).status).toBe(200);
  });

  test('control-plane errors are thrown with their status and detail', async () => {
    const unknown = mock.faults.remove('flt_999');
    await expect(unknown).rejects.toBeInstanceOf(MockControlError);
    await expect(unknown).rejects.toMatchObject({ status: 404, detail: 'Fault flt_999 not found' });
    await expect(mock.faults.add({ operationId: 'noSuchOperation', status: 503 })).rejects.toMatchObject({ status: 422, detail: expect.stringContaining('noSuchOperation') });
    await expect(mock.clock.advance('soon')).rejects.toMatchObject({ status: 422, message: expect.stringContaining('advance must be seconds or an ISO-8601 duration') });
  });

  test('faults.add with an operationId the service lacks throws, guessing what was meant and listing the valid ids', async () => {
    const typo = mock.faults.add({ operationId: 'listMailbox', status: 503 });
    await expect(typo).rejects.toBeInstanceOf(MockControlError);
    await expect(typo).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^POST \/__mock\/faults → 422: unknown operationId "listMailbox" — did you mean one of listMailboxes, getMailbox\b.*\? operationId must be \* or one of createToken, .*, deleteSecret$/) });
    expect(await mock.faults.list()).toEqual([]);
  });

  test('clock.set/advance/now/reset take instants and seconds or ISO-8601 durations, as the control plane does', async () => {
    expect(await mock.clock.set('2030-01-01T00:00:00Z')).toMatchObject({ now: '2030-01-01T00:00:00Z', frozen: true });
    expect((await mock.clock.advance('P8D')).now).toBe('2030-01-09T00:00:00Z');
    expect((await mock.clock.advance(90)).now).toBe('2030-01-09T00:01:30Z');
    expect((await mock.clock.now()).now).toBe('2030-01-09T00:01:30Z');
    await mock.clock.set(new Date('2031-06-01T12:00:00Z'));
    expect((await mock.clock.now()).now).toBe('2031-06-01T12:00:00Z');
    expect(await mock.clock.reset()).toMatchObject({ frozen: false, offset_seconds: 0 });
  });

  test('an uploaded file downloads until the clock moves past its expiry, then 410', async () => {
    const file = (await (await upload(mock.url, 'sk_test_demo', 'a.txt')).json()) as { id: string };
    expect((await fetch(`${mock.url}/sessions/sess_demo/files/${file.id}`, { headers: A })).status).toBe(200);
    await mock.clock.advance('P8D');
    expect((await fetch(`${mock.url}/sessions/sess_demo/files/${file.id}`, { headers: A })).status).toBe(410);
  });

  test('requests(filter): by operation, principal, status and since', async () => {
    const before = new Date(Date.now() - 1000);
    await fetch(`${mock.url}/secrets`, { headers: A });
    await fetch(`${mock.url}/sessions/nope/files`, { headers: A });
    expect((await mock.requests({ operationId: 'listSecrets' })).map((r) => [r.principal, r.status])).toEqual([['user:dev@example.com', 200]]);
    expect((await mock.requests({ status: 404 })).map((r) => r.path)).toEqual(['/sessions/nope/files']);
    expect(await mock.requests({ since: before })).toHaveLength(2);
    expect(await mock.requests({ since: '2100-01-01T00:00:00Z' })).toEqual([]);
  });

  test('workspace(principal): the snapshot with secret values; coverage(): what was answered; drift(): empty without --upstream', async () => {
    const ws = await mock.workspace('user:dev@example.com');
    expect(ws.sessions.map((s: any) => s.id)).toContain('sess_demo');
    expect(ws.secrets.find((s: any) => s.name === 'OPENAI_API_KEY')).toMatchObject({ value: expect.stringMatching(/^sk-demo-/) });
    await fetch(`${mock.url}/secrets`, { headers: A });
    const listSecrets = (await mock.coverage()).operations.find((o) => o.operationId === 'listSecrets');
    expect(listSecrets?.responses['200']).toBe(1);
    expect(await mock.drift()).toEqual([]); // no --upstream: nothing to drift from
  });

  test('principalOf(token): a scenario key is its owner; any other token key:<24 hex of SHA-256>; reset(principal) resets only it', async () => {
    expect(await mock.principalOf('sk_test_demo')).toBe('user:dev@example.com');
    const mine = await mock.principalOf(WORKER);
    expect(mine).toBe(`key:${createHash('sha256').update(WORKER).digest('hex').slice(0, 24)}`);
    expect((await upload(mock.url, WORKER, 'mine.txt')).status).toBe(201);
    expect((await upload(mock.url, 'sk_test_demo', 'theirs.txt')).status).toBe(201);
    await mock.reset(mine);
    const names = async (p: string) => (await mock.workspace(p)).sessions.find((s: any) => s.id === 'sess_demo')!.files.map((f: any) => f.filename);
    expect(await names(mine)).not.toContain('mine.txt');
    expect(await names('user:dev@example.com')).toContain('theirs.txt');
  });

  test('reset() restores everything: workspaces, clock, faults, journal', async () => {
    await upload(mock.url, 'sk_test_demo', 'gone.txt');
    await mock.clock.advance(3600);
    await mock.faults.add({ operationId: 'listSecrets', status: 500 });
    await mock.reset();
    expect((await mock.clock.now()).offset_seconds).toBeCloseTo(0, 0);
    expect(await mock.faults.list()).toEqual([]);
    expect(await mock.requests()).toEqual([]);
    const files = (await mock.workspace('user:dev@example.com')).sessions.find((s: any) => s.id === 'sess_demo')!.files;
    expect(files.map((f: any) => f.filename)).not.toContain('gone.txt');
  });
});

describe('--admin-token', () => {
  let started: Awaited<ReturnType<typeof cliProcess>>;
  beforeAll(async () => {
    started = await cliProcess(['--admin-token', 'adm-secret'], 'adm-secret');
  });
  afterAll(() => started.stop());

  test('connectMockServer without the token: every call is refused with 401', async () => {
    const bare = await connectMockServer(started.cli.url);
    await expect(bare.faults.list()).rejects.toMatchObject({ status: 401, detail: 'Not authenticated' });
    await expect(bare.reset()).rejects.toMatchObject({ status: 401 });
  });

  test('with the token: accepted', async () => {
    expect(await started.control.faults.list()).toEqual([]);
    expect(await started.control.principalOf('sk_test_demo')).toBe('user:dev@example.com');
  });

  test('startMockServer({ adminToken }) sends it on its own calls', async () => {
    const mock = await startMockServer({ logLevel: 'silent', adminToken: 'adm-2' });
    try {
      expect((await fetch(`${mock.url}/__mock/faults`)).status).toBe(401);
      expect(await mock.faults.list()).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});

test('principalOf under --auth strict: a token strict mode refuses is a 422, a scenario key its owner', async () => {
  const mock = await startMockServer({ logLevel: 'silent', auth: 'strict' });
  try {
    expect(await mock.principalOf('sk_test_demo')).toBe('user:dev@example.com');
    await expect(mock.principalOf(WORKER)).rejects.toMatchObject({ status: 422, detail: expect.stringContaining('--auth strict') });
  } finally {
    await mock.close();
  }
});
