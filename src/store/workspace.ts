/**
 * One principal's data: a lowdb document plus in-memory indexes over it. Handlers use these
 * methods and never touch lowdb. Every mutating method is followed by `save()`, awaited before
 * the response leaves, so an acknowledged write is on disk.
 *
 * Records (files, secrets, mailboxes, actions) are immutable values: deep-frozen, and changed by
 * replacing them through the methods below. That is what lets the store keep each record's JSON
 * text between writes and share the scenario's records between workspaces; assigning to a
 * record's field throws a TypeError instead of silently going unsaved.
 */
import { createHash } from 'node:crypto';
import type { Low } from 'lowdb';
import type { BlobStore } from './blobs.js';
import { SessionFileIndex, type FilePage } from './file-index.js';
import { asStorageError } from './storage-error.js';
import { deepFreeze } from './json-text.js';
import type { FileSource, StoredFile, StoredMailbox, StoredSecret, StoredSession, WorkspaceData } from './types.js';

export type IdPrefix = 'file' | 'sec' | 'sess' | 'mbx';

const secretKey = (namespace: string, name: string) => `${namespace}\u0000${name}`;

export interface WorkspacePlace {
  blobs: BlobStore;
  /** The workspace's blob folder (named like its file). */
  folder: string;
  /** What the disk holds now, to roll back to after a failed write; null in memory. */
  reload?: () => WorkspaceData;
  /** Lets go of the file: the writes already asked for are finished, no later one is made. */
  close?: () => Promise<void>;
}

export class Workspace {
  readonly #db: Low<WorkspaceData>;
  readonly #seed: number;
  readonly #place: WorkspacePlace;
  #detached = false;
  readonly #commits = new Set<Promise<unknown>>();
  #rolledBack: unknown = null;
  #sessions = new Map<string, { session: StoredSession; files: SessionFileIndex }>();
  #secrets = new Map<string, StoredSecret>();
  #mailboxes = new Map<string, StoredMailbox>();
  readonly #derived = new WeakMap<(record: any) => unknown, WeakMap<object, unknown>>();

  constructor(db: Low<WorkspaceData>, seed: number, place: WorkspacePlace) {
    this.#db = db;
    this.#seed = seed;
    this.#place = place;
    this.reindex();
  }

