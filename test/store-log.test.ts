/**
 * A workspace's snapshot and change log (issue 26; the format: src/store/log-format.ts), the crash
 * states built directly on disk with the store's own API, no child process: a torn last line, a
 * complete line that cannot be applied, a gap in the groups, a data directory from before the log,
 * a snapshot that already holds an older generation's groups, a log left without its snapshot,
 * and many writes with compaction on.
 */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createStore } from '../src/app/create-store.js';
import { HttpError } from '../src/errors/http-error.js';
import { keyHint } from '../src/model/secret-rules.js';
import type { StoredSecret, WorkspaceData } from '../src/model/records.js';
import { logFileName, parseLogFileName, type Group } from '../src/store/log-format.js';
import { applyGroups, recoverWorkspace } from '../src/store/recovery.js';
import { readStoredWorkspaces } from '../src/store/stored-data.js';
import type { Store } from '../src/store/store.js';
import type { Workspace } from '../src/store/workspace.js';
import { workspaceFileStem } from '../src/store/workspace-file.js';
import type { Compaction } from '../src/store/log-writer.js';
import { testHooks } from '../src/store/test-hooks.js';
import { stateDir, workspacesDir } from './data-layout.js';
import { createApp } from '../src/app.js';
import { bearer } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The scenario "empty": its API key sk_test_demo is dev@example.com's, whose workspace is P. */
const P = 'user:dev@example.com';
const KEY = bearer('sk_test_demo');
const stem = workspaceFileStem(P);
const snapshotPath = () => join(workspacesDir(dir), `${stem}.json`);
const logPath = (gen: number) => join(workspacesDir(dir), logFileName(stem, gen));
/** P's log generations on disk, ascending. */
const generations = () =>
  readdirSync(workspacesDir(dir))
    .map(parseLogFileName)
    .filter((l): l is [string, number] => l !== null && l[0] === stem)
    .map(([, gen]) => gen)
    .sort((a, b) => a - b);
const lines = (gen: number) => readFileSync(logPath(gen), 'utf8').split('\n').filter(Boolean);

/** An app over a store (as testApp makes one: quiet, responses validated); closing it closes the store. */
const appOver = (store: Store) => createApp({ store, logLevel: 'silent', validateResponses: true });

const open = (setup?: Parameters<typeof createStore>[1]) => createStore({ scenario: 'empty', dataDir: dir }, setup);

function secretRecord(store: Store, ws: Workspace, name: string, value = `value-of-${name}`): StoredSecret {
  return { id: ws.newId('sec'), namespace: 'function_env', name, value, key_hint: keyHint(value), created_at: store.clock.now(), last_used_at: null };
}

/** One acknowledged write: a secret added and saved. */
async function put(store: Store, ws: Workspace, name: string): Promise<StoredSecret> {
  const s = ws.addSecret(secretRecord(store, ws, name));
  await ws.save();
  return s;
}

/** The secrets' names, in the document's order. */
const names = (from: Workspace | WorkspaceData) => (typeof from.secrets === 'function' ? from.secrets() : from.secrets).map((s) => s.name);

/** P's workspace with secrets A (in its first snapshot) and B, C, D (log groups 1–3 of generation 1). */
async function fourSecrets(): Promise<Record<string, StoredSecret>> {
  const store = await open();
  try {
    const ws = await store.workspace(P);
    const out: Record<string, StoredSecret> = {};
    for (const n of ['A', 'B', 'C', 'D']) out[n] = await put(store, ws, n);
    return out;
  } finally {
    await store.close();
  }
}

test('the first write of a workspace writes its snapshot; later ones each append one group to the log, numbered from 1', async () => {
  await fourSecrets();
  const snapshot = JSON.parse(readFileSync(snapshotPath(), 'utf8'));
  expect([snapshot.log_seq, snapshot.log_gen, snapshot.secrets.map((s: StoredSecret) => s.name)]).toEqual([0, 1, ['A']]);
  expect(generations()).toEqual([1]);
  const groups = lines(1).map((l) => JSON.parse(l) as Group);
  expect(groups.map((g) => [g.seq, g.changes.map((c) => (c.t === 'secret' ? c.secret.name : c.t))])).toEqual([
    [1, ['B']],
    [2, ['C']],
    [3, ['D']],
  ]);
});

