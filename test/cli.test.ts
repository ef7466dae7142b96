/** The CLI as users meet it: a child process of the built command. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLAGS, UsageError, envName, parseCli } from '../src/cli/cli-args.js';
import { runCli, startCli } from './cli-process.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: dir, env });
const start = (args: string[], env: Record<string, string> = {}) => startCli(args, { cwd: dir, env });

test('the CLI compiles its validators after listen ("validators warmed" at debug), also where CBM_TEST_NO_WARM is set outside NODE_ENV=test', async () => {
  const args = ['--port', '0', '--in-memory', '--log-level', 'debug'];
  // As a user runs it (cli-process.ts's children skip the warm-up unless told otherwise).
  const plain = await start(args, { NODE_ENV: '', CBM_TEST_NO_WARM: '' });
  // The suite's switch is read only under NODE_ENV=test: a user's environment holding it changes nothing.
  const stray = await start(args, { NODE_ENV: 'production', CBM_TEST_NO_WARM: '1' });
  try {
    await Promise.all([plain.waitFor(/"msg":"validators warmed"/), stray.waitFor(/"msg":"validators warmed"/)]);
    const r = await fetch(`${plain.url}/mailboxes`, { headers: { Authorization: 'Bearer sk_test_demo' } });
    expect(r.status).toBe(200);
  } finally {
    for (const c of [plain, stray]) c.child.kill('SIGTERM');
    await Promise.all([plain.exited, stray.exited]);
  }
});

test('--help lists every flag with its environment variable', () => {
  const r = run(['--help']);
  expect(r.status).toBe(0);
  for (const flag of Object.keys(FLAGS)) {
    expect(r.stdout).toContain(`--${flag}`);
    if (flag !== 'help' && flag !== 'version') expect(r.stdout).toContain(envName(flag));
  }
});

describe.each([
  [['--bogus'], /^cloud-browser-mock: unknown option --bogus \(see --help\)\n$/],
  [['--port', 'abc'], /^cloud-browser-mock: --port must be a port number from 0 to 65535, not "abc"\n$/],
  [['--auth', 'maybe'], /^cloud-browser-mock: --auth must be open or strict, not "maybe"\n$/],
  [['--file-ttl', 'soon'], /^cloud-browser-mock: --file-ttl must be a positive duration/],
  [['--max-upload', '10 parsecs'], /^cloud-browser-mock: --max-upload must be a positive size/],
  [['--in-memory', '--data-dir', 'x'], /^cloud-browser-mock: --data-dir and --in-memory exclude each other\n$/],
  [['--port'], /^cloud-browser-mock: option --port needs a value/],
  [['--cors', 'localhost:3000'], /^cloud-browser-mock: --cors must be \* or comma-separated origins such as http:\/\/localhost:5173, not "localhost:3000"\n$/],
  [['--log-level', 'loud'], /^cloud-browser-mock: --log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"\n$/],
])('bad flags: %j', (args, message) => {
  test('print one line naming the flag and exit 2', () => {
    const r = run(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

test.each([
  [['--in-memory'], { CBM_DATA_DIR: '/data' }, { inMemory: true, dataDir: undefined }],
  [['--data-dir', 'here'], { CBM_IN_MEMORY: 'true' }, { inMemory: false, dataDir: 'here' }],
  [[], { CBM_DATA_DIR: '/data' }, { inMemory: false, dataDir: '/data' }],
])('a flag overrides the environment between --in-memory and --data-dir: %j with %j', (argv, env, expected) => {
  const { options } = parseCli(argv, env);
  expect({ inMemory: options.inMemory, dataDir: options.dataDir }).toEqual(expected);
});

test('the environment naming both --in-memory and --data-dir is a usage error naming both variables', () => {
  expect(() => parseCli([], { CBM_IN_MEMORY: '1', CBM_DATA_DIR: '/data' })).toThrow(new UsageError('CBM_DATA_DIR and CBM_IN_MEMORY exclude each other'));
});

test('a bad value from the environment names the variable', () => {
  const r = run([], { CBM_PORT: '99999' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('CBM_PORT must be a port number');
});

test('starts on a free port, serves /health and an operation, and exits 0 on SIGTERM', async () => {
  const { child, url, exited: code } = await start(['--port', '0', '--in-memory', '--log-level', 'silent']);
  expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: 'ok' });
  const res = await fetch(`${url}/mailboxes`, { headers: { Authorization: 'Bearer sk_test_demo' } });
  expect(res.status).toBe(200);
  child.kill('SIGTERM');
  expect(await code).toBe(0);
});

test('SIGINT also stops it cleanly; settings come from CBM_ variables', async () => {
  const { child, url, exited: code } = await start([], { CBM_PORT: '0', CBM_IN_MEMORY: 'true', CBM_AUTH: 'strict', CBM_LOG_LEVEL: 'silent' });
  expect((await fetch(`${url}/mailboxes`, { headers: { Authorization: 'Bearer made-up' } })).status).toBe(401);
  child.kill('SIGINT');
  expect(await code).toBe(0);
});

test('restarting on the data directory with another scenario stops with the --reset-data line', async () => {
  const first = await start(['--port', '0', '--log-level', 'silent']);
  const code = first.exited;
  await fetch(`${first.url}/mailboxes`, { headers: { Authorization: 'Bearer t' } });
  first.child.kill('SIGTERM');
  expect(await code).toBe(0);
  const r = run(['--port', '0', '--scenario', 'empty']);
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/holds scenario "default" with seed 1, not "empty" with seed 1; start with --reset-data/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
});

test('logs one JSON line per service request with the contract’s fields, and never the token', async () => {
  const { child, url, output, exited: code } = await start(['--port', '0', '--in-memory']);
  await fetch(`${url}/secrets?namespace=llm_provider`, { headers: { Authorization: 'Bearer super-secret-token' } });
  await fetch(`${url}/health`);
  child.kill('SIGTERM');
  expect(await code).toBe(0);
  const lines = output().split('\n').filter((l) => l.startsWith('{'));
  expect(lines).toHaveLength(1);
  const entry = JSON.parse(lines[0]);
  expect(entry).toMatchObject({ method: 'GET', url: '/secrets?namespace=llm_provider', operationId: 'listSecrets', status: 200 });
  expect(entry.principal).toMatch(/^key:[0-9a-f]{24}$/);
  expect(typeof entry.duration_ms).toBe('number');
  expect(output()).not.toContain('super-secret-token');
});
