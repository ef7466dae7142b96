/**
 * A lowdb adapter for one JSON file that (1) replaces the file atomically (write a temporary
 * file, then rename), so a crash never leaves it half-written, and (2) coalesces: while one
 * write is on its way to disk, later writes wait and are folded into one rewrite made from the
 * newest data. Every promise resolves only once data at least as new as its own is on disk.
 * Unlike lowdb's own DataFile, it serialises when it writes, not when asked, so a burst of N
 * writes costs two serialisations, not N; and the serialiser is the caller's (the store's reuses
 * the kept text of unchanged records).
 *
 * Each rewrite has a temporary name of its own, created exclusively with mode 0600 (workspace
 * files hold secrets): two objects writing one path never rename each other's file, and a
 * planted symlink is never followed. A failed rewrite fails the waiting one too — the caller
 * rolls its data back to what is on disk, so what was not acknowledged is never written later.
 * `close()` (a reset detaching the workspace) finishes the writes already asked for, after which
 * nothing is written again.
 */
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { tempNameFor } from './data-dir.js';

export class CoalescingJsonFile<T> implements Adapter<T> {
  readonly file: string;
  #writing: Promise<void> | null = null;
  #pending: { data: T; promise: Promise<void> } | null = null;
  #closed = false;

  readonly #serialize: (data: T) => string | Buffer;

  constructor(file: string, serialize: (data: T) => string | Buffer = JSON.stringify) {
    this.file = file;
    this.#serialize = serialize;
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return JSON.parse(text) as T;
  }

  write(data: T): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (!this.#writing) return this.#start(data);
    if (this.#pending) {
      this.#pending.data = data;
      return this.#pending.promise;
    }
    const pending = { data, promise: Promise.resolve() };
    // A failed write rejects the waiting one too: the caller rolled back the data it would write.
    pending.promise = this.#writing.then(() => {
      this.#pending = null;
      return this.#start(pending.data);
    });
    pending.promise.catch(() => {
      if (this.#pending === pending) this.#pending = null;
    });
    this.#pending = pending;
    return pending.promise;
  }

  #start(data: T): Promise<void> {
    const p = this.#writeNow(this.#serialize(data)).finally(() => {
      if (this.#writing === p) this.#writing = null;
    });
    this.#writing = p;
    return p;
  }

  async #writeNow(text: string | Buffer): Promise<void> {
    const temp = tempNameFor(this.file);
    try {
      // writeFile (open, write, close in one call) then rename: measured ~25% more rewrites per
      // second on this ext4 than the same steps through a FileHandle.
      await writeFile(temp, text, { flag: 'wx', mode: 0o600 });
      await rename(temp, this.file);
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
  }

  /**
   * No more writes: later calls write nothing. The write under way and the one waiting (asked
   * for before, perhaps already acknowledged to a client) are finished first, so that should
   * the reset that closes this file fail, nothing acknowledged is lost.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await (this.#pending?.promise ?? this.#writing)?.catch(() => undefined);
  }
}