test.each([
  ['half of its line', (line: string) => line.slice(0, line.length >> 1)],
  ['its whole JSON but not the newline', (line: string) => line],
])('a torn last line (%s) is dropped whole — none of its group applied — and cut off when the workspace is next opened', async (_, tear) => {
  const before = await fourSecrets();
  const whole = readFileSync(logPath(1));
  // The group the next append would have written: E added and B removed, torn.
  const e = { ...before.A, id: 'sec_torn0000000000', name: 'E', value: 'value-of-E' };
  const group: Group = { seq: 4, next_id: 1000, changes: [{ t: 'secret', secret: e }, { t: '-secret', id: before.B.id }] };
  appendFileSync(logPath(1), tear(JSON.stringify(group)));

  // Read without changing anything (as tests and the benchmark read a data directory): skipped.
  expect(names(readStoredWorkspaces(dir).get(P)!)).toEqual(['A', 'B', 'C', 'D']);
  expect(readFileSync(logPath(1)).length).toBeGreaterThan(whole.length);

  let store = await open();
  try {
    const ws = await store.workspace(P);
    expect(names(ws)).toEqual(['A', 'B', 'C', 'D']);
    expect(ws.data.next_id).toBeLessThan(1000);
    // Cut off exactly: the file is again the three whole groups.
    expect(readFileSync(logPath(1))).toEqual(whole);
    await put(store, ws, 'F');
  } finally {
    await store.close();
  }
  expect(lines(1).map((l) => (JSON.parse(l) as Group).seq)).toEqual([1, 2, 3, 4]);
  store = await open();
  try {
    expect(names(await store.workspace(P))).toEqual(['A', 'B', 'C', 'D', 'F']);
  } finally {
    await store.close();
  }
});

/** Expects `p` to reject with a 500 whose one-line detail names the file and --reset-data. */
async function expectCorrupt(p: Promise<unknown>, file: string, why: RegExp): Promise<void> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(HttpError);
  const { status, detail } = e as HttpError;
  expect(status).toBe(500);
  expect(detail).toEqual(expect.stringContaining(`data file ${file} `));
  expect(detail).toMatch(why);
  expect(detail).toMatch(/--reset-data/);
  expect(detail).not.toMatch(/\n/);
}

test.each([
  ['not JSON', () => 'this is not json', /holds a log line that is not JSON/],
  ['JSON that is not a group', () => JSON.stringify({ seq: 'four', changes: [] }), /holds a log line that is not a group of changes/],
  ['a change of an unknown kind', () => JSON.stringify({ seq: 4, next_id: 9, changes: [{ t: 'gizmo' }] }), /holds a change of an unknown kind \("gizmo"\)/],
  ['a file of a session the workspace lacks', () => JSON.stringify({ seq: 4, next_id: 9, changes: [{ t: '-file', session: 'sess_nowhere', id: 'file_x' }] }), /changes files of a session \(sess_nowhere\) it does not hold/],
])('a complete log line that cannot be applied (%s) makes the workspace corrupt: 500 naming the file and --reset-data, the file untouched', async (_, line, why) => {
  await fourSecrets();
  appendFileSync(logPath(1), `${line()}\n`);
  const bytes = readFileSync(logPath(1));
  const store = await open();
  try {
    await expectCorrupt(store.workspace(P), logPath(1), why);
    // Asked again, the same answer (a broken workspace is never cached, never repaired).
    await expectCorrupt(store.workspace(P), logPath(1), why);
  } finally {
    await store.close();
  }
  expect(readFileSync(logPath(1))).toEqual(bytes);
});

