/**
 * Uploaded bytes live in files beside the JSON state, never inside it. An upload streams into a
 * temporary file (in `tmp/`, created exclusively, mode 0600) while it is hashed, and is renamed
 * into its workspace's folder only once complete, so a crash mid-upload leaves no blob that a
 * record points at. A blob's name is `<workspace folder>/<random hex>`, so a workspace's blobs
 * can be checked and swept when it is loaded (recovery.ts), without loading any other workspace.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { asStorageError } from './store-errors.js';

/**
 * A young-generation collection (BlobStoreOptions.collectYoungGarbage), run every YOUNG_GC_EVERY
 * bytes of an upload. Each 64 KiB chunk the socket reads is a new ArrayBuffer that dies as soon
 * as it is on disk, but V8 frees it only at the next scavenge, and with the young generation
 * grown to its usual 16 MiB that came every ~32 MiB of upload: a 100 MiB upload raised peak RSS
 * by 35 MiB (benchmark, this machine). A scavenge every 8 MiB (well under a millisecond each)
 * keeps it near 12 MiB.
 */
const YOUNG_GC_EVERY = 8 * 1024 * 1024;

export interface BlobStoreOptions {
  /**
   * Runs a scavenge (primitives/young-gc.ts). Getting one changes the process's V8 flags, so
   * only the CLI asks for it (ServerOptions.gcDuringUploads); without it uploads peak higher.
   */
  collectYoungGarbage?: () => void;
}

export interface WrittenBlob {
  /** Temporary name until committed. */
  temp: string;
  size: number;
  checksum: string;
  /** True when the stream went past the limit and was cut off (the temp file is gone). */
  tooLarge: boolean;
}

const TEMP = '.tmp-';

export class BlobStore {
  /** Temporary blobs neither committed nor discarded yet: uploads under way. */
  readonly #temps = new Set<string>();
  #root: string;
  readonly #collectYoungGarbage: () => void;
  constructor(
    readonly tmpDir: string,
    root: string,
    options: BlobStoreOptions = {},
  ) {
    this.#collectYoungGarbage = options.collectYoungGarbage ?? (() => undefined);
    mkdirSync(tmpDir, { recursive: true });
    mkdirSync(root, { recursive: true });
    this.#root = root;
  }

  /** Where committed blobs live; a reset of everything moves it to the new state directory. */
  get root(): string {
    return this.#root;
  }

  setRoot(root: string): void {
    mkdirSync(root, { recursive: true });
    this.#root = root;
  }

  #path(name: string): string {
    return name.startsWith(TEMP) ? join(this.tmpDir, name) : join(this.#root, name);
  }

  /** Streams bytes into a temporary blob, hashing on the way; stops past `limit` bytes. */
  async writeTemp(stream: Readable, limit: number): Promise<WrittenBlob> {
    const temp = `${TEMP}${randomBytes(12).toString('hex')}`;
    this.#temps.add(temp);
    const hash = createHash('sha256');
    let size = 0;
    let sinceGc = 0;
    let tooLarge = false;
    const collectYoungGarbage = this.#collectYoungGarbage;
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
      await pipeline(stream, meter, createWriteStream(join(this.tmpDir, temp), { flags: 'wx', mode: 0o600 }));
    } catch (e) {
      await this.discard(temp);
      throw asStorageError(e);
    }
    if (tooLarge) await this.discard(temp);
    return { temp, size, checksum: hash.digest('hex'), tooLarge };
  }

  /** Moves a temporary blob into a workspace's folder under a permanent name. */
  async commit(temp: string, folder: string): Promise<string> {
    const name = `${folder}/${randomBytes(16).toString('hex')}`;
    await mkdir(join(this.#root, folder), { recursive: true });
    await rename(join(this.tmpDir, temp), join(this.#root, name));
    this.#temps.delete(temp);
    return name;
  }

  async discard(name: string): Promise<void> {
    this.#temps.delete(name);
    await unlink(this.#path(name)).catch(() => undefined);
  }

  /**
   * Removes the temporary blobs of uploads still under way: at shutdown, once every connection
   * is closed, none of them can complete any more.
   */
  async discardTemps(): Promise<void> {
    for (const temp of [...this.#temps]) await this.discard(temp);
  }

  readAll(name: string): Promise<Buffer> {
    return readFile(this.#path(name));
  }

  read(name: string): Readable {
    return createReadStream(this.#path(name));
  }

  /** Removes a workspace's folder (its workspace is gone: reset). */
  removeFolder(folder: string): void {
    rmSync(join(this.#root, folder), { recursive: true, force: true });
  }

  destroy(): void {
    rmSync(this.tmpDir, { recursive: true, force: true });
    rmSync(this.#root, { recursive: true, force: true });
  }
}
