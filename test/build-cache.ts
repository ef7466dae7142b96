/**
 * Artefacts several test files need — the packed npm tarball, the Python tools' virtual
 * environment, the built wheel — made once and kept, keyed by a hash of what goes into them (and
 * of the checkout's path), so a whole run builds each once and a single-file run builds only what
 * it uses (and nothing when an earlier run already made it from the same sources). They live
 * under the system's temporary directory (not inside the tree, where jest would crawl their
 * thousands of files), one folder per key; a folder counts once its `done` marker is written. Jest
 * workers and concurrent runs take a lock per key, so two never build the same one at once; a lock
 * whose process is gone is taken over.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './helpers.js';

const CACHE = join(tmpdir(), 'cloud-browser-mock-test-cache');
/** Entries nobody used for this long are removed when a new one is made. */
const UNUSED_FOR_MS = 24 * 3600_000;
/** How long a waiter waits for another process's build of the same key before failing. */
const WAIT_MS = 15 * 60_000;

/** A hash of the named files' paths and bytes (directories walked, `skip` tested on repository-relative paths). */
export function hashFiles(paths: string[], skip: (rel: string) => boolean = () => false, extra: string[] = []): string {
  const hash = createHash('sha256');
  // The checkout too: a fresh clone builds its own (so that its first run pays what a new
  // machine would), while its later runs, and single-file runs, reuse what it built.
  for (const e of [ROOT, ...extra]) hash.update(`extra\0${e}\0`);
  const walk = (abs: string) => {
    const rel = relative(ROOT, abs);
    if (skip(rel)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) walk(join(abs, name));
    } else {
      hash.update(`${rel}\0`);
      hash.update(readFileSync(abs));
      hash.update('\0');
    }
  };
  for (const p of paths) walk(join(ROOT, p));
  return hash.digest('hex').slice(0, 20);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function prune(keep: string): void {
  for (const name of readdirSync(CACHE)) {
    const dir = join(CACHE, name);
    if (dir === keep || name.endsWith('.lock')) continue;
    const marker = join(dir, 'done');
    const used = existsSync(marker) ? statSync(marker).mtimeMs : 0;
    if (Date.now() - used > UNUSED_FOR_MS && !existsSync(`${dir}.lock`)) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The folder of `kind` for `key`, built by `build(folder)` if no finished one is there yet.
 * `build` may be asynchronous; whatever it throws is thrown to every caller that waited for it.
 */
export async function cached(kind: string, key: string, build: (dir: string) => void | Promise<void>): Promise<string> {
  mkdirSync(CACHE, { recursive: true });
  const dir = join(CACHE, `${kind}-${key}`);
  const marker = join(dir, 'done');
  const lock = `${dir}.lock`;
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(marker)) {
      const now = new Date();
      utimesSync(marker, now, now);
      return dir;
    }
    try {
      mkdirSync(lock);
    } catch {
      // Another process is building it; a lock left by one that died is taken over.
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        // Not written yet: the owner has only just taken it.
      }
      if (Number.isInteger(owner) && !alive(owner)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > giveUpAt) throw new Error(`${kind} ${key}: still being built by process ${owner} after ${WAIT_MS / 60_000} minutes (lock ${lock})`);
      else await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      if (existsSync(marker)) continue;
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      await build(dir);
      writeFileSync(marker, new Date().toISOString());
      prune(dir);
      return dir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