test('over HTTP, the principal of a corrupt log gets a one-line 500 naming the file and --reset-data; other principals are served', async () => {
  await fourSecrets();
  appendFileSync(logPath(1), '{"seq":4,"next_id":9,"changes":[{"t":"secret"\n');
  const app = await appOver(await open());
  try {
    const res = await request(app).get('/secrets').set(KEY);
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe(`data file ${logPath(1)} holds a log line that is not JSON; it was left untouched — fix or remove it, or restart with --reset-data`);
    const write = await request(app).post('/secrets').set(KEY).send({ name: 'LOST', value: 'never-stored' });
    expect(write.status).toBe(500);
    expect((await request(app).get('/secrets').set(bearer('someone-else'))).status).toBe(200);
  } finally {
    await app.mock.close();
  }
  expect(lines(1)).toHaveLength(4);
  expect(readFileSync(logPath(1), 'utf8')).not.toContain('never-stored');
});

test.each([
  ['a gap (group 3 renumbered 4)', (g: string[]) => [g[0], g[1], JSON.stringify({ ...JSON.parse(g[2]), seq: 4 })], /skips from change group 2 to 4;/],
  ['a group written twice', (g: string[]) => [g[0], g[1], g[1], g[2]], /repeats change group 2;/],
])('groups out of sequence (%s) are corrupt: the file named, and what is wrong with the sequence', async (_, edit, why) => {
  await fourSecrets();
  writeFileSync(logPath(1), edit(lines(1)).map((l) => `${l}\n`).join(''));
  const store = await open();
  try {
    await expectCorrupt(store.workspace(P), logPath(1), why);
  } finally {
    await store.close();
  }
  // The same through the exported recovery, which a reader of a data directory uses.
  expect(() => recoverWorkspace(workspacesDir(dir), stem, snapshotPath(), { repair: false })).toThrow(why);
});

test('a data directory from before the log (a <name>.json of format 3, no log) opens and serves its data, then appends its writes to a log', async () => {
  // The data directory's marker and state directory, as any version of format 3 made them.
  await (await open()).close();
  const bytes = Buffer.from('bytes uploaded before the log existed\n');
  const blob = `${stem}/0123456789abcdef0123456789abcdef`;
  const created = Date.parse('2026-11-01T10:00:00Z');
  const old: WorkspaceData = {
    format: 3,
    principal: P,
    next_id: 7,
    sessions: [
      {
        id: 'sess_old',
        actions: [],
        files: [{ id: 'file_0000000000000001', session_id: 'sess_old', filename: 'old.txt', mime_type: 'text/plain', size: bytes.length, checksum: createHash('sha256').update(bytes).digest('hex'), created_at: created, expires_at: created + 365 * 86_400_000, source: 'user_upload', blob }],
      },
    ],
    mailboxes: [],
    secrets: [{ id: 'sec_0000000000000002', namespace: 'function_env', name: 'OLD_SECRET', value: 'old-value', key_hint: keyHint('old-value'), created_at: created, last_used_at: null }],
  };
  const text = JSON.stringify(old);
  writeFileSync(snapshotPath(), text);
  mkdirSync(join(stateDir(dir), 'blobs', stem), { recursive: true });
  writeFileSync(join(stateDir(dir), 'blobs', blob), bytes);

  let app = await appOver(await open());
  try {
    expect((await request(app).get('/secrets').set(KEY)).body.items.map((x: { name: string }) => x.name)).toEqual(['OLD_SECRET']);
    const listed = await request(app).get('/sessions/sess_old/files').set(KEY);
    expect(listed.body.files.map((f: { id: string }) => f.id)).toEqual(['file_0000000000000001']);
    const down = await request(app).get('/sessions/sess_old/files/file_0000000000000001').set(KEY).responseType('blob');
    expect([down.status, Buffer.compare(down.body as Buffer, bytes)]).toEqual([200, 0]);
    expect((await request(app).post('/secrets').set(KEY).send({ name: 'NEW_SECRET', value: 'new-value' })).status).toBe(201);
    // The write is one appended group; the old file, now the snapshot, is not rewritten.
    expect(readFileSync(snapshotPath(), 'utf8')).toBe(text);
    expect(generations()).toEqual([1]);
    expect(lines(1).map((l) => (JSON.parse(l) as Group).changes.map((c) => (c.t === 'secret' ? c.secret.name : c.t)))).toEqual([['NEW_SECRET']]);
    expect((await request(app).get('/secrets/OLD_SECRET?namespace=function_env').set(KEY)).body).toEqual({ value: 'old-value' });
  } finally {
    await app.mock.close();
  }
  app = await appOver(await open());
  try {
    const items = (await request(app).get('/secrets').set(KEY)).body.items.map((s: { name: string }) => s.name);
    expect(items.sort()).toEqual(['NEW_SECRET', 'OLD_SECRET']);
    // The id generator went on from the old file's position: no id repeats.
    const ids = readStoredWorkspaces(dir).get(P)!.secrets.map((s) => s.id);
    expect(new Set(ids).size).toBe(2);
  } finally {
    await app.mock.close();
  }
});

