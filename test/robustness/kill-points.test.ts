/**
 * The CLI killed inside each operation that replaces or adds state (issue 15 "Done when"): a reset
 * of everything, a reset of one principal, a scenario switch, a workspace import and an upload —
 * at named instants (CBM_TEST_CRASH_AT, read only by the CLI under NODE_ENV=test: src/store/test-hooks.ts),
 * not after timed delays, which mostly landed before or after the operation. A first run builds
 * the state every case starts from and stops cleanly (once for the file: each case runs on a copy
 * of its data directory), then a second run makes some more acknowledged writes
 * and starts the operation, which kills the process at its instant; a third run (a server in this
 * process, startMockServer, on the same directory) checks, through the API and on disk: every
 * acknowledged write the operation does not replace is there, what it replaced is wholly gone
 * (the instants lie after each operation's commit point), every record's bytes download with its
 * checksum, and no blob, temporary file or stale state is left. Write storms killed at every
 * instant of an append are crash-instants.test.ts's; a record whose bytes went missing on disk is
 * the last case here.
 */
import { afterAll, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer } from '../../src/server.js';
import { workspaceFileStem } from '../../src/store/workspace-file.js';
import { runCli, startCli, type RunningCli } from '../cli-process.js';
import { blobFiles, stateDir, tempFiles, workspacesDir } from '../data-layout.js';
import { orAfter } from '../helpers.js';

