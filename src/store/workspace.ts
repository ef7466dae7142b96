/**
 * One principal's data as handlers see it: sessions and their files, mailboxes and secrets, read
 * through in-memory indexes and changed only through these methods, never through lowdb. A record
 * is replaced, never changed in place.
 *
 * Two kinds of method change it:
 * - changes (async: createSession, storeUpload, deleteFile, importDocument, storeSecret, …), one
 *   per whole change a handler makes, each resolving only once the change is durable — appended
 *   to the change log (docs/guarantees.md) — and owning the order of its steps (a file's record
 *   and its bytes: file-writes.ts). Handlers call these and nothing else to write;
 * - record methods (sync: addSecret, updateMailbox, …), which change the document in memory and
 *   are written by the next `save()` (workspace-document.ts): the steps the changes are made of,
 *   and how a test arranges data in a store before handing it to createApp.
 */
import type { Readable } from 'node:stream';
import { SessionFileIndex, type FilePage } from './file-index.js';
import { deleteFile, importDocument, storeUpload, type ImportedDocument, type RecordOf } from './file-writes.js';
import { deepFreeze } from './json-text.js';
import type { FileSource, StoredFile, StoredMailbox, StoredSecret, StoredSession } from '../model/records.js';
import { keyHint } from '../model/secret-rules.js';
import { scenarioFileStream } from '../scenarios/seeded-content.js';
import { freezeSession } from './template.js';
import { secretKey, WorkspaceDocument } from './workspace-document.js';

export type { ImportedDocument, ImportedFile, RecordOf } from './file-writes.js';

export type { IdPrefix, ViewOf, WorkspacePlace } from './workspace-document.js';

type MailboxChanges = Partial<Omit<StoredMailbox, 'id'>>;

export class Workspace extends WorkspaceDocument {
  // changes: each resolves once durable

  /** Adds a session (its id not taken: the caller checked). */
  async createSession(session: StoredSession): Promise<StoredSession> {
    this.addSession(session);
    await this.save();
    return session;
  }

  /**
   * Stores an upload (a temporary blob) with its record, or neither: `recordOf(blob)` makes the
   * record once the bytes are committed, and may throw (its session gone meanwhile).
   */
  storeUpload(temp: string, recordOf: RecordOf): Promise<StoredFile> {
    return storeUpload(this, temp, recordOf);
  }

  /** Deletes a file with its bytes; the removed record, or undefined when there was none. */
  deleteFile(session: StoredSession, fileId: string): Promise<StoredFile | undefined> {
    return deleteFile(this, session, fileId);
  }

  /** Replaces the whole document with an imported one, the bytes it brings stored with it. */
  importDocument(doc: ImportedDocument): Promise<void> {
    return importDocument(this, doc);
  }

  /**
   * What a --spec operation's generated answer changed (issue 30): whether it took ids from the
   * id generator (whose position is part of the workspace, so a restart repeats none) and the
   * session it started, made to exist empty unless it does. Resolves once durable.
   */
  async recordGeneratedAnswer(idsTaken: boolean, startedSession?: string): Promise<void> {
    const added = startedSession !== undefined && this.ensureSession(startedSession);
    if (idsTaken || added) await this.save();
  }

  /** A file's bytes: its blob's, or (a scenario's file) derived from its id and size. */
  openFile(file: StoredFile): Readable {
    return file.blob ? this.blobs.read(file.blob) : scenarioFileStream(file);
  }

  /**
   * Stores a secret by namespace and name. A name that exists in the namespace gets the new value
   * and keeps its id and created_at (chosen: the service's behaviour here is not recorded).
   */
  async storeSecret(namespace: StoredSecret['namespace'], name: string, value: string, now: number): Promise<StoredSecret> {
    const existing = this.secret(namespace, name);
    const secret = existing
      ? this.updateSecret(existing, { value, key_hint: keyHint(value) })
      : this.addSecret({ id: this.newId('sec'), namespace, name, value, key_hint: keyHint(value), created_at: now, last_used_at: null });
    await this.save();
    return secret;
  }

  /** Records that a secret's value was read now; the secret as it now is. */
  async useSecret(secret: StoredSecret, now: number): Promise<StoredSecret> {
    const used = this.updateSecret(secret, { last_used_at: now });
    await this.save();
    return used;
  }

  /** False when no secret has the id. */
  async deleteSecret(id: string): Promise<boolean> {
    if (!this.removeSecret(id)) return false;
    await this.save();
    return true;
  }

  async connectMailbox(mailbox: StoredMailbox): Promise<StoredMailbox> {
    this.addMailbox(mailbox);
    await this.save();
    return mailbox;
  }

  /** Replaces each mailbox with a changed copy, in one durable change; the new records. */
  async changeMailboxes(changes: ReadonlyArray<readonly [StoredMailbox, MailboxChanges]>): Promise<StoredMailbox[]> {
    const changed = changes.map(([m, c]) => this.updateMailbox(m, c));
    if (changed.length) await this.save();
    return changed;
  }

  async changeMailbox(mailbox: StoredMailbox, changes: MailboxChanges): Promise<StoredMailbox> {
    const [changed] = await this.changeMailboxes([[mailbox, changes]]);
    return changed;
  }

  /** False when no mailbox has the id. */
  async deleteMailbox(id: string): Promise<boolean> {
    if (!this.removeMailbox(id)) return false;
    await this.save();
    return true;
  }

  // record methods: in memory, written by the next save()

