/**
 * The format of a workspace on disk: a snapshot plus an append-only log of changes (issue 26), so
 * that an acknowledged write costs what it changed, not what the workspace holds. Written by
 * log-writer.ts, read back by recovery.ts.
 *
 *   <stem>.json        the snapshot: the lowdb document as today, plus `log_seq` (the last group
 *                      of changes it includes) and `log_gen` (the log generation appended to after it)
 *   <stem>.<gen>.log   JSON lines, one line per group of acknowledged changes:
 *                      {"seq":N,"next_id":K,"changes":[…]}
 *
 * Groups are numbered 1, 2, 3…; replay applies, in order, the groups after the snapshot's
 * `log_seq`, which must follow it without a gap. A last line without its newline is a torn
 * append (a kill mid-write, never acknowledged). Compaction writes a new snapshot and switches
 * appends to a new generation, so nothing is ever truncated in place but a torn line. An old
 * data directory's `<stem>.json` with no log is a snapshot with an empty log.
 */
import type { StoredFile, StoredMailbox, StoredSecret, StoredSession, WorkspaceData } from '../model/records.js';

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