const root = mkdtempSync(join(tmpdir(), 'cbm-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent'];
const SESSION = 'sess_demo';
const TOKENS = ['kill-a', 'kill-b'] as const;
type Token = (typeof TOKENS)[number];
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const content = (name: string) => `bytes of ${name} `.repeat(50);

type Write = { token: Token; kind: 'file'; id: string; name: string; checksum: string } | { token: Token; kind: 'secret'; name: string };

async function upload(url: string, token: Token, name: string): Promise<Write | 'gone'> {
  const form = new FormData();
  form.append('file', new Blob([content(name)]), `${name}.txt`);
  let res: Response;
  try {
    res = await fetch(`${url}/sessions/${SESSION}/files`, { method: 'POST', headers: auth(token), body: form });
  } catch {
    return 'gone'; // the process died before answering
  }
  expect([name, res.status]).toEqual([name, 201]);
  const body = (await res.json()) as { id: string; checksum: string };
  return { token, kind: 'file', id: body.id, name, checksum: body.checksum };
}

async function storeSecret(url: string, token: Token, name: string): Promise<Write> {
  const res = await fetch(`${url}/secrets`, { method: 'POST', headers: { ...auth(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${name}` }) });
  expect([name, res.status]).toEqual([name, 201]);
  return { token, kind: 'secret', name };
}

const EACH = 2;
/** Appends writeSome makes: one per write, as each is awaited before the next. */
const APPENDS = TOKENS.length * EACH * 2;

/** EACH uploads and EACH secrets of each principal, one at a time, each acknowledged. */
async function writeSome(url: string, prefix: string): Promise<Write[]> {
  const out: Write[] = [];
  for (const token of TOKENS) {
    for (let i = 0; i < EACH; i++) {
      const name = `${prefix}_${token}_${i}`.replace(/-/g, '_');
      const up = await upload(url, token, name);
      if (up === 'gone') throw new Error(`upload ${name}: no answer`);
      out.push(up, await storeSecret(url, token, name));
    }
  }
  return out;
}

async function principalOf(url: string, token: Token): Promise<string> {
  const res = await fetch(`${url}/__mock/principal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  return ((await res.json()) as { principal: string }).principal;
}

/** A control-plane request the crash cuts off: resolves with its status, or 'gone'. */
async function control(url: string, method: string, path: string, body?: string): Promise<number | 'gone'> {
  try {
    const res = await fetch(`${url}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 'gone';
  }
}

async function stop(cli: RunningCli): Promise<void> {
  if (cli.child.exitCode !== null || cli.child.signalCode !== null) return;
  cli.child.kill('SIGTERM');
  await cli.exited;
}

/** A session's whole listing, page by page. */
async function listing(url: string, token: Token, session = SESSION): Promise<{ id: string; filename: string; checksum: string }[]> {
  const all: { id: string; filename: string; checksum: string }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await fetch(`${url}/sessions/${session}/files?limit=1000&offset=${offset}`, { headers: auth(token) });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { files: { id: string; filename: string; checksum: string }[]; total: number };
    all.push(...page.files);
    if (all.length >= page.total || page.files.length === 0) return all;
  }
}

/**
 * The checks of the run after the crash: every listed file's bytes download with its checksum;
 * each of `kept` is there as written, none of `gone` is (a file by id, a secret by name). Returns
 * how many of our uploads are listed (each must have exactly one blob).
 */
async function expectState(url: string, kept: Write[], gone: Write[]): Promise<number> {
  let ours = 0;
  for (const token of TOKENS) {
    const files = await listing(url, token);
    for (const f of files) {
      const res = await fetch(`${url}/sessions/${SESSION}/files/${f.id}`, { headers: auth(token) });
      expect([f.id, res.status, sha(Buffer.from(await res.arrayBuffer()))]).toEqual([f.id, 200, f.checksum]);
    }
    const listed = new Map(files.map((f) => [f.id, f]));
    ours += files.filter((f) => /^(setup|before|during)_/.test(f.filename)).length;
    const secretRes = await fetch(`${url}/secrets?namespace=function_env`, { headers: auth(token) });
    const secrets = new Set(((await secretRes.json()) as { items: { name: string }[] }).items.map((s) => s.name));
    for (const w of kept.filter((k) => k.token === token)) {
      if (w.kind === 'file') expect([token, w.name, listed.get(w.id)?.checksum]).toEqual([token, w.name, sha(content(w.name))]);
      else expect([token, w.name, secrets.has(w.name)]).toEqual([token, w.name, true]);
    }
    for (const w of gone.filter((g) => g.token === token)) {
      expect([token, w.name, w.kind === 'file' ? listed.has(w.id) : secrets.has(w.name)]).toEqual([token, w.name, false]);
    }
  }
  return ours;
}

/** What a finished start-up leaves: one state directory, no temporary file, one blob per listed upload. */
function expectClean(data: string, uploads: number): void {
  expect(readdirSync(data).filter((n) => n.startsWith('state-'))).toEqual([stateDir(data).slice(data.length + 1)]);
  expect(tempFiles(data)).toEqual([]);
  expect(readdirSync(workspacesDir(data)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  expect(blobFiles(data)).toHaveLength(uploads);
}

interface Crashed {
  data: string;
  cwd: string;
  principals: Map<Token, string>;
  /** Acknowledged in the first run, and in the crashed run before the operation. */
  setup: Write[];
  before: Write[];
}

/** What the first run left: its directory (holding `data`), the principals, its writes, A's export. */
interface Setup {
  cwd: string;
  principals: Map<Token, string>;
  setup: Write[];
  /** A's workspace as the first run left it (what the import case imports). */
  snapshotA: string;
}

let setupOnce: Promise<Setup> | undefined;
/**
 * The first run, once for the file: it writes the setup and stops cleanly. Every case starts from
 * a copy of the data directory it left (nothing in it names its own path).
 */
function firstRun(): Promise<Setup> {
  setupOnce ??= (async () => {
    const cwd = mkdtempSync(join(root, 'setup-'));
    const first = await startCli(ARGS, { cwd, env: { NODE_ENV: 'test' } });
    try {
      const principals = new Map<Token, string>();
      for (const token of TOKENS) principals.set(token, await principalOf(first.url, token));
      const setup = await writeSome(first.url, 'setup');
      const snapshotA = await (await fetch(`${first.url}/__mock/workspaces/${encodeURIComponent(principals.get('kill-a')!)}`)).text();
      return { cwd, principals, setup, snapshotA };
    } finally {
      await stop(first);
    }
  })();
  return setupOnce;
}

/** A directory of its own for a case, holding a copy of the first run's data directory. */
async function fromFirstRun(name: string): Promise<{ cwd: string; data: string; first: Setup }> {
  const first = await firstRun();
  const cwd = mkdtempSync(join(root, `${name}-`));
  cpSync(join(first.cwd, 'data'), join(cwd, 'data'), { recursive: true });
  return { cwd, data: join(cwd, 'data'), first };
}

/**
 * On a copy of the first run's data, a second run armed with `crashAt` writes some more, then
 * runs `operation`, which must die at the instant (SIGKILL, no answer).
 */
async function crashDuring(name: string, crashAt: string, operation: (url: string, c: Crashed) => Promise<number | 'gone'>): Promise<Crashed> {
  const { cwd, data, first } = await fromFirstRun(name);
  const c: Crashed = { cwd, data, principals: first.principals, setup: first.setup, before: [] };
  const second = await startCli(ARGS, { cwd, env: { NODE_ENV: 'test', CBM_TEST_CRASH_AT: crashAt } });
  try {
    c.before = await writeSome(second.url, 'before');
    const answer = await operation(second.url, c);
    // Killed at the instant: no answer, and the process ends by SIGKILL (a bounded wait: a point
    // never reached leaves it running, which the assertion then names).
    const ended = await orAfter(second.exited.then(() => second.child.signalCode), 10_000, 'still running 10 s after the operation');
    expect([crashAt, answer, ended]).toEqual([crashAt, 'gone', 'SIGKILL']);
  } finally {
    await stop(second);
  }
  return c;
}

/**
 * The run after the crash, on the same data directory; `fn` checks through it, then it stops. It
 * runs in this process: what it tests is the store's recovery of what the crash left (the same
 * code under the CLI and the library), not the command, and a CLI child for each of seven
 * restarts cost ~0.85 CPU-s apiece. The crashed runs stay CLI children: only the command reads
 * CBM_TEST_CRASH_AT, and the process must die.
 */
async function afterRestart<T>(c: Crashed, fn: (url: string) => Promise<T>, options: { scenario?: string } = {}): Promise<T> {
  const server = await startMockServer({ port: 0, dataDir: join(c.cwd, 'data'), logLevel: 'silent', ...options });
  try {
    return await fn(server.url);
  } finally {
    await server.close();
  }
}

const A = (w: Write) => w.token === 'kill-a';
const B = (w: Write) => w.token === 'kill-b';

test.concurrent('a reset of everything killed after its commit (meta.json switched, the old state not yet deleted) comes back whole: nothing written before it is left', async () => {
  const c = await crashDuring('reset-all', 'mid-reset:1', (url) => control(url, 'POST', '/__mock/reset'));
  const all = [...c.setup, ...c.before];
  await afterRestart(c, async (url) => {
    expect(await expectState(url, [], all)).toBe(0);
    // The scenario's own files are back, and download (expectState checked every listed one).
    expect((await listing(url, 'kill-a')).length).toBeGreaterThan(0);
  });
  expectClean(c.data, 0);
}, 120_000);

test.concurrent('a reset of one principal killed after its commit (its snapshot removed, its log and blobs not yet) comes back whole; the other principal keeps every acknowledged write', async () => {
  const c = await crashDuring('reset-one', 'mid-reset:1', (url, k) => control(url, 'POST', `/__mock/reset?principal=${encodeURIComponent(k.principals.get('kill-a')!)}`));
  const all = [...c.setup, ...c.before];
  const uploads = await afterRestart(c, (url) => expectState(url, all.filter(B), all.filter(A)));
  expect(uploads).toBe(all.filter((w) => B(w) && w.kind === 'file').length);
  // Nothing of A's is left on disk: neither its change log nor its blobs.
  const stem = workspaceFileStem(c.principals.get('kill-a')!);
  expect(readdirSync(workspacesDir(c.data)).filter((n) => n.startsWith(`${stem}.`))).toEqual([]);
  expect(existsSync(join(stateDir(c.data), 'blobs', stem))).toBe(false);
  expectClean(c.data, uploads);
}, 120_000);

test.concurrent('a scenario switch killed after its commit comes back as the new scenario, whole, and the data directory says so', async () => {
  const c = await crashDuring('scenario', 'mid-reset:1', (url) => control(url, 'POST', '/__mock/scenario', JSON.stringify({ name: 'paging' })));
  const all = [...c.setup, ...c.before];
  // Started as before (default), the data directory is refused: it holds the scenario switched to.
  const refused = runCli(ARGS, { cwd: c.cwd });
  expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('holds scenario "paging"')]);
  await afterRestart(
    c,
    async (url) => {
      for (const token of TOKENS) {
        const mine = all.filter((w) => w.token === token && w.kind === 'secret').map((w) => w.name);
        const res = await fetch(`${url}/secrets?namespace=function_env`, { headers: auth(token) });
        const names = ((await res.json()) as { items: { name: string }[] }).items.map((s) => s.name);
        expect(names.filter((n) => mine.includes(n))).toEqual([]);
        // The paging scenario's session, with its 5,000 files, is what each principal has.
        const page = (await (await fetch(`${url}/sessions/sess_paging/files?limit=1`, { headers: auth(token) })).json()) as { total: number };
        expect([token, page.total]).toEqual([token, 5000]);
        expect((await fetch(`${url}/sessions/${SESSION}/files`, { headers: auth(token) })).status).toBe(404);
      }
    },
    { scenario: 'paging' },
  );
  expectClean(c.data, 0);
}, 120_000);

test.concurrent("an import killed with its snapshot in place (the old log and the replaced files' blobs not yet deleted) comes back as the imported state; the other principal keeps every acknowledged write", async () => {
  // A's workspace as it was after the first run's setup writes; what A writes afterwards, the import replaces.
  const { snapshotA: snapshot } = await firstRun();
  const c = await crashDuring('import', 'after-snapshot:1', (url, k) => control(url, 'PUT', `/__mock/workspaces/${encodeURIComponent(k.principals.get('kill-a')!)}`, snapshot));
  const exported = c.setup.filter(A);
  const all = [...c.setup, ...c.before];
  const replaced = c.before.filter(A);
  const uploads = await afterRestart(c, (url) => expectState(url, [...exported, ...all.filter(B)], replaced));
  expect(uploads).toBe([...exported, ...all.filter(B)].filter((w) => w.kind === 'file').length);
  expectClean(c.data, uploads);
}, 120_000);

// The crashed run's first APPENDS appends are its writes before the upload.
test.concurrent.each([
  [`mid-append:${APPENDS + 1}`, 'half of its record’s line written', false],
  [`between-groups:${APPENDS + 1}`, 'its record written, the answer not yet sent', true],
])('an upload killed at %s (%s): acknowledged writes kept, the upload whole or not there at all, no stray blob', async (crashAt, _what, written) => {
  const during: Write[] = [];
  const c = await crashDuring(`upload-${crashAt.replace(':', '-')}`, crashAt, async (url) => {
    // Answered before the crash, it would be acknowledged (and must then be kept): checked below.
    const r = await upload(url, 'kill-a', 'during_kill_a');
    if (r !== 'gone') during.push(r);
    return 'gone';
  });
  // An upload answered before the crash would be acknowledged, and so must be kept.
  const all = [...c.setup, ...c.before, ...during];
  const uploads = await afterRestart(c, async (url) => {
    const n = await expectState(url, all, []);
    const listed = (await listing(url, 'kill-a')).filter((f) => f.filename === 'during_kill_a.txt');
    // Unacknowledged: a torn record is cut off (its blob collected), a whole one is kept with its bytes.
    expect(listed.map((f) => f.checksum)).toEqual(written ? [sha(content('during_kill_a'))] : []);
    return n;
  });
  // Ours listed: every acknowledged upload, and the one the crash cut off where its record was whole.
  expect(uploads).toBe(all.filter((w) => w.kind === 'file').length + (written && during.length === 0 ? 1 : 0));
  expectClean(c.data, uploads);
}, 120_000);

test.concurrent('a file whose bytes are gone from disk is no longer listed after a restart; every other acknowledged write is kept', async () => {
  const { cwd, data, first } = await fromFirstRun('lost-blob');
  const written = first.setup;
  // One of A's uploads loses its blob (a disk repaired by hand, a backup restored without it):
  // the blob whose bytes are that upload's.
  const lost = written.find((w) => A(w) && w.kind === 'file') as Extract<Write, { kind: 'file' }>;
  const blobs = blobFiles(data);
  expect(blobs).toHaveLength(4);
  const blob = blobs.find((b) => sha(readFileSync(join(stateDir(data), 'blobs', b))) === lost.checksum);
  expect(blob).toBeDefined();
  unlinkSync(join(stateDir(data), 'blobs', blob!));
  const uploads = await afterRestart({ cwd, data, principals: new Map(), setup: [], before: [] }, (url) => expectState(url, written.filter((w) => w !== lost), [lost]));
  expect(uploads).toBe(3);
  expectClean(data, 3);
}, 120_000);
