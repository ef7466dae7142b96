/**
 * One principal's document and its lifecycle, under the record methods of Workspace
 * (workspace.ts): lowdb and the in-memory indexes, the copy-on-write view of the scenario until
 * the first write, saving with roll-back (what it rolls back to: recovery.ts), detaching on reset
 * and committing uploaded blobs.
 *
 * Records (files, secrets, mailboxes, actions) are immutable values: deep-frozen, and changed by
 * replacing them through Workspace's methods. That is what lets the store keep each record's JSON
 * text between writes and share the scenario's records between workspaces; assigning to a
 * record's field throws a TypeError instead of silently going unsaved.
 *
 * A new principal's workspace starts as a view (copy-on-write): it reads the scenario's shared
 * workspace (one per store, indexes built once) until its first write, which copies the lists —
 * never the records — into a document of its own. Until then it costs a small object and no disk.
 */
import { createHash } from 'node:crypto';
import { Low, Memory } from 'lowdb';
import type { BlobStore } from './blobs.js';
import { SessionFileIndex } from './file-index.js';
import { asStorageError } from './store-errors.js';
import { documentFrom, freezeRecords } from './template.js';
import type { StoredMailbox, StoredSecret, StoredSession, WorkspaceData } from '../model/records.js';
import type { Change } from './log-format.js';
import type { WorkspaceLog } from './log-writer.js';

export type IdPrefix = 'file' | 'sec' | 'sess' | 'mbx';

/** The secrets index's key: a name is unique within its namespace. */
export const secretKey = (namespace: string, name: string) => `${namespace}\u0000${name}`;

export interface WorkspacePlace {
  blobs: BlobStore;
  /** The workspace's blob folder (named like its file). */
  folder: string;
  /** What the disk holds now, to roll back to after a failed write; null in memory. */
  reload?: () => WorkspaceData;
  /** Lets go of the file: the writes already asked for are finished, no later one is made. */
  close?: () => Promise<void>;
  /** On disk: the snapshot and change log the workspace's changes are written to (log-writer.ts). */
  log?: WorkspaceLog;
}

/** What a view needs: the shared workspace it reads, and how to get a document of its own on first write. */
export interface ViewOf {
  base: WorkspaceDocument;
  principal: string;
  /** The view's own document (and where it is kept) from now on. */
  open(data: WorkspaceData): { db: Low<WorkspaceData>; reload?: () => WorkspaceData; close?: () => Promise<void>; log?: WorkspaceLog };
}

export class WorkspaceDocument {
  protected db: Low<WorkspaceData>;
  #view: ViewOf | null = null;
  /** The view this workspace was until its first write, until that write is on disk. */
  #wasView: ViewOf | null = null;
  /** Derived values live with the shared workspace when there is one: its records are shared too. */
  #memoOwner: WorkspaceDocument = this;
  readonly #seed: number;
  #place: WorkspacePlace;
  #detached = false;
  #saving = 0;
  readonly #commits = new Set<Promise<unknown>>();
  #rolledBack: unknown = null;
  // Set by reindex(), or shared with the base by a view.
  protected sessionIndex!: Map<string, { session: StoredSession; files: SessionFileIndex }>;
  protected secretIndex!: Map<string, StoredSecret>;
  protected mailboxIndex!: Map<string, StoredMailbox>;
  readonly #derived = new WeakMap<(record: any) => unknown, WeakMap<object, unknown>>();

  /** A workspace over its own document, or (given a ViewOf) a copy-on-write view of a shared one. */
  constructor(source: Low<WorkspaceData> | ViewOf, seed: number, place: WorkspacePlace) {
    this.#seed = seed;
    this.#place = place;
    if ('base' in source) {
      this.db = source.base.db;
      this.#becomeView(source);
    } else {
      this.db = source;
      this.reindex();
    }
  }

