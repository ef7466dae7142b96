/**
 * Every step recovery takes, in one place — what makes a data directory a crash left behind
 * consistent again, and when each step runs:
 *
 * 1. At start-up (lock held, meta.json ours): the sweep — unfinished uploads, state directories a
 *    finished reset left behind, workspace temporaries, a change log whose snapshot is gone (a
 *    reset of one principal killed between the two: never replayed), and blob folders of
 *    workspaces that no longer exist. No workspace is read then.
 * 2. At a workspace's first use: replay — its snapshot, then the groups of its log generations
 *    after it (the format: log-format.ts); a torn last line (a kill mid-append, never
 *    acknowledged) is dropped whole and cut off its file; a complete line that cannot be applied
 *    makes the workspace corrupt (its principal answers 500 naming the file, left untouched).
 * 3. Then the blob check: a record whose bytes are gone is dropped with a warning line, and blobs
 *    in its folder that no record names (a crash between an upload's bytes and its record, or a
 *    delete's record and its bytes) are collected.
 * 4. After a write the disk refused: roll-back — the document goes back to what the disk holds
 *    (readBack: the same replay), so what was not acknowledged is never written by a later write
 *    (WorkspaceDocument.save applies it).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { HttpError } from '../errors/http-error.js';
import { compareFiles, type StoredFile, type StoredMailbox, type StoredSecret, type StoredSession, type WorkspaceData } from '../model/records.js';
import type { BlobStore } from './blobs.js';
import { logFileName, parseLogFileName, type Group, type Snapshot } from './log-format.js';
import { NO_HOOKS, type TestHooks } from './test-hooks.js';
import { readWorkspaceFile } from './workspace-file.js';

// 1. The start-up sweep

/** The start-up sweep of a data directory whose current state directory is `state`. */
export function sweepDataDir(dataDir: string, tmpDir: string, state: string): void {
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true });
  for (const n of readdirSync(dataDir)) {
    if (/^state-/.test(n) && n !== state) rmSync(join(dataDir, n), { recursive: true, force: true });
    if (/^\.meta\.json\./.test(n)) rmSync(join(dataDir, n), { force: true });
  }
  const wsDir = join(dataDir, state, 'workspaces');
  const blobDir = join(dataDir, state, 'blobs');
  mkdirSync(wsDir, { recursive: true });
  mkdirSync(blobDir, { recursive: true });
  const workspaces = new Set<string>();
  const names = readdirSync(wsDir);
  for (const n of names) {
    if (n.endsWith('.tmp')) rmSync(join(wsDir, n), { force: true });
    else if (n.endsWith('.json')) workspaces.add(n.slice(0, -'.json'.length));
  }
  // A change log whose snapshot is gone (a reset killed between the two) is never read: removed.
  for (const n of names) {
    const log = parseLogFileName(n);
    if (log && !workspaces.has(log[0])) rmSync(join(wsDir, n), { force: true });
  }
  for (const n of readdirSync(blobDir)) if (!workspaces.has(n)) rmSync(join(blobDir, n), { recursive: true, force: true });
}

// 2. Replay, and the torn line

/** What recovery found: the document, and where the log writer goes on from. */
export interface Recovered {
  /** The document (without the snapshot's log fields). */
  data: WorkspaceData;
  /** The last group applied (or the snapshot's position). */
  seq: number;
  /** The generation to append to, and those that exist (to delete once a snapshot covers them). */
  gen: number;
  gens: number[];
  /** Bytes of log the document holds beyond its snapshot (what compaction weighs). */
  logBytes: number;
  snapshotBytes: number;
  /** Bytes of the generation appended to (after a torn line was cut off). */
  fileBytes: number;
}

function corrupt(file: string, why: string): HttpError {
  return new HttpError(500, `data file ${file} ${why}; it was left untouched — fix or remove it, or restart with --reset-data`);
}

/**
 * Reads a workspace: its snapshot, then the groups of its log generations after it. A torn last
 * line (no newline) is cut off its file here — the repair of a kill mid-append.
 */
export function recoverWorkspace(wsDir: string, stem: string, snapshotFile: string, { repair = true, hooks = NO_HOOKS }: { repair?: boolean; hooks?: TestHooks } = {}): Recovered {
  const snapshotText = readFileSync(snapshotFile);
  const data = readWorkspaceFile(snapshotFile, snapshotText) as Snapshot;
  const from = data.log_seq ?? 0;
  const firstGen = data.log_gen ?? 1;
  delete data.log_seq;
  delete data.log_gen;
  // Generations before the snapshot's may remain (a compaction killed before deleting them: it
  // deletes oldest first, so what remains runs up to firstGen - 1; more than one after a second
  // such crash); their groups are skipped, and they are deleted once a snapshot is written. A
  // later one exists when a compaction was killed before its snapshot's rename.
  const gens: number[] = [];
  for (let g = firstGen - 1; g >= 1 && existsSync(join(wsDir, logFileName(stem, g))); g--) gens.unshift(g);
  for (let g = firstGen; existsSync(join(wsDir, logFileName(stem, g))); g++) gens.push(g);
  let seq = from;
  let logBytes = 0;
  let fileBytes = 0;
  const groups: Group[] = [];
  gens.forEach((gen, i) => {
    const file = join(wsDir, logFileName(stem, gen));
    const bytes = readFileSync(file);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) {
      // A torn append: only ever the last line of the newest generation (appends are sequential).
      if (i !== gens.length - 1) throw corrupt(file, 'has an unfinished line before later log files');
      if (repair) {
        hooks.reach('mid-repair');
        truncateSync(file, end);
      }
    }
    fileBytes = end;
    const text = bytes.toString('utf8', 0, end);
    let at = 0;
    while (at < text.length) {
      const nl = text.indexOf('\n', at);
      const line = text.slice(at, nl);
      at = nl + 1;
      let group: Group;
      try {
        group = JSON.parse(line);
      } catch {
        throw corrupt(file, 'holds a log line that is not JSON');
      }
      if (!group || typeof group !== 'object' || !Number.isInteger(group.seq) || !Number.isInteger(group.next_id) || !Array.isArray(group.changes)) {
        throw corrupt(file, 'holds a log line that is not a group of changes');
      }
      if (group.seq <= from) continue;
      if (group.seq <= seq) throw corrupt(file, `repeats change group ${group.seq}`);
      if (group.seq !== seq + 1) throw corrupt(file, `skips from change group ${seq} to ${group.seq}`);
      seq = group.seq;
      logBytes += Buffer.byteLength(line) + 1;
      groups.push(group);
    }
  });
  if (groups.length) applyGroups(data, groups, join(wsDir, logFileName(stem, gens[gens.length - 1])));
  const gen = Math.max(firstGen, ...gens);
  return { data, seq, gen, gens, logBytes, snapshotBytes: snapshotText.length, fileBytes: gens.includes(gen) ? fileBytes : 0 };
}

