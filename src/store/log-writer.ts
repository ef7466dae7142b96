/**
 * The log writer: where a workspace's write becomes durable. Workspace methods record their
 * changes here; `flush()` (the workspace's save) resolves once every change recorded before it is
 * appended to the change log (the format: log-format.ts; read back by recovery.ts).
 *
 * Group commit: one append at a time; every change that comes in while an append is under way
 * goes into the next one, as one line. A client is answered only once the append holding its
 * change has been written (no fsync: an acknowledged write survives a killed process, as before).
 * A failed append fails the one waiting behind it too, and the workspace rolls its document back
 * to what the disk holds, so what was not acknowledged is never written by a later append.
 *
 * A snapshot is written when the log has outgrown the last one (compaction, in the background:
 * writes go on meanwhile, into a new log generation, and wait only for the short synchronous
 * slices of copying and serialising the document), and when the document must be written whole:
 * a copy-on-write view's first write, an imported workspace, a load that dropped records.
 */
import { open, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceData } from '../model/records.js';
import { logFileName, type Change, type Group, type Snapshot } from './log-format.js';
import type { Recovered } from './recovery.js';
import { serializeJson, type TextCache } from './json-text.js';
import { writeSnapshot } from './snapshot-writer.js';
import { ignoreMissing } from './store-errors.js';
import { documentFrom } from './template.js';
import { NO_HOOKS, type TestHooks } from './test-hooks.js';

/** The log is compacted once it weighs more than the snapshot, and at least this much. */
const MIN_COMPACTION_BYTES = 1024 * 1024;
const NEWLINE = Buffer.from('\n');

export interface Compaction {
  principal: string;
  records: number;
  /** Bytes of log the new snapshot took in. */
  log_bytes: number;
  snapshot_bytes: number;
  /** The longest synchronous slice (copying, then each serialised piece): what writes waited. */
  pause_ms: number;
  duration_ms: number;
}

export interface LogOptions {
  wsDir: string;
  stem: string;
  texts: TextCache;
  /** The document as it is now (a snapshot copies its lists). */
  document: () => WorkspaceData;
  /** Compaction on (default); the benchmark turns it off to make a long log. */
  compact?: boolean;
  onCompaction?: (c: Compaction) => void;
  warn?: (line: string) => void;
  /** Crash instants and a smaller compaction threshold, under test only (test-hooks.ts). */
  hooks?: TestHooks;
}

interface Task {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function task(): Task {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failure is the waiting saves' to handle; unawaited, it must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export class WorkspaceLog {
  readonly #o: LogOptions;
  readonly #hooks: TestHooks;
  #seq: number;
  #gen: number;
  /** Generations with a file, oldest first: those before the last snapshot's go once it is written. */
  #gens: number[];
  /** Bytes of the current generation's file known whole (a failed append is cut back to it). */
  #fileBytes: number;
  #logBytes: number;
  #snapshotBytes: number;
  #repair = false;
  #buffer: Change[] = [];
  #snapshotDue = false;
  /** The task not yet started: it takes whatever was recorded when it starts. */
  #next: Task | null = null;
  /** Settles when the newest task has. */
  #last: Promise<void> = Promise.resolve();
  #chain: Promise<void> = Promise.resolve();
  #running = 0;
  #compacting: Promise<void> | null = null;
  #closed = false;

  /** A log over what recovery found, or (no `from`) a new workspace's, whose first flush writes its snapshot. */
  constructor(opts: LogOptions, from?: Omit<Recovered, 'data'>) {
    this.#o = opts;
    this.#hooks = opts.hooks ?? NO_HOOKS;
    this.#seq = from?.seq ?? 0;
    this.#gen = from?.gen ?? 0;
    this.#gens = from ? [...from.gens] : [];
    this.#fileBytes = from?.fileBytes ?? 0;
    this.#logBytes = from?.logBytes ?? 0;
    this.#snapshotBytes = from?.snapshotBytes ?? 0;
    if (!from) this.#snapshotDue = true;
  }