  // sessions and files

  session(id: string): StoredSession | undefined {
    return this.sessionIndex.get(id)?.session;
  }

  addSession(session: StoredSession): void {
    this.own();
    freezeSession(session);
    this.db.data.sessions.push(session);
    this.sessionIndex.set(session.id, { session, files: new SessionFileIndex(session.files) });
    this.changed({ t: 'session', session });
  }

  /**
   * Makes the session exist, empty, unless it does (a session a --spec document's operation
   * started: issue 30, item 4); true when it was added. Saved with the workspace's next save.
   */
  ensureSession(id: string): boolean {
    if (this.sessionIndex.has(id)) return false;
    this.addSession({ id, actions: [], files: [] });
    return true;
  }

  /** By id: a session read from a view is the base's object, the same session once copied. */
  #files(session: StoredSession): SessionFileIndex {
    const entry = this.sessionIndex.get(session.id);
    if (!entry) throw new Error(`session ${session.id} is not in this workspace`);
    return entry.files;
  }

  /** Inserts a file at its place in the listing order (binary search, no re-sort). */
  addFile(session: StoredSession, file: StoredFile): void {
    this.own();
    this.#files(session).add(deepFreeze(file));
    this.changed({ t: 'file', session: session.id, file });
  }

  file(session: StoredSession, fileId: string): StoredFile | undefined {
    return this.#files(session).get(fileId);
  }

  removeFile(session: StoredSession, fileId: string): StoredFile | undefined {
    this.own();
    const removed = this.#files(session).remove(fileId);
    if (removed) this.changed({ t: '-file', session: session.id, id: fileId });
    return removed;
  }

  /** A page of the session's unexpired files (of one source, or all), newest first, and their total. */
  filePage(session: StoredSession, source: FileSource | null, now: number, offset: number, limit: number): FilePage {
    return this.#files(session).page(source, now, offset, limit);
  }

  // mailboxes

  mailboxes(): readonly StoredMailbox[] {
    return this.db.data.mailboxes;
  }

  mailbox(id: string): StoredMailbox | undefined {
    return this.mailboxIndex.get(id);
  }

  addMailbox(mailbox: StoredMailbox): StoredMailbox {
    this.own();
    deepFreeze(mailbox);
    this.db.data.mailboxes.push(mailbox);
    this.mailboxIndex.set(mailbox.id, mailbox);
    this.changed({ t: 'mailbox', mailbox });
    return mailbox;
  }

  /** Replaces a mailbox with a changed copy; returns the new record. */
  updateMailbox(mailbox: StoredMailbox, changes: MailboxChanges): StoredMailbox {
    this.own();
    const list = this.db.data.mailboxes;
    const i = list.indexOf(mailbox);
    if (i < 0) throw new Error(`mailbox ${mailbox.id} is not in this workspace`);
    const next = deepFreeze({ ...mailbox, ...changes });
    list[i] = next;
    this.mailboxIndex.set(next.id, next);
    this.changed({ t: 'mailbox', mailbox: next });
    return next;
  }

  removeMailbox(id: string): boolean {
    if (!this.mailboxIndex.has(id)) return false;
    this.own();
    const m = this.mailboxIndex.get(id)!;
    const list = this.db.data.mailboxes;
    list.splice(list.indexOf(m), 1);
    this.mailboxIndex.delete(id);
    this.changed({ t: '-mailbox', id });
    return true;
  }

  // secrets

  secrets(): readonly StoredSecret[] {
    return this.db.data.secrets;
  }

  secret(namespace: string, name: string): StoredSecret | undefined {
    return this.secretIndex.get(secretKey(namespace, name));
  }

  addSecret(secret: StoredSecret): StoredSecret {
    this.own();
    deepFreeze(secret);
    this.db.data.secrets.push(secret);
    this.secretIndex.set(secretKey(secret.namespace, secret.name), secret);
    this.changed({ t: 'secret', secret });
    return secret;
  }

  /** Replaces a secret with a changed copy (same id, namespace and name); returns the new record. */
  updateSecret(secret: StoredSecret, changes: Partial<Pick<StoredSecret, 'value' | 'key_hint' | 'last_used_at'>>): StoredSecret {
    this.own();
    const list = this.db.data.secrets;
    const i = list.indexOf(secret);
    if (i < 0) throw new Error(`secret ${secret.id} is not in this workspace`);
    const next = deepFreeze({ ...secret, ...changes });
    list[i] = next;
    this.secretIndex.set(secretKey(next.namespace, next.name), next);
    this.changed({ t: 'secret', secret: next });
    return next;
  }

  removeSecret(id: string): boolean {
    if (!this.db.data.secrets.some((s) => s.id === id)) return false;
    this.own();
    const list = this.db.data.secrets;
    const i = list.findIndex((s) => s.id === id);
    if (i < 0) return false;
    const [s] = list.splice(i, 1);
    this.changed({ t: '-secret', id });
    const key = secretKey(s.namespace, s.name);
    if (this.secretIndex.get(key) === s) {
      const next = list.find((x) => secretKey(x.namespace, x.name) === key);
      if (next) this.secretIndex.set(key, next);
      else this.secretIndex.delete(key);
    }
    return true;
  }

  /** Blob names this workspace refers to. */
  blobNames(): string[] {
    const names: string[] = [];
    for (const s of this.db.data.sessions) for (const f of s.files) if (f.blob) names.push(f.blob);
    return names;
  }
}
