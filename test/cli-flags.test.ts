/**
 * Start-up problems and flag precedence as users meet them: the built CLI as a child process,
 * each case one row of a table. Every problem is one line naming the flag or variable.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runCli, startCli, type RunningCli } from './cli-process.js';
import { section } from './doc-pages.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-flags-'));
  writeFileSync(join(dir, 'afile'), 'not a directory');
  mkdirSync(join(dir, 'adir'));
  writeFileSync(join(dir, 'broken.json'), '{"format": 1,');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}, as: { uid?: number; gid?: number } = {}) => runCli(args, { cwd: dir, env, ...as });

const M = ['--port', '0', '--log-level', 'silent'];

describe.each([
  ['a switch given a value it cannot take', ['--in-memory=maybe'], {}, /^--in-memory is a switch: give it alone, or =true \/ =false, not "maybe"$/],
  ['a negative journal size', ['--journal-size', '-1', '--in-memory'], {}, /^--journal-size must be a whole number of requests, not "-1"$/],
  ['a flag where a value should be', ['--port', '--in-memory'], {}, /^option --port needs a value \(see --help\)$/],
  ['a flag spelt with underscores', ['--data_dir', 'x'], {}, /^unknown option --data_dir; did you mean --data-dir\?$/],
  ['a scenario that does not exist', ['--scenario', 'nosuch', ...M], {}, /^--scenario: scenario "nosuch" not found: no file .*nosuch \(built-in scenarios: default,/],
  ['a scenario that names a directory', ['--scenario', 'adir', ...M, '--in-memory'], {}, /^--scenario: scenario .*adir is a directory; name a scenario file/],
  ['a scenario variable that names a broken file', [...M, '--in-memory'], { CBM_SCENARIO: 'broken.json' }, /^CBM_SCENARIO: scenario file .*broken\.json is not valid JSON/],
  ['a data directory that is a file', ['--data-dir', 'afile', ...M], {}, /^--data-dir afile is a file, not a directory; name a directory/],
  ['a data directory below a file', ['--data-dir', 'afile/data', ...M], {}, /^--data-dir afile\/data cannot be created: .*afile is a file/],
  ['a data directory from the environment that is a file', M, { CBM_DATA_DIR: 'afile' }, /^CBM_DATA_DIR afile is a file, not a directory/],
])('%s', (_title, args, env, message) => {
  test('prints one line naming it and exits 2, leaving nothing behind', () => {
    const r = run(args, env);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^cloud-browser-mock: /);
    expect(r.stderr.replace(/^cloud-browser-mock: /, '').trim()).toMatch(message);
    expect(r.status).toBe(2);
    expect(existsSync(join(dir, '.cloud-browser-mock'))).toBe(false);
  });
});

const hasProc = existsSync('/proc/self');
(hasProc ? test : test.skip)(`${hasProc ? '' : '[skipped: no /proc on this system] '}--data-dir /proc/nope is refused at once with one line (Node's recursive mkdir spins there)`, () => {
  const r = run(['--data-dir', '/proc/nope', ...M]);
  expect(r.stderr.trim()).toMatch(/^cloud-browser-mock: --data-dir \/proc\/nope cannot be created \(ENOENT creating \/proc\/nope\); name a directory/);
  expect(r.status).toBe(2);
});

// Root may write anywhere, so as root the mock runs as nobody, like a container user whose
// mounted host directory belongs to someone else.
const root = process.getuid?.() === 0;
// As root the CLI is run as nobody, who must be able to reach the built CLI: not so in a clone
// under a private (0700) directory such as mktemp's, where this block is skipped and says why
// (.ci/run makes its clone's directory reachable).
const nobodyReachesCli = !root || spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(CLI)}, 4)`], { uid: 65534, gid: 65534 }).status === 0;
const describeUnwritable = nobodyReachesCli ? describe : describe.skip;
describeUnwritable(`a data directory the user cannot write${nobodyReachesCli ? '' : ' [SKIPPED: running as root, and user nobody (uid 65534) cannot reach the built CLI in this private directory]'}`, () => {
  const as = root ? { uid: 65534, gid: 65534 } : {};
  beforeEach(() => {
    mkdirSync(join(dir, 'readonly'));
    chmodSync(join(dir, 'readonly'), 0o555);
    chmodSync(dir, 0o755);
  });
  test.each([
    [['--data-dir', 'readonly'], {}, /^--data-dir readonly is not writable by this user \(uid \d+, EACCES\); .*--user/],
    [[], { CBM_DATA_DIR: 'readonly' }, /^CBM_DATA_DIR readonly is not writable by this user/],
    [['--data-dir', 'readonly/data'], {}, /^--data-dir readonly\/data cannot be created \(EACCES creating .*readonly\/data\)/],
  ])('%j %j: one line naming it, exit 2 (not "cannot listen … EACCES")', (args, env, message) => {
    const r = run([...args, ...M], env, as);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.replace(/^cloud-browser-mock: /, '').trim()).toMatch(message);
    expect(r.status).toBe(2);
  });
});

describe.each([
  ['the flag wins over both variables', ['--port', 'flag'], { CBM_PORT: 'cbm', PORT: 'plain' }, '--port must be a port number from 0 to 65535, not "flag"'],
  ['CBM_PORT wins over PORT', [], { CBM_PORT: 'cbm', PORT: 'plain' }, 'CBM_PORT must be a port number from 0 to 65535, not "cbm"'],
  ['PORT is the fallback', [], { PORT: 'plain' }, 'PORT must be a port number from 0 to 65535, not "plain"'],
  ['an empty CBM_PORT counts as unset', [], { CBM_PORT: '', PORT: 'plain' }, 'PORT must be a port number from 0 to 65535, not "plain"'],
  ['the flag wins over CBM_HOST and HOST', ['--host', ''], { CBM_HOST: 'x', HOST: 'y' }, '--host must not be empty, not ""'],
])('precedence: %s', (_title, args, env, line) => {
  test('the error names the value that was used', () => {
    const r = run([...args, '--in-memory'], env);
    expect(r.stderr).toBe(`cloud-browser-mock: ${line}\n`);
    expect(r.status).toBe(2);
  });
});

test('--in-memory=false with CBM_DATA_DIR keeps state in that directory', async () => {
  const cli = await startCli(['--in-memory=false', ...M], { cwd: dir, env: { CBM_DATA_DIR: 'state' } });
  cli.child.kill('SIGTERM');
  expect(await cli.exited).toBe(0);
  expect(existsSync(join(dir, 'state', 'meta.json'))).toBe(true);
});

/** The help line of a flag (--help run once for the file), and its row in the Configuration table (docs/configuration.md, once the README's). */
let help: string | undefined;
const helpLine = (flag: string) => (help ??= run(['--help']).stdout).split('\n').find((l) => l.startsWith(`  --${flag} `))!;
const readmeRow = (flag: string) => section('docs/configuration.md', 'Configuration').split('\n').find((l) => l.startsWith(`| \`--${flag} `))!;

