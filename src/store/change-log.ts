/**
 * A workspace on disk is a snapshot plus an append-only log of changes (issue 26), so that an
 * acknowledged write costs what it changed, not what the workspace holds.
 *
 *   <stem>.json        the snapshot: the lowdb document as today, plus `log_seq` (the last group
 *                      of changes it includes) and `log_gen` (the log generation appended to after it)
 *   <stem>.<gen>.log   JSON lines, one line per group of acknowledged changes:
 *                      {"seq":N,"next_id":K,"changes":[…]}
 *
 * Groups are numbered 1, 2, 3…; replay applies, in order, the groups after the snapshot's
 * `log_seq`, which must follow it without a gap. A last line without its newline is a torn
 * append (a kill mid-write, never acknowledged): it is dropped whole and cut off the file before
 * the next append. A complete line that cannot be applied makes the workspace corrupt: its
 * principal gets a 500 naming the file and --reset-data, as for a broken snapshot.
 *
 * Compaction writes a new snapshot atomically (temporary file, then rename) when the log has
 * outgrown it, and switches appends to a new generation first, so nothing is ever truncated in
 * place: a crash before the rename leaves the old snapshot and every log (replay skips nothing it
 * should apply), a crash after it leaves old generations whose groups the new snapshot already
 * holds (replay skips them), and they are deleted once the snapshot is on disk. An old data
 * directory's `<stem>.json` with no log is a snapshot with an empty log.
 */
import { existsSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { HttpError } from '../errors/http-error.js';
import { compareFiles, type StoredFile, type StoredMailbox, type StoredSecret, type StoredSession, type WorkspaceData } from '../model/records.js';
import { NO_HOOKS, type TestHooks } from './test-hooks.js';
import { readWorkspaceFile } from './workspace-file.js';

/** One change, as a Workspace method made it (records are whole, frozen values). */
export type Change =
  | { t: 'session'; session: StoredSession }
  | { t: 'file'; session: string; file: StoredFile }
  | { t: '-file'; session: string; id: string }
  | { t: 'mailbox'; mailbox: StoredMailbox }
  | { t: '-mailbox'; id: string }
  | { t: 'secret'; secret: StoredSecret }
  | { t: '-secret'; id: string };

/** One line of the log. */
export interface Group {
  seq: number;
  /** The id generator's position after the group (ids never repeat after a replay). */
  next_id: number;
  changes: Change[];
}

/** The snapshot as stored: the document and where in the log it stands. */
export type Snapshot = WorkspaceData & { log_seq?: number; log_gen?: number };

export const logFileName = (stem: string, gen: number) => `${stem}.${gen}.log`;

/** `<stem>.<gen>.log` → [stem, gen], or null for any other name. */
export function parseLogFileName(name: string): [stem: string, gen: number] | null {
  const m = /^([^.]+)\.(\d+)\.log$/.exec(name);
  return m ? [m[1], Number(m[2])] : null;
}

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
