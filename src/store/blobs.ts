/**
 * Uploaded bytes live in files beside the JSON state, never inside it. An upload streams into a
 * temporary file while it is hashed, and is renamed into place only once complete, so a crash
 * mid-upload leaves no blob that a record points at.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A young-generation collection, run every YOUNG_GC_EVERY bytes of an upload. Each 64 KiB chunk
 * the socket reads is a new ArrayBuffer that dies as soon as it is on disk, but V8 frees it
 * only at the next scavenge, and with the young generation grown to its usual 16 MiB that came
 * every ~32 MiB of upload: a 100 MiB upload raised peak RSS by 35 MiB (benchmark, this machine).
 * A scavenge every 8 MiB (well under a millisecond each) keeps it near 12 MiB. V8 offers no
 * other handle on it at run time; the gc function of a fresh context is the documented way to
 * reach it, and where it cannot be had this does nothing.
 */
const YOUNG_GC_EVERY = 8 * 1024 * 1024;
const collectYoungGarbage: () => void = (() => {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as ((options: { type: 'minor' }) => void) | undefined;
    if (gc) return () => gc({ type: 'minor' });
  } catch {
    // no gc to be had: uploads still stream, only the peak is higher
  }
  return () => undefined;
})();

export interface WrittenBlob {
  /** Temporary name until committed. */
  temp: string;
  size: number;
  checksum: string;
  /** True when the stream went past the limit and was cut off (the temp file is gone). */
  tooLarge: boolean;
}

export class BlobStore {
  /** Temporary blobs neither committed nor discarded yet: uploads under way. */
  readonly #temps = new Set<string>();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Streams bytes into a temporary blob, hashing on the way; stops past `limit` bytes. */
  async writeTemp(stream: Readable, limit: number): Promise<WrittenBlob> {
    const temp = `.tmp-${randomBytes(12).toString('hex')}`;
    this.#temps.add(temp);
    const hash = createHash('sha256');
    let size = 0;
    let sinceGc = 0;
    let tooLarge = false;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
        sinceGc += chunk.length;
        if (sinceGc >= YOUNG_GC_EVERY) {
          sinceGc = 0;
          collectYoungGarbage();
        }
        if (size > limit) {
          tooLarge = true;
          // Keep draining the source so the request can finish, but write nothing more.
          return cb();
        }
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(stream, meter, createWriteStream(join(this.dir, temp)));
    } catch (e) {
      await this.discard(temp);
      throw e;
    }
    if (tooLarge) await this.discard(temp);
    return { temp, size, checksum: hash.digest('hex'), tooLarge };
  }

  /** Moves a temporary blob into place under a permanent name. */
  async commit(temp: string): Promise<string> {
    const name = randomBytes(16).toString('hex');
    await rename(join(this.dir, temp), join(this.dir, name));
    this.#temps.delete(temp);
    return name;
  }

  async discard(name: string): Promise<void> {
    this.#temps.delete(name);
    await unlink(join(this.dir, name)).catch(() => undefined);
  }

  /**
   * Removes the temporary blobs of uploads still under way: at shutdown, once every connection
   * is closed, none of them can complete any more.
   */
  async discardTemps(): Promise<void> {
    for (const temp of [...this.#temps]) await this.discard(temp);
  }

  readAll(name: string): Promise<Buffer> {
    return readFile(join(this.dir, name));
  }

  read(name: string): Readable {
    return createReadStream(join(this.dir, name));
  }

  /** Removes temporary files and blobs that no record names (left by a crash). */
  sweep(referenced: Set<string>): number {
    let removed = 0;
    for (const f of readdirSync(this.dir)) {
      if (!referenced.has(f)) {
        rmSync(join(this.dir, f), { force: true });
        removed++;
      }
    }
    return removed;
  }

  destroy(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
