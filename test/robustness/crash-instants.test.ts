/**
 * The CLI stopped by SIGKILL at named instants inside the store (issue 26, item 6), where timed
 * kills cannot land (an append takes microseconds): half a group's
 * line written, a group written but not yet acknowledged, a compaction's snapshot part-written to
 * its temporary file, the new snapshot renamed into place before the old log generations are
 * deleted, and recovery about to cut a torn line off. The process kills itself there
 * (CBM_TEST_CRASH_AT, read only by the CLI under NODE_ENV=test: src/store/test-hooks.ts) while writers of
 * two principals store secrets and upload files. After the restart: every acknowledged write is
 * there, every file's bytes download with its checksum, no blob is left that no record names, no
 * temporary file is left, and the disk (snapshot plus log, as the store reads it) holds what the
 * API lists. These are the write storms; kill-points.test.ts kills resets, a scenario switch, an
 * import and an upload at their instants. The cases are independent and run at once.
 */
import { afterAll, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLogFileName } from '../../src/store/log-format.js';
import { workspaceFileStem } from '../../src/store/workspace-file.js';
import { startMockServer } from '../../src/server.js';
import { testHooks } from '../../src/store/test-hooks.js';
import { startCli, type RunningCli } from '../cli-process.js';
import { blobFiles, storedWorkspaces, tempFiles, workspacesDir } from '../data-layout.js';

