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

export interface WrittenBlob {
  /** Temporary name until committed. */
  temp: string;
  size: number;
  checksum: string;
  /** True when the stream went past the limit and was cut off (the temp file is gone). */
  tooLarge: boolean;
}

export class BlobStore {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Streams bytes into a temporary blob, hashing on the way; stops past `limit` bytes. */
  async writeTemp(stream: Readable, limit: number): Promise<WrittenBlob> {
    const temp = `.tmp-${randomBytes(12).toString('hex')}`;
    const hash = createHash('sha256');
    let size = 0;
    let tooLarge = false;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        size += chunk.length;
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
    return name;
  }

  async discard(name: string): Promise<void> {
    await unlink(join(this.dir, name)).catch(() => undefined);
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