test('a snapshot whose log_seq covers an older generation (a compaction killed before deleting it): replay skips those groups', async () => {
  const before = await fourSecrets();
  // As a compaction leaves it when killed after its rename: the snapshot holds groups 1–3 and
  // appends go to generation 2, but generation 1, all of whose groups it holds, is still there.
  await (async () => {
    const store = await open();
    try {
      await put(store, await store.workspace(P), 'G');
    } finally {
      await store.close();
    }
  })();
  const [g1, g2, g3, g4] = lines(1).map((l) => JSON.parse(l) as Group);
  expect([g1, g2, g3, g4].map((g) => g.seq)).toEqual([1, 2, 3, 4]);
  const snapshot = JSON.parse(readFileSync(snapshotPath(), 'utf8'));
  applyGroups(snapshot, [g1, g2, g3], snapshotPath());
  // A value only the snapshot holds: were group 1 (which added B) applied again, B would be back to its logged value.
  snapshot.secrets = snapshot.secrets.map((s: StoredSecret) => (s.id === before.B.id ? { ...s, value: 'as-in-the-snapshot' } : s));
  writeFileSync(snapshotPath(), JSON.stringify({ ...snapshot, log_seq: 3, log_gen: 2 }));
  writeFileSync(logPath(1), [g1, g2, g3].map((g) => `${JSON.stringify(g)}\n`).join(''));
  writeFileSync(logPath(2), `${JSON.stringify(g4)}\n`);

  const recovered = recoverWorkspace(workspacesDir(dir), stem, snapshotPath(), { repair: false });
  expect([recovered.seq, recovered.gen, recovered.gens]).toEqual([4, 2, [1, 2]]);
  expect(names(recovered.data)).toEqual(['A', 'B', 'C', 'D', 'G']);
  expect(recovered.data.secrets.find((s) => s.id === before.B.id)!.value).toBe('as-in-the-snapshot');

  const store = await open();
  try {
    const ws = await store.workspace(P);
    expect(names(ws)).toEqual(['A', 'B', 'C', 'D', 'G']);
    expect(ws.secret('function_env', 'B')!.value).toBe('as-in-the-snapshot');
    // The next group goes on after 4, into generation 2.
    await put(store, ws, 'H');
  } finally {
    await store.close();
  }
  expect(lines(2).map((l) => (JSON.parse(l) as Group).seq)).toEqual([4, 5]);
  expect(names(readStoredWorkspaces(dir).get(P)!)).toEqual(['A', 'B', 'C', 'D', 'G', 'H']);
});

test('generations a compaction killed after its rename left — more than one, after a second such crash — are all deleted by the next compaction', async () => {
  await fourSecrets();
  // Compaction 1 renamed a snapshot of log_gen 2 and was killed before deleting generation 1;
  // after the restart compaction 2 (deleting 1 and 2) renamed one of log_gen 3 and was killed too.
  const [g1, g2, g3] = lines(1).map((l) => JSON.parse(l) as Group);
  const snapshot = JSON.parse(readFileSync(snapshotPath(), 'utf8'));
  applyGroups(snapshot, [g1, g2, g3], snapshotPath());
  writeFileSync(snapshotPath(), JSON.stringify({ ...snapshot, log_seq: 3, log_gen: 3 }));
  writeFileSync(logPath(1), [g1, g2].map((g) => `${JSON.stringify(g)}\n`).join(''));
  writeFileSync(logPath(2), `${JSON.stringify(g3)}\n`);
  expect(generations()).toEqual([1, 2]);
  expect(names(recoverWorkspace(workspacesDir(dir), stem, snapshotPath(), { repair: false }).data)).toEqual(['A', 'B', 'C', 'D']);

  const compactions: Compaction[] = [];
  // The smaller compaction threshold reaches the store as an option (the CLI's CBM_TEST_COMPACT_BYTES).
  const store = await createStore({ scenario: 'empty', dataDir: dir, testHooks: testHooks({ compactionBytes: 1024 }) }, { onCompaction: (c) => compactions.push(c) });
  try {
    const ws = await store.workspace(P);
    for (let i = 0; compactions.length === 0 && i < 100; i++) await put(store, ws, `MORE_${i}`);
  } finally {
    await store.close();
  }
  expect(compactions.length).toBeGreaterThan(0);
  const now = JSON.parse(readFileSync(snapshotPath(), 'utf8'));
  expect(now.log_gen).toBeGreaterThanOrEqual(4);
  expect(generations().filter((g) => g < now.log_gen)).toEqual([]);
  expect(names(readStoredWorkspaces(dir).get(P)!).slice(0, 5)).toEqual(['A', 'B', 'C', 'D', 'MORE_0']);
});