const root = mkdtempSync(join(tmpdir(), 'cbm-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ARGS = ['--port', '0', '--data-dir', 'data', '--log-level', 'silent'];
const SESSION = 'sess_demo';
const TOKENS = ['crash-a', 'crash-b'];
/**
 * Compaction once a log holds this much (test-hooks.ts): a few writes of a principal. Low, so the
 * compaction instants come early in a storm and the last run compacts after ten secrets.
 */
const COMPACT_BYTES = '1024';
/** Writes per writer before the test gives up on the point being reached (a count, not a time). */
const MAX_WRITES = 2000;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const content = (name: string) => `bytes of ${name} `.repeat(50);

type Acked = { token: string; kind: 'file'; id: string; checksum: string } | { token: string; kind: 'secret'; name: string };

async function upload(url: string, token: string, name: string): Promise<{ id: string; checksum: string } | 'refused' | 'gone'> {
  const form = new FormData();
  form.append('file', new Blob([content(name)]), `${name}.txt`);
  try {
    const res = await fetch(`${url}/sessions/${SESSION}/files`, { method: 'POST', headers: auth(token), body: form });
    if (res.status !== 201) return 'refused';
    const body = (await res.json()) as { id: string; checksum: string };
    return { id: body.id, checksum: body.checksum };
  } catch {
    return 'gone'; // the process died before answering
  }
}

async function storeSecret(url: string, token: string, name: string): Promise<'ok' | 'refused' | 'gone'> {
  try {
    const res = await fetch(`${url}/secrets`, { method: 'POST', headers: { ...auth(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${name}` }) });
    await res.arrayBuffer();
    return res.status === 201 ? 'ok' : 'refused';
  } catch {
    return 'gone';
  }
}

const principalOf = async (url: string, token: string) => {
  await fetch(`${url}/mailboxes`, { headers: auth(token) });
  return (((await (await fetch(`${url}/__mock/requests?limit=1`)).json()) as any).items ?? [])[0]?.principal as string;
};

/**
 * Two writers per principal (uploads and secrets) until the process dies; every 201 recorded.
 * Each stops at its first request the process did not answer, or after MAX_WRITES. Resolves
 * with whether any request went unanswered (the process went away).
 */
async function writeUntilGone(cli: RunningCli, prefix: string, acked: Acked[]): Promise<boolean> {
  let gone = false;
  const writer = async (token: string, kind: 'file' | 'secret') => {
    for (let i = 0; i < MAX_WRITES && !gone; i++) {
      const name = `${prefix}_${token}_${kind}_${i}`.replace(/-/g, '_');
      if (kind === 'file') {
        const r = await upload(cli.url, token, name);
        if (r === 'gone') gone = true;
        else if (r !== 'refused') acked.push({ token, kind, id: r.id, checksum: r.checksum });
      } else {
        const r = await storeSecret(cli.url, token, name);
        if (r === 'gone') gone = true;
        else if (r === 'ok') acked.push({ token, kind, name });
      }
    }
  };
  await Promise.all(TOKENS.flatMap((t) => [writer(t, 'file'), writer(t, 'secret')]));
  return gone;
}

/** How the process ended: the point was reached only if it killed itself (SIGKILL). */
async function howItEnded(cli: RunningCli, gone: boolean, point: string): Promise<string | null> {
  if (!gone) {
    cli.child.kill('SIGTERM');
    await cli.exited;
    return `still running after ${MAX_WRITES} writes per writer: ${point} was not reached`;
  }
  await cli.exited;
  return cli.child.signalCode;
}

/** Every workspace file name in the data directory's current state. */
const wsNames = (data: string) => readdirSync(workspacesDir(data));

/** Log files whose last line has no newline: a torn append. */
const tornLogs = (data: string) =>
  wsNames(data).filter((n) => {
    if (!parseLogFileName(n)) return false;
    const bytes = readFileSync(join(workspacesDir(data), n));
    return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a;
  });

/** Each workspace's snapshot generation (log_gen: one more for each compaction), by file stem. */
const snapshotGens = (data: string) =>
  new Map(
    wsNames(data)
      .filter((n) => n.endsWith('.json'))
      .map((n) => [n.slice(0, -'.json'.length), (JSON.parse(readFileSync(join(workspacesDir(data), n), 'utf8')) as { log_gen?: number }).log_gen ?? 0]),
  );

/** Log generations older than their snapshot's: what a compaction killed after its rename leaves. */
const staleGenerations = (data: string) =>
  wsNames(data).filter((n) => {
    const log = parseLogFileName(n);
    if (!log) return false;
    const snapshot = JSON.parse(readFileSync(join(workspacesDir(data), `${log[0]}.json`), 'utf8')) as { log_gen?: number };
    return snapshot.log_gen !== undefined && log[1] < snapshot.log_gen;
  });

/** What the disk holds, as the store reads it (snapshot + log, a torn line skipped, nothing changed). */
function onDisk(data: string) {
  const secrets = new Map<string, Set<string>>();
  const files = new Map<string, Set<string>>();
  for (const [principal, ws] of storedWorkspaces(data)) {
    secrets.set(principal, new Set(ws.secrets.map((s) => `${s.namespace}/${s.name}`)));
    files.set(principal, new Set(ws.sessions.filter((s) => s.id === SESSION).flatMap((s) => s.files.map((f) => `${s.id}/${f.id}`))));
  }
  return { secrets, files };
}

/** Every acknowledged write is in the data directory as the store would read it. */
function expectAckedOnDisk(data: string, principals: Map<string, string>, acked: Acked[]): void {
  const disk = onDisk(data);
  for (const a of acked) {
    const p = principals.get(a.token)!;
    if (a.kind === 'file') expect([a.token, a.id, disk.files.get(p)?.has(`${SESSION}/${a.id}`)]).toEqual([a.token, a.id, true]);
    else expect([a.token, a.name, disk.secrets.get(p)?.has(`function_env/${a.name}`)]).toEqual([a.token, a.name, true]);
  }
}

/** A session's whole listing, page by page. */
async function listing(url: string, token: string): Promise<any[]> {
  const all: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await fetch(`${url}/sessions/${SESSION}/files?limit=1000&offset=${offset}`, { headers: auth(token) });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { files: any[]; total: number };
    all.push(...page.files);
    if (all.length >= page.total || page.files.length === 0) return all;
  }
}

/** What the API shows: each principal's secrets and files of the session, and the files we uploaded. */
interface ApiView {
  listed: Map<string, { secrets: Set<string>; files: Set<string> }>;
  ours: Map<string, any[]>;
}

/**
 * The checks through the API after a restart: every file record's bytes download with its
 * checksum, and every acknowledged write is there with what was sent. Returns what it listed.
 */
async function verifyApi(cli: { url: string }, principals: Map<string, string>, acked: Acked[]): Promise<ApiView> {
  const view: ApiView = { listed: new Map(), ours: new Map() };
  for (const token of TOKENS) {
    const files = await listing(cli.url, token);
    for (const f of files) {
      const res = await fetch(`${cli.url}/sessions/${SESSION}/files/${f.id}`, { headers: auth(token) });
      expect([f.id, res.status, sha(Buffer.from(await res.arrayBuffer()))]).toEqual([f.id, 200, f.checksum]);
    }
    view.ours.set(token, files.filter((f) => /^(w|after|later)_crash_/.test(f.filename)));
    const secrets = (await (await fetch(`${cli.url}/secrets`, { headers: auth(token) })).json()) as { items: { namespace: string; name: string }[] };
    view.listed.set(principals.get(token)!, { secrets: new Set(secrets.items.map((s) => `${s.namespace}/${s.name}`)), files: new Set(files.map((f) => `${SESSION}/${f.id}`)) });
  }
  for (const a of acked) {
    if (a.kind === 'file') {
      const f = view.ours.get(a.token)!.find((x) => x.id === a.id);
      // The record is there, and its checksum is that of the bytes sent.
      expect([a.token, a.id, f?.checksum, a.checksum]).toEqual([a.token, a.id, a.checksum, sha(content(f?.filename.replace(/\.txt$/, '') ?? ''))]);
    } else {
      const res = await fetch(`${cli.url}/secrets/${a.name}?namespace=function_env`, { headers: auth(a.token) });
      const body = (await res.json()) as { value?: string };
      expect([a.token, a.name, res.status, body.value]).toEqual([a.token, a.name, 200, `value-of-${a.name}`]);
    }
  }
  return view;
}

/**
 * The checks of the disk once the process that read both workspaces (their blobs checked) has
 * stopped: every blob is a record's, no temporary file or torn line is left, and the disk, read
 * as the store reads it, holds exactly what the API listed.
 */
function verifyDisk(data: string, view: ApiView, { compacted }: { compacted: boolean }): void {
  expect(blobFiles(data)).toHaveLength(view.ours.get(TOKENS[0])!.length + view.ours.get(TOKENS[1])!.length);
  expect(tempFiles(data)).toEqual([]);
  expect(wsNames(data).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  expect(tornLogs(data)).toEqual([]);
  // Once a compaction ran after the restart, no generation its snapshot covers is left.
  if (compacted) expect(staleGenerations(data)).toEqual([]);
  const disk = onDisk(data);
  for (const [p, l] of view.listed) {
    expect([p, [...(disk.secrets.get(p) ?? [])].sort()]).toEqual([p, [...l.secrets].sort()]);
    expect([p, [...(disk.files.get(p) ?? [])].sort()]).toEqual([p, [...l.files].sort()]);
  }
}

/** `secrets` secrets and a file per principal, one at a time, each acknowledged. */
async function writeMore(cli: { url: string }, prefix: string, secrets: number): Promise<Acked[]> {
  const out: Acked[] = [];
  for (const token of TOKENS) {
    for (let i = 0; i < secrets; i++) {
      const name = `${prefix}_${token}_${i}`.replace(/-/g, '_');
      expect([name, await storeSecret(cli.url, token, name)]).toEqual([name, 'ok']);
      out.push({ token, kind: 'secret', name });
    }
    const r = await upload(cli.url, token, `${prefix}_${token}_file`.replace(/-/g, '_'));
    if (typeof r === 'string') throw new Error(`upload after the restart: ${r}`);
    out.push({ token, kind: 'file', ...r });
  }
  return out;
}

type Point = 'mid-append' | 'between-groups' | 'mid-compaction' | 'after-rename' | 'mid-repair';
/**
 * The point, and the CBM_TEST_CRASH_AT of the first run (mid-repair needs a torn line first).
 * mid-append has no case of its own: mid-repair's first run is killed at mid-append:20, its
 * checks of that crash are the same, and the repair killed before it cuts anything leaves the
 * same torn state (asserted) for the same second and third runs.
 */
const CASES: [Point, string][] = [
  ['between-groups', 'between-groups:20'],
  ['mid-compaction', 'mid-compaction:1'],
  ['mid-compaction', 'mid-compaction:2'],
  ['after-rename', 'after-rename:1'],
  ['after-rename', 'after-rename:2'],
  ['mid-repair', 'mid-append:20'],
];

test.concurrent.each(CASES)('killed at %s (first run: %s): acknowledged writes kept, bytes intact, no stray blob or temporary file, disk equals the API', async (point, crashAt) => {
  const cwd = mkdtempSync(join(root, `${crashAt.replace(':', '-')}-`));
  const data = join(cwd, 'data');
  const env = { NODE_ENV: 'test', CBM_TEST_CRASH_AT: crashAt, CBM_TEST_COMPACT_BYTES: COMPACT_BYTES };
  const first = await startCli(ARGS, { cwd, env });
  const principals = new Map<string, string>();
  for (const token of TOKENS) principals.set(token, await principalOf(first.url, token));
  const acked: Acked[] = [];
  const gone = await writeUntilGone(first, 'w', acked);
  expect(await howItEnded(first, gone, crashAt)).toBe('SIGKILL');
  // The crash landed after acknowledged writes, so there is something to lose.
  expect(acked.length).toBeGreaterThan(0);

  // The state the point leaves, before anything reads it.
  // (Both workspaces may have been mid-append at once: a torn line in each.)
  if (point === 'mid-append' || point === 'mid-repair') expect(tornLogs(data).length).toBeGreaterThan(0);
  if (point === 'mid-compaction') expect(wsNames(data).filter((n) => n.endsWith('.tmp')).length).toBeGreaterThan(0);
  if (point === 'after-rename') expect(staleGenerations(data).length).toBeGreaterThan(0);
  // Read as the store reads it, the disk already holds every acknowledged write.
  expectAckedOnDisk(data, principals, acked);

  if (point === 'mid-repair') {
    // Recovery is killed about to cut the torn line off: on the first request that reads its workspace.
    const torn = tornLogs(data);
    const repairing = await startCli(ARGS, { cwd, env: { NODE_ENV: 'test', CBM_TEST_CRASH_AT: 'mid-repair' } });
    let unanswered = false;
    for (const token of TOKENS) await fetch(`${repairing.url}/mailboxes`, { headers: auth(token) }).catch(() => (unanswered = true));
    expect(await howItEnded(repairing, unanswered, 'mid-repair')).toBe('SIGKILL');
    // Killed before the cut: the torn lines are all still there.
    expect(tornLogs(data)).toEqual(torn);
    expectAckedOnDisk(data, principals, acked);
  }

  // The log goes on from the state the crash left (repaired): more writes, a clean stop. No
  // compaction here, so what the restart appended stays in the log the next start replays.
  // The runs after the crash are servers in this process on the same directory: what they test is
  // the store's recovery and what it writes next (the same code under the CLI and the library),
  // not the command; a CLI child for each of them cost ~0.85 CPU-s. The crashed runs stay CLI
  // children: only the command reads CBM_TEST_CRASH_AT, and the process must die.
  const second = await startMockServer({ port: 0, dataDir: data, logLevel: 'silent' });
  let more: Acked[] = [];
  let view: ApiView;
  try {
    // A few writes show the log goes on (no compaction to reach in this run). One check after
    // them covers `acked` too: a write lost by the restart is still missing after more writes.
    more = await writeMore(second, 'after', 10);
    view = await verifyApi(second, principals, [...acked, ...more]);
  } finally {
    await second.close();
  }
  verifyDisk(data, view, { compacted: false });

  // Read back by a third server, whose writes compact each log (and drop what a crash left of an older generation).
  const gens = snapshotGens(data);
  const third = await startMockServer({ port: 0, dataDir: data, logLevel: 'silent', testHooks: testHooks({ compactionBytes: Number(COMPACT_BYTES) }) });
  try {
    // 10 secrets a principal: past COMPACT_BYTES, so each log compacts in this run (asserted below).
    // The check after them covers what the second run appended: a compaction writes what this
    // process read, so a write its replay lost is still missing afterwards.
    more = [...more, ...(await writeMore(third, 'later', 10))];
    view = await verifyApi(third, principals, [...acked, ...more]);
  } finally {
    await third.close();
  }
  // Each principal's log compacted in this run: its snapshot is of a later generation.
  const after = snapshotGens(data);
  for (const p of principals.values()) {
    const stem = workspaceFileStem(p);
    expect([p, (after.get(stem) ?? 0) > (gens.get(stem) ?? 0)]).toEqual([p, true]);
  }
  verifyDisk(data, view, { compacted: true });
}, 120_000);
