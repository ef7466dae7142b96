/**
 * The data directory's layout, and the rules that keep the mock from touching what it does not
 * own. A data directory holds:
 *   meta.json        the marker: format, scenario, seed, token-signing key, and which state
 *                    directory is current (a reset of everything writes a new one, then
 *                    switches meta.json to it in one rename: the commit point)
 *   lock             who runs on it (data-dir-lock.ts)
 *   tmp/             uploads on their way in
 *   state-<hex>/workspaces/<name>.json (snapshot) and <name>.<gen>.log (its change log: log-format.ts)
 *   state-<hex>/blobs/<name>/<blob>
 * Nothing is swept, and --reset-data removes nothing, unless meta.json is the mock's own; a
 * directory without it that holds any of these names (or a symlink among them) is refused.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from './blobs.js';
import { DataDirLock } from './data-dir-lock.js';
import { readDataFile, StartupError } from './store-errors.js';
import { DATA_FORMAT } from '../model/records.js';
import { sweepDataDir } from './recovery.js';

export interface Meta {
  format: number;
  scenario: string;
  seed: number;
  signing_key: string;
  state: string;
  /**
   * When the scenario was loaded (epoch ms; its timestamps are shifted to it), so a workspace never
   * written — a view of the scenario, with no file — reads the same after a restart.
   */
  loaded_at?: number;
}

const OWN_NAMES = ['meta.json', 'tmp', 'workspaces', 'blobs'];
const isOwnName = (n: string) => OWN_NAMES.includes(n) || /^state-/.test(n) || /^\.meta\.json\./.test(n);

export class DataDir {
  constructor(readonly dir: string) {}
  get metaFile() {
    return join(this.dir, 'meta.json');
  }
  get lockFile() {
    return join(this.dir, 'lock');
  }
  get tmpDir() {
    return join(this.dir, 'tmp');
  }
  stateDir(state: string) {
    return join(this.dir, state);
  }

  /**
   * Refuses a directory holding, where the mock's files go, files it did not make; returns the
   * meta file when there is one of ours (of any format), else null.
   */
  inspect(): Record<string, unknown> | null {
    const names = readdirSync(this.dir).filter(isOwnName);
    for (const n of names) {
      if (lstatSync(join(this.dir, n)).isSymbolicLink()) {
        throw new StartupError(`data directory ${this.dir} holds a symlink ${n} where cloud-browser-mock keeps its own files; remove it or choose another --data-dir (--reset-data does not follow or remove it)`);
      }
    }
    if (!names.includes('meta.json')) {
      const foreign = names.find((n) => !/^\.meta\.json\./.test(n));
      if (foreign) {
        throw new StartupError(`data directory ${this.dir} holds ${foreign} but no cloud-browser-mock meta.json, so it is not the mock's; choose an empty directory with --data-dir (--reset-data does not remove files the mock did not create)`);
      }
      return null;
    }
    const meta: any = readDataFile(this.metaFile, 'fix or remove it, or choose another --data-dir', (m) => new StartupError(m));
    if (!meta || typeof meta !== 'object' || typeof meta.scenario !== 'string' || typeof meta.seed !== 'number' || typeof meta.signing_key !== 'string') {
      throw new StartupError(`data file ${this.metaFile} is not a cloud-browser-mock meta file; remove it or choose another --data-dir`);
    }
    return meta;
  }

  /** The current meta, checked to be of this version's format. */
  checkFormat(meta: Record<string, unknown>): Meta {
    if (meta.format !== DATA_FORMAT || typeof meta.state !== 'string' || !/^state-[0-9a-f]+$/.test(meta.state)) {
      throw new StartupError(`data file ${this.metaFile} has format ${JSON.stringify(meta.format)}, this version reads format ${DATA_FORMAT}; start with --reset-data to discard it`);
    }
    return meta as unknown as Meta;
  }

  /** Removes everything of the mock's (only called once meta.json proved the directory ours). */
  discard(): void {
    for (const n of readdirSync(this.dir).filter(isOwnName)) {
      if (n !== 'meta.json') rmSync(join(this.dir, n), { recursive: true, force: true });
    }
    rmSync(this.metaFile, { force: true });
  }

  /** Writes meta.json atomically: the commit point of a reset of everything. */
  writeMeta(meta: Meta): void {
    writeFileAtomically(this.metaFile, JSON.stringify(meta, null, 2));
  }

  static newState(): string {
    return `state-${randomBytes(8).toString('hex')}`;
  }
}

/**
 * A reset of everything: a new, empty state directory, then meta.json pointing at it (the commit
 * point); the caller then removes the old one — a crash at any instant leaves the old state or
 * the new, whole. `next` is the scenario switched to, if any. Returns the meta now in force.
 */
export function switchState(dir: DataDir, current: Meta, blobs: BlobStore, next: Pick<Meta, 'scenario' | 'seed' | 'loaded_at'> | null): Meta {
  const old = dir.stateDir(current.state);
  const meta: Meta = { ...current, state: DataDir.newState(), ...(next ?? {}) };
  mkdirSync(join(dir.stateDir(meta.state), 'workspaces'), { recursive: true });
  blobs.setRoot(join(dir.stateDir(meta.state), 'blobs'));
  try {
    dir.writeMeta(meta);
  } catch (e) {
    blobs.setRoot(join(old, 'blobs'));
    rmSync(dir.stateDir(meta.state), { recursive: true, force: true });
    throw e;
  }
  return meta;
}

/**
 * Opens a data directory for the store: the lock first (another process must not see, sweep or
 * reset anything of ours, nor we of its), then the marker check, --reset-data, the meta file, and
 * the start-up sweep (recovery.ts). No workspace is read here.
 */
export async function openDataDir(path: string, opts: { scenario: string; seed: number; loadedAt?: number; resetData?: boolean; warn?: (line: string) => void }): Promise<{ dir: DataDir; meta: Meta; lock: DataDirLock }> {
  const dir = new DataDir(path);
  mkdirSync(dir.dir, { recursive: true });
  const lock = await DataDirLock.acquire(dir.dir, dir.lockFile, opts.warn);
  try {
    let found = dir.inspect();
    if (found && opts.resetData) {
      dir.discard();
      found = null;
    }
    let meta: Meta;
    if (found) {
      meta = dir.checkFormat(found);
      if (meta.scenario !== opts.scenario || meta.seed !== opts.seed) {
        throw new StartupError(
          `data directory ${dir.dir} holds scenario ${JSON.stringify(meta.scenario)} with seed ${meta.seed}, not ${JSON.stringify(opts.scenario)} with seed ${opts.seed}; start with --reset-data to discard it, or use another --data-dir`,
        );
      }
    } else {
      // The marker is written before any other file, so a crash never leaves files unmarked.
      meta = { format: DATA_FORMAT, scenario: opts.scenario, seed: opts.seed, signing_key: randomBytes(32).toString('hex'), state: DataDir.newState(), loaded_at: opts.loadedAt };
      dir.writeMeta(meta);
    }
    sweepDataDir(dir.dir, dir.tmpDir, meta.state);
    return { dir, meta, lock };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** A temporary name no other write uses, created exclusively (never through a planted link). */
export function tempNameFor(file: string): string {
  const slash = file.lastIndexOf('/');
  return `${file.slice(0, slash + 1)}.${file.slice(slash + 1)}.${randomBytes(6).toString('hex')}.tmp`;
}

function writeFileAtomically(file: string, text: string): void {
  const temp = tempNameFor(file);
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (e) {
    if (existsSync(temp)) unlinkSync(temp);
    throw e;
  }
}
