/**
 * One principal's data: a lowdb document plus in-memory indexes over it. Handlers use these
 * methods and never touch lowdb. Every mutating method is followed by `save()`, awaited before
 * the response leaves, so an acknowledged write is on disk.
 */
import { createHash } from 'node:crypto';
import type { Low } from 'lowdb';
import { compareFiles } from '../scenarios/scenario.js';
import type { StoredFile, StoredMailbox, StoredSecret, StoredSession, WorkspaceData } from './types.js';

export type IdPrefix = 'file' | 'sec' | 'sess' | 'mbx';

export class Workspace {
  readonly #db: Low<WorkspaceData>;
  readonly #seed: number;
  #sessions = new Map<string, StoredSession>();

  constructor(db: Low<WorkspaceData>, seed: number) {
    this.#db = db;
    this.#seed = seed;
    this.reindex();
  }

  get data(): WorkspaceData {
    return this.#db.data;
  }

  get principal(): string {
    return this.#db.data.principal;
  }

  /** Rebuilds the indexes after the document was replaced wholesale. */
  reindex(): void {
    this.#sessions = new Map(this.#db.data.sessions.map((s) => [s.id, s]));
  }

  replace(data: WorkspaceData): void {
    this.#db.data = data;
    this.reindex();
  }

  save(): Promise<void> {
    return this.#db.write();
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
    return this.#sessions.get(id);
  }

  addSession(session: StoredSession): void {
    this.#db.data.sessions.push(session);
    this.#sessions.set(session.id, session);
  }

  /** Inserts a file at its place in the listing order (binary search, no re-sort). */
  addFile(session: StoredSession, file: StoredFile): void {
    const files = session.files;
    let lo = 0;
    let hi = files.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareFiles(files[mid], file) <= 0) lo = mid + 1;
      else hi = mid;
    }
    files.splice(lo, 0, file);
  }

  file(session: StoredSession, fileId: string): StoredFile | undefined {
    return session.files.find((f) => f.id === fileId);
  }

  removeFile(session: StoredSession, fileId: string): StoredFile | undefined {
    const i = session.files.findIndex((f) => f.id === fileId);
    return i < 0 ? undefined : session.files.splice(i, 1)[0];
  }

  // mailboxes

  mailboxes(): StoredMailbox[] {
    return this.#db.data.mailboxes;
  }

  mailbox(id: string): StoredMailbox | undefined {
    return this.#db.data.mailboxes.find((m) => m.id === id);
  }

  removeMailbox(id: string): boolean {
    const list = this.#db.data.mailboxes;
    const i = list.findIndex((m) => m.id === id);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  // secrets

  secrets(): StoredSecret[] {
    return this.#db.data.secrets;
  }

  secret(namespace: string, name: string): StoredSecret | undefined {
    return this.#db.data.secrets.find((s) => s.namespace === namespace && s.name === name);
  }

  addSecret(secret: StoredSecret): void {
    this.#db.data.secrets.push(secret);
  }

  removeSecret(id: string): boolean {
    const list = this.#db.data.secrets;
    const i = list.findIndex((s) => s.id === id);
    if (i < 0) return false;
    list.splice(i, 1);
    return true;
  }

  /** Blob names this workspace refers to. */
  blobNames(): string[] {
    const names: string[] = [];
    for (const s of this.#db.data.sessions) for (const f of s.files) if (f.blob) names.push(f.blob);
    return names;
  }
}