  get folder(): string {
    return this.#place.folder;
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

  get data(): WorkspaceData {
    return this.#db.data;
  }

  get principal(): string {
    return this.#db.data.principal;
  }

  /** Rebuilds the indexes (and freezes the records) after the document was replaced wholesale. */
  reindex(): void {
    const data = this.#db.data;
    for (const s of data.sessions) {
      deepFreeze(s.actions);
      for (const f of s.files) deepFreeze(f);
    }
    for (const m of data.mailboxes) deepFreeze(m);
    for (const s of data.secrets) deepFreeze(s);
    this.#sessions = new Map(data.sessions.map((s) => [s.id, { session: s, files: new SessionFileIndex(s.files) }]));
    // Should a document hold a name twice in a namespace, the first one is the secret.
    this.#secrets = new Map();
    for (const s of data.secrets) if (!this.#secrets.has(secretKey(s.namespace, s.name))) this.#secrets.set(secretKey(s.namespace, s.name), s);
    this.#mailboxes = new Map(data.mailboxes.map((m) => [m.id, m]));
  }

  replace(data: WorkspaceData): void {
    this.#db.data = data;
    this.reindex();
  }

  /**
   * Writes the document. A write the disk refused rolls the document back to what the disk
   * holds (every change since the last good write, all of whose callers are told so), so what
   * was not acknowledged is never written by a later save; a full disk answers 507.
   */
  async save(): Promise<void> {
    if (this.#detached) return;
    try {
      await this.#db.write();
    } catch (e) {
      if (this.#rolledBack !== e && this.#place.reload) {
        this.#rolledBack = e;
        try {
          this.replace(this.#place.reload());
        } catch {
          // Nothing on disk yet (a new workspace's first write): the workspace is dropped.
        }
      }
      throw asStorageError(e);
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
    for (const s of this.#db.data.sessions) for (const f of s.files) if (f.blob === blob) return true;
    return false;
  }

  /**
   * `derive(record)`, computed once per record: records never change, so neither does anything
   * derived from one alone (the API view of a file, for instance).
   */
  derived<R extends object, T>(record: R, derive: (record: R) => T): T {
    let memo = this.#derived.get(derive);
    if (!memo) this.#derived.set(derive, (memo = new WeakMap()));
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
    const position = this.#db.data.next_id++;
    const digest = createHash('sha256').update(`${this.#seed}\0${this.principal}\0${position}`).digest('hex');
    return `${prefix}_${digest.slice(0, 16)}`;
  }

  // sessions and files

  session(id: string): StoredSession | undefined {
    return this.#sessions.get(id)?.session;
  }

  addSession(session: StoredSession): void {
    deepFreeze(session.actions);
    for (const f of session.files) deepFreeze(f);
    this.#db.data.sessions.push(session);
    this.#sessions.set(session.id, { session, files: new SessionFileIndex(session.files) });
  }

  #files(session: StoredSession): SessionFileIndex {
    const entry = this.#sessions.get(session.id);
    if (!entry || entry.session !== session) throw new Error(`session ${session.id} is not in this workspace`);
    return entry.files;
  }

  /** Inserts a file at its place in the listing order (binary search, no re-sort). */
  addFile(session: StoredSession, file: StoredFile): void {
    this.#files(session).add(deepFreeze(file));
  }

  file(session: StoredSession, fileId: string): StoredFile | undefined {
    return this.#files(session).get(fileId);
  }

  removeFile(session: StoredSession, fileId: string): StoredFile | undefined {
    return this.#files(session).remove(fileId);
  }

  /** A page of the session's unexpired files (of one source, or all), newest first, and their total. */
  filePage(session: StoredSession, source: FileSource | null, now: number, offset: number, limit: number): FilePage {
    return this.#files(session).page(source, now, offset, limit);
  }

  // mailboxes

  mailboxes(): readonly StoredMailbox[] {
    return this.#db.data.mailboxes;
  }

  mailbox(id: string): StoredMailbox | undefined {
    return this.#mailboxes.get(id);
  }

  addMailbox(mailbox: StoredMailbox): StoredMailbox {
    deepFreeze(mailbox);
    this.#db.data.mailboxes.push(mailbox);
    this.#mailboxes.set(mailbox.id, mailbox);
    return mailbox;
  }

  /** Replaces a mailbox with a changed copy; returns the new record. */
  updateMailbox(mailbox: StoredMailbox, changes: Partial<Omit<StoredMailbox, 'id'>>): StoredMailbox {
    const list = this.#db.data.mailboxes;
    const i = list.indexOf(mailbox);
    if (i < 0) throw new Error(`mailbox ${mailbox.id} is not in this workspace`);
    const next = deepFreeze({ ...mailbox, ...changes });
    list[i] = next;
    this.#mailboxes.set(next.id, next);
    return next;
  }

  removeMailbox(id: string): boolean {
    const m = this.#mailboxes.get(id);
    if (!m) return false;
    const list = this.#db.data.mailboxes;
    list.splice(list.indexOf(m), 1);
    this.#mailboxes.delete(id);
    return true;
  }

  // secrets

  secrets(): readonly StoredSecret[] {
    return this.#db.data.secrets;
  }

  secret(namespace: string, name: string): StoredSecret | undefined {
    return this.#secrets.get(secretKey(namespace, name));
  }

  addSecret(secret: StoredSecret): StoredSecret {
    deepFreeze(secret);
    this.#db.data.secrets.push(secret);
    this.#secrets.set(secretKey(secret.namespace, secret.name), secret);
    return secret;
  }

  /** Replaces a secret with a changed copy (same id, namespace and name); returns the new record. */
  updateSecret(secret: StoredSecret, changes: Partial<Pick<StoredSecret, 'value' | 'key_hint' | 'last_used_at'>>): StoredSecret {
    const list = this.#db.data.secrets;
    const i = list.indexOf(secret);
    if (i < 0) throw new Error(`secret ${secret.id} is not in this workspace`);
    const next = deepFreeze({ ...secret, ...changes });
    list[i] = next;
    this.#secrets.set(secretKey(next.namespace, next.name), next);
    return next;
  }

  removeSecret(id: string): boolean {
    const list = this.#db.data.secrets;
    const i = list.findIndex((s) => s.id === id);
    if (i < 0) return false;
    const [s] = list.splice(i, 1);
    const key = secretKey(s.namespace, s.name);
    if (this.#secrets.get(key) === s) {
      const next = list.find((x) => secretKey(x.namespace, x.name) === key);
      if (next) this.#secrets.set(key, next);
      else this.#secrets.delete(key);
    }
    return true;
  }

  /** Blob names this workspace refers to. */
  blobNames(): string[] {
    const names: string[] = [];
    for (const s of this.#db.data.sessions) for (const f of s.files) if (f.blob) names.push(f.blob);
    return names;
  }
}