  /** Reads go to the base's document and indexes, which no one writes through a view. */
  #becomeView(view: ViewOf): void {
    const base = view.base;
    this.#view = view;
    this.#memoOwner = base.#memoOwner;
    this.db = base.db;
    this.sessionIndex = base.sessionIndex;
    this.secretIndex = base.secretIndex;
    this.mailboxIndex = base.mailboxIndex;
  }

  /** True once the workspace has a document of its own (it was written to, or loaded). */
  get materialized(): boolean {
    return this.#view === null;
  }

  /** Writes, blob commits or a compaction under way: such a workspace is never let go of. */
  get busy(): boolean {
    return this.#saving > 0 || this.#commits.size > 0 || this.#place.log?.busy === true;
  }

  /** A Workspace method's change, for the change log (on disk; nothing in memory). */
  protected changed(change: Change): void {
    this.#place.log?.record(change);
  }

  /** The first write of a view: copy the lists (records are shared, frozen values) and index them. */
  protected own(): void {
    const view = this.#view;
    if (!view) return;
    const data = documentFrom(view.base.data, view.principal);
    this.#view = null;
    this.#wasView = view;
    this.#memoOwner = this;
    // Reset away already: nothing of it may reach the disk, so its document stays in memory.
    const opened = this.#detached ? { db: new Low<WorkspaceData>(new Memory<WorkspaceData>(), data) } : view.open(data);
    this.db = opened.db;
    this.#place = { ...this.#place, reload: opened.reload, close: opened.close, log: opened.log };
    this.reindex();
  }

  get folder(): string {
    return this.#place.folder;
  }

  /** Where the workspace's uploaded bytes live (its folder in the blob store). */
  get blobs(): BlobStore {
    return this.#place.blobs;
  }

  /** True once a reset replaced this workspace: it never writes again. */
  get detached(): boolean {
    return this.#detached;
  }

  /**
   * Detaches the workspace (a reset replaces it): no write is asked for from now on, and the
   * promise settles once the writes already asked for and the blob commits under way have
   * finished, so the reset that follows removes the file and the blobs for good.
   */
  async detach(): Promise<void> {
    this.#detached = true;
    await this.#place.close?.();
    await Promise.allSettled([...this.#commits]);
  }

  /** The document; a view answers with the shared lists, which must not be changed through it. */
  get data(): WorkspaceData {
    return this.#view ? { ...this.#view.base.data, principal: this.#view.principal } : this.db.data;
  }

  get principal(): string {
    return this.#view ? this.#view.principal : this.db.data.principal;
  }

  /** Rebuilds the indexes (and freezes the records) after the document was replaced wholesale. */
  reindex(): void {
    const data = this.db.data;
    freezeRecords(data);
    this.sessionIndex = new Map(data.sessions.map((s) => [s.id, { session: s, files: new SessionFileIndex(s.files) }]));
    // Should a document hold a name twice in a namespace, the first one is the secret.
    this.secretIndex = new Map();
    for (const s of data.secrets) if (!this.secretIndex.has(secretKey(s.namespace, s.name))) this.secretIndex.set(secretKey(s.namespace, s.name), s);
    this.mailboxIndex = new Map(data.mailboxes.map((m) => [m.id, m]));
  }

  /** The document replaced wholesale (an import): the next save writes it as a snapshot. */
  replace(data: WorkspaceData): void {
    this.own();
    this.db.data = data;
    this.reindex();
    this.#place.log?.snapshotNext();
  }

  /** The next save writes the whole document as a snapshot (a load that dropped records). */
  snapshotNext(): void {
    this.#place.log?.snapshotNext();
  }

  /**
   * Writes the changes made so far (appended to the change log by log-writer.ts; in memory,
   * nothing to write). A write the disk refused rolls the document back to what the disk holds
   * (recovery.ts's readBack: every change since the last good write, all of whose callers are
   * told so), so what was not acknowledged is never written by a later save; a full disk answers
   * 507. The Workspace changes call this; a handler never does.
   */
  async save(): Promise<void> {
    // A view has nothing of its own to save: the scenario it shows is where it came from.
    if (this.#detached || this.#view) return;
    this.#saving++;
    try {
      const log = this.#place.log;
      await (log ? log.flush() : this.db.write());
      this.#wasView = null;
    } catch (e) {
      if (this.#rolledBack !== e && this.#place.reload) {
        this.#rolledBack = e;
        try {
          this.db.data = this.#place.reload();
          this.reindex();
        } catch {
          // Nothing on disk yet (a view's first write): back to the view, the change not kept.
          if (this.#wasView) this.#becomeView(this.#wasView);
        }
      }
      throw asStorageError(e);
    } finally {
      this.#saving--;
    }
  }

  /** Commits an uploaded temporary blob into this workspace's folder; returns its name. */
  async commitBlob(temp: string): Promise<string> {
    const { blobs, folder } = this.#place;
    if (this.#detached) {
      // Reset away already: the upload counts as made before the reset, its bytes gone with it.
      await blobs.discard(temp);
      return `${folder}/detached`;
    }
    const p = blobs.commit(temp, folder);
    this.#commits.add(p);
    try {
      return await p;
    } catch (e) {
      throw asStorageError(e);
    } finally {
      this.#commits.delete(p);
    }
  }

  /** Whether a record of this workspace names the blob. */
  references(blob: string): boolean {
    for (const s of this.db.data.sessions) for (const f of s.files) if (f.blob === blob) return true;
    return false;
  }

  /**
   * `derive(record)`, computed once per record: records never change, so neither does anything
   * derived from one alone (the API view of a file, for instance).
   */
  derived<R extends object, T>(record: R, derive: (record: R) => T): T {
    const derivedBy = this.#memoOwner.#derived;
    let memo = derivedBy.get(derive);
    if (!memo) derivedBy.set(derive, (memo = new WeakMap()));
    let value = memo.get(record) as T | undefined;
    if (value === undefined) {
      value = derive(record);
      memo.set(record, value);
    }
    return value;
  }

  /**
   * A new id: readable prefix + 16 hex digits from a generator seeded by --seed, keyed by the
   * principal and a persisted position, so ids never repeat in a workspace (even after a
   * restart), differ between principals, and a fresh run with the same seed repeats them.
   * (CONTRACT §8 says 24 hex digits; the recorded answers of the real service show 16.)
   */
  newId(prefix: IdPrefix): string {
    this.own();
    // The position goes to disk with the next group of changes (log-format.ts: next_id).
    const position = this.db.data.next_id++;
    const digest = createHash('sha256').update(`${this.#seed}\0${this.principal}\0${position}`).digest('hex');
    return `${prefix}_${digest.slice(0, 16)}`;
  }
}