test('a log left without its snapshot (a reset killed between the two) is removed by the start-up sweep, never replayed into a new workspace', async () => {
  await fourSecrets();
  unlinkSync(snapshotPath());
  expect(generations()).toEqual([1]);
  let store = await open();
  try {
    expect(generations()).toEqual([]);
    const ws = await store.workspace(P);
    expect(names(ws)).toEqual([]);
    await put(store, ws, 'NEW1');
    await put(store, ws, 'NEW2');
  } finally {
    await store.close();
  }
  // The new workspace's own log: its one group, numbered from 1 again.
  expect(lines(1).map((l) => (JSON.parse(l) as Group).changes.map((c) => (c.t === 'secret' ? c.secret.name : c.t)))).toEqual([['NEW2']]);
  store = await open();
  try {
    expect(names(await store.workspace(P))).toEqual(['NEW1', 'NEW2']);
  } finally {
    await store.close();
  }
});

test('after many concurrent writes with compaction on, the disk (snapshot + log) equals the document in memory, and no generation before the newest snapshot is left', async () => {
  const compactions: Compaction[] = [];
  // The smaller compaction threshold reaches the store as an option (the CLI's CBM_TEST_COMPACT_BYTES).
  const store = await createStore({ scenario: 'empty', dataDir: dir, testHooks: testHooks({ compactionBytes: 2048 }) }, { onCompaction: (c) => compactions.push(c) });
  let memory: WorkspaceData;
  try {
    const ws = await store.workspace(P);
    // Batches of concurrent writes (one group each, or several folded into one), with updates and removals.
    for (let batch = 0; batch < 30; batch++) {
      const saves: Promise<void>[] = [];
      for (let i = 0; i < 10; i++) {
        ws.addSecret(secretRecord(store, ws, `S_${batch}_${i}`));
        saves.push(ws.save());
      }
      if (batch > 0) {
        const old = ws.secret('function_env', `S_${batch - 1}_0`)!;
        ws.updateSecret(old, { value: `changed-${batch}`, key_hint: keyHint(`changed-${batch}`) });
        ws.removeSecret(ws.secret('function_env', `S_${batch - 1}_1`)!.id);
        saves.push(ws.save());
      }
      await Promise.all(saves);
    }
    memory = JSON.parse(JSON.stringify(ws.data));
  } finally {
    // Every write finished, and a compaction under way too.
    await store.close();
  }
  expect(compactions.length).toBeGreaterThanOrEqual(3);
  expect(memory.secrets).toHaveLength(30 * 10 - 29);
  expect(readStoredWorkspaces(dir).get(P)).toEqual(memory);
  const snapshot = JSON.parse(readFileSync(snapshotPath(), 'utf8'));
  expect(snapshot.log_gen).toBeGreaterThan(1);
  expect(generations().filter((g) => g < snapshot.log_gen)).toEqual([]);
  // Opened again, the store reads the same document.
  const again = await open();
  try {
    expect(JSON.parse(JSON.stringify((await again.workspace(P)).data))).toEqual(memory);
  } finally {
    await again.close();
  }
  expect(existsSync(snapshotPath())).toBe(true);
});