/** A list keyed by id, in its order: Map.set keeps an updated record's place, appends a new one. */
function keyed<T extends { id: string }>(list: T[]): Map<string, T> {
  return new Map(list.map((r) => [r.id, r]));
}

/** Applies groups to a document in place, as the Workspace methods that made them changed it. */
export function applyGroups(data: WorkspaceData, groups: Group[], file: string): void {
  let secrets: Map<string, StoredSecret> | null = null;
  let mailboxes: Map<string, StoredMailbox> | null = null;
  let sessions: Map<string, { session: StoredSession; files: Map<string, StoredFile> | null }> | null = null;
  const session = (id: string) => {
    sessions ??= new Map(data.sessions.map((s) => [s.id, { session: s, files: null }]));
    const entry = sessions.get(id);
    if (!entry) throw corrupt(file, `changes files of a session (${id}) it does not hold`);
    return (entry.files ??= keyed(entry.session.files));
  };
  for (const group of groups) {
    for (const c of group.changes) {
      switch (c.t) {
        case 'session':
          sessions ??= new Map(data.sessions.map((s) => [s.id, { session: s, files: null }]));
          sessions.set(c.session.id, { session: c.session, files: null });
          break;
        case 'file':
          session(c.session).set(c.file.id, c.file);
          break;
        case '-file':
          session(c.session).delete(c.id);
          break;
        case 'mailbox':
          (mailboxes ??= keyed(data.mailboxes)).set(c.mailbox.id, c.mailbox);
          break;
        case '-mailbox':
          (mailboxes ??= keyed(data.mailboxes)).delete(c.id);
          break;
        case 'secret':
          (secrets ??= keyed(data.secrets)).set(c.secret.id, c.secret);
          break;
        case '-secret':
          (secrets ??= keyed(data.secrets)).delete(c.id);
          break;
        default:
          throw corrupt(file, `holds a change of an unknown kind (${JSON.stringify((c as { t?: unknown }).t)})`);
      }
    }
    data.next_id = Math.max(data.next_id, group.next_id);
  }
  if (secrets) data.secrets = [...(secrets as Map<string, StoredSecret>).values()];
  if (mailboxes) data.mailboxes = [...(mailboxes as Map<string, StoredMailbox>).values()];
  if (sessions) {
    data.sessions = [...(sessions as Map<string, { session: StoredSession; files: Map<string, StoredFile> | null }>).values()].map(({ session: s, files }) =>
      files ? { id: s.id, actions: s.actions, files: [...files.values()].sort(compareFiles) } : s,
    );
  }
}

// 3. The blob check

/**
 * First use of a stored workspace: every record's blob is checked (a record whose bytes are gone
 * is dropped rather than answering 200 and then a reset connection), and whatever else is in its
 * folder goes. Returns how many records were dropped (the caller then writes a new snapshot).
 */
export function checkBlobs(blobs: BlobStore, folder: string, data: WorkspaceData): number {
  const wanted = new Set<string>();
  for (const s of data.sessions) for (const f of s.files) if (f.blob) wanted.add(f.blob);
  const present = new Set<string>();
  const dir = join(blobs.root, folder);
  let names: string[] = [];
  try {
    if (lstatSync(dir).isDirectory()) names = readdirSync(dir);
  } catch {
    // no folder: no blobs
  }
  for (const f of names) {
    const name = `${folder}/${f}`;
    if (wanted.has(name) && lstatSync(join(dir, f)).isFile()) present.add(name);
    else rmSync(join(dir, f), { recursive: true, force: true });
  }
  let dropped = 0;
  for (const s of data.sessions) {
    const kept = s.files.filter((f) => !f.blob || present.has(f.blob));
    dropped += s.files.length - kept.length;
    s.files = kept;
  }
  return dropped;
}

// 4. Roll-back

/** What the disk holds of a workspace now: the document a refused write rolls back to. */
export function readBack(wsDir: string, stem: string, snapshotFile: string, hooks?: TestHooks): WorkspaceData {
  return recoverWorkspace(wsDir, stem, snapshotFile, { hooks }).data;
}