/**
 * Two in-memory children shared by the cases below, each asserting its own thing of them: A is
 * `--in-memory=true --seed 1` with the default file TTL, B is `--in-memory=1 --seed 2 --file-ttl
 * 90s`. Started on first use in a directory of their own; a case that stops one forgets it, so a
 * later case (or a filtered run) starts it again. A child each per case was most of this file's CPU.
 */
let sharedDir: string;
beforeAll(() => {
  sharedDir = mkdtempSync(join(tmpdir(), 'cbm-flags-shared-'));
});
const SHARED = { A: ['--in-memory=true', '--seed', '1'], B: ['--in-memory=1', '--seed', '2', '--file-ttl', '90s'] };
const running = new Map<keyof typeof SHARED, Promise<RunningCli>>();
const shared = (name: keyof typeof SHARED) => {
  if (!running.has(name)) running.set(name, startCli([...SHARED[name], ...M], { cwd: sharedDir }));
  return running.get(name)!;
};
async function stopShared(name: keyof typeof SHARED) {
  const cli = await shared(name);
  running.delete(name);
  cli.child.kill('SIGTERM');
  return cli.exited;
}
afterAll(async () => {
  await Promise.all([...running.keys()].map(stopShared));
  rmSync(sharedDir, { recursive: true, force: true });
});

test('--file-ttl says it changes only files uploaded while running — and that is what it does', async () => {
  for (const text of [helpLine('file-ttl'), readmeRow('file-ttl')]) expect(text).toMatch(/files uploaded while running.*the scenario's files keep the expiry the scenario gives them/);
  const A = { Authorization: 'Bearer sk_test_demo' };
  const files = async (cli: RunningCli) => {
    const body = new FormData();
    body.append('file', new Blob(['hello']), 'hello.txt');
    const up = (await (await fetch(`${cli.url}/sessions/sess_demo/files`, { method: 'POST', headers: A, body })).json()) as any;
    const seeded = ((await (await fetch(`${cli.url}/sessions/sess_demo/files`, { headers: A })).json()) as any).files.find((f: any) => f.id === 'file_demo_notes');
    const life = (f: any) => (Date.parse(f.expires_at) - Date.parse(f.created_at)) / 1000;
    return { upload: life(up), seeded: life(seeded) };
  };
  // B has --file-ttl 90s, A the default; both in memory, started side by side.
  const [short, usual] = await Promise.all([shared('B').then(files), shared('A').then(files)]);
  expect(short.upload).toBe(90);
  expect(usual.upload).toBe(7 * 24 * 3600);
  expect(short.seeded).toBe(usual.seeded);
});

test('--seed says it changes only ids made while running — and that is what it does', async () => {
  for (const text of [helpLine('seed'), readmeRow('seed')]) expect(text).toMatch(/ids the mock makes while running.*the scenario's own data and ids are the (scenario )?file's/);
  const A = { Authorization: 'Bearer sk_test_demo', 'Content-Type': 'application/json' };
  const ids = async (cli: RunningCli) => {
    const made = (await (await fetch(`${cli.url}/secrets`, { method: 'POST', headers: A, body: '{"name":"NEW","value":"v"}' })).json()) as any;
    const listed = ((await (await fetch(`${cli.url}/secrets`, { headers: A })).json()) as any).items;
    return { made: made.id, seeded: listed.filter((s: any) => s.name !== 'NEW').map((s: any) => `${s.id} ${s.name} ${s.namespace}`) };
  };
  // A has --seed 1, B --seed 2.
  const [one, two] = await Promise.all([shared('A').then(ids), shared('B').then(ids)]);
  expect(one.made).not.toBe(two.made);
  expect(one.seeded.length).toBeGreaterThan(0);
  expect(two.seeded).toEqual(one.seeded);
});

// Last: these stop the shared children (after what the cases above made in them).
test.each([['--in-memory=true', 'A'], ['--in-memory=1', 'B']] as const)('%s is the switch turned on: it starts and writes nothing to disk', async (_flag, name) => {
  const cli = await shared(name);
  expect((await fetch(`${cli.url}/mailboxes`, { headers: { Authorization: 'Bearer t' } })).status).toBe(200);
  expect(await stopShared(name)).toBe(0);
  expect(existsSync(join(sharedDir, '.cloud-browser-mock'))).toBe(false);
});