  get snapshotFile(): string {
    return join(this.#o.wsDir, `${this.#o.stem}.json`);
  }

  #logFile(gen: number): string {
    return join(this.#o.wsDir, logFileName(this.#o.stem, gen));
  }

  /** Appends, snapshot writes or a compaction under way. */
  get busy(): boolean {
    return this.#running > 0 || this.#next !== null || this.#compacting !== null;
  }

  record(change: Change): void {
    if (!this.#closed) this.#buffer.push(change);
  }

  /** The next flush writes the whole document as a snapshot (no change is logged for it). */
  snapshotNext(): void {
    this.#snapshotDue = true;
  }

  /** Resolves once every change recorded so far is on disk; rejects when its write failed. */
  flush(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#buffer.length === 0 && !this.#snapshotDue) return this.#last;
    if (this.#next) return this.#next.promise;
    const t = task();
    this.#next = t;
    this.#last = t.promise;
    this.#chain = this.#chain.then(() => this.#run(t));
    return t.promise;
  }

  async #run(t: Task): Promise<void> {
    if (this.#next !== t) return; // cancelled by a failure before it
    this.#next = null;
    this.#running++;
    const changes = this.#buffer;
    this.#buffer = [];
    try {
      if (this.#snapshotDue) {
        this.#snapshotDue = false;
        await this.#snapshotNow();
      } else {
        await this.#append(changes);
      }
      t.resolve();
    } catch (e) {
      this.#fail(e);
      t.reject(e);
    } finally {
      this.#running--;
    }
  }

  /** What failed is rolled back by the workspace: nothing recorded since may reach the disk. */
  #fail(e: unknown): void {
    this.#buffer = [];
    const waiting = this.#next;
    this.#next = null;
    waiting?.reject(e);
    this.#last = Promise.resolve();
  }

  async #append(changes: Change[]): Promise<void> {
    if (changes.length === 0) return;
    const group: Group = { seq: this.#seq + 1, next_id: this.#o.document().next_id, changes };
    // Due for compaction: the snapshot is taken now, holding this group and nothing later, and
    // written once the group is on disk (never holding a change whose append failed).
    const capture = this.#compactionDue() ? this.#capture(group.seq, this.#gen + 1) : null;
    const line = serializeJson(group, this.#o.texts);
    const file = this.#logFile(this.#gen);
    if (this.#repair) {
      await truncate(file, this.#fileBytes).catch(ignoreMissing);
      this.#repair = false;
    }
    const fh = await open(file, 'a', 0o600);
    try {
      if (this.#hooks.armed('mid-append')) {
        await fh.write(line.subarray(0, line.length >> 1));
        this.#hooks.reach('mid-append');
        await fh.writev([line.subarray(line.length >> 1), NEWLINE]);
      } else {
        await fh.writev([line, NEWLINE]);
      }
    } catch (e) {
      // Part of the line may be there: cut back to the last whole one before the next append.
      this.#repair = true;
      throw e;
    } finally {
      await fh.close();
    }
    this.#hooks.reach('between-groups');
    if (!this.#gens.includes(this.#gen)) this.#gens.push(this.#gen);
    this.#seq = group.seq;
    this.#fileBytes += line.length + 1;
    this.#logBytes += line.length + 1;
    if (capture) this.#startCompaction(capture);
  }

  #compactionDue(): boolean {
    const least = this.#hooks.compactionBytes ?? MIN_COMPACTION_BYTES;
    return this.#o.compact !== false && this.#compacting === null && this.#logBytes > Math.max(this.#hooks.compactionBytes ?? this.#snapshotBytes, least);
  }

  /** The document as of group `seq`, its lists copied (records are immutable, so shared). */
  #capture(seq: number, gen: number): { data: Snapshot; pauseMs: number } {
    const began = performance.now();
    const d = this.#o.document();
    const data: Snapshot = { ...documentFrom(d, d.principal), log_seq: seq, log_gen: gen };
    return { data, pauseMs: performance.now() - began };
  }

  /** Appends go to a new generation; the snapshot is written meanwhile, then the old ones go. */
  #startCompaction(capture: { data: Snapshot; pauseMs: number }): void {
    const began = performance.now();
    const old = this.#gens;
    const logBytes = this.#logBytes;
    this.#gen = capture.data.log_gen!;
    this.#gens = [];
    this.#fileBytes = 0;
    this.#logBytes = 0;
    const run = (async () => {
      try {
        const { bytes, pauseMs } = await writeSnapshot(this.snapshotFile, capture.data, { texts: this.#o.texts, sliced: true, hooks: this.#hooks });
        this.#snapshotBytes = bytes;
        await this.#removeGenerations(old);
        const records = capture.data.secrets.length + capture.data.mailboxes.length + capture.data.sessions.reduce((n, s) => n + s.files.length, 0);
        this.#o.onCompaction?.({
          principal: capture.data.principal,
          records,
          log_bytes: logBytes,
          snapshot_bytes: bytes,
          pause_ms: Math.round(Math.max(pauseMs, capture.pauseMs) * 100) / 100,
          duration_ms: Math.round((performance.now() - began) * 100) / 100,
        });
      } catch (e) {
        // Nothing is lost: the log still holds every change. The old generations stay until a
        // later snapshot covers them.
        this.#gens = [...old, ...this.#gens];
        this.#logBytes += logBytes;
        this.#o.warn?.(`workspace of ${capture.data.principal}: compaction failed (${(e as Error).message}); its log keeps every change`);
      } finally {
        this.#compacting = null;
      }
    })();
    this.#compacting = run;
  }

  /** The whole document, now: a view's first write, an import, a load that dropped records. */
  async #snapshotNow(): Promise<void> {
    // Snapshots are written one at a time, in order: a compaction's older one never lands last.
    await this.#compacting;
    const old = this.#gens;
    const capture = this.#capture(this.#seq, this.#gen + 1);
    const { bytes } = await writeSnapshot(this.snapshotFile, capture.data, { texts: this.#o.texts, sliced: false, hooks: this.#hooks });
    this.#hooks.reach('after-snapshot');
    this.#gen = capture.data.log_gen!;
    this.#gens = [];
    this.#fileBytes = 0;
    this.#logBytes = 0;
    this.#repair = false;
    this.#snapshotBytes = bytes;
    await this.#removeGenerations(old);
  }

  async #removeGenerations(gens: number[]): Promise<void> {
    for (const g of gens) await unlink(this.#logFile(g)).catch(ignoreMissing);
  }

  /**
   * No more writes: the ones asked for (perhaps already acknowledged) and a compaction under way
   * are finished first, so that the reset that closes it removes files nothing writes again.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.flush().catch(() => undefined);
    this.#closed = true;
    this.#buffer = [];
    await this.#chain;
    await this.#compacting;
  }
}
