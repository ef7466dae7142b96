/**
 * Start-up checks of what the command line names on disk, before the server starts: each problem
 * is one line naming the flag and the path and saying what to do, instead of whatever Node's
 * fs error (or a store deep inside) would have said.
 */
import { accessSync, constants, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './cli-args.js';

/** The path's stat, or undefined when there is nothing there (or a file stands where a parent should). */
function exists(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/**
 * Makes sure the data directory exists and this user can write it, creating missing directories
 * (returned, so a start-up that fails later can remove them) one level at a time: Node 20's `mkdirSync(…, { recursive: true })` loops forever on paths such
 * as /proc/nope, where the kernel answers ENOENT for a parent that exists.
 */
export function prepareDataDir(dir: string, from: string, cwd = process.cwd()): string[] {
  const target = resolve(cwd, dir);
  const named = `${from} ${dir}`;
  const missing: string[] = [];
  let existing = target;
  let stat = exists(existing);
  while (!stat) {
    missing.unshift(existing);
    existing = dirname(existing);
    stat = exists(existing);
  }
  if (!stat.isDirectory()) {
    const what = existing === target ? 'is a file, not a directory' : `cannot be created: ${existing} is a file`;
    throw new UsageError(`${named} ${what}; name a directory (it is created if missing), or use --in-memory`);
  }
  for (const [i, path] of missing.entries()) {
    try {
      mkdirSync(path);
    } catch (e) {
      removeCreated(missing.slice(0, i));
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`${named} cannot be created (${code} creating ${path}); name a directory this user (uid ${uid()}) can write, or use --in-memory`);
    }
  }
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch (e) {
    removeCreated(missing);
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      `${named} is not writable by this user (uid ${uid()}, ${code}); make it writable, name another directory, or use --in-memory (in Docker: run with --user matching the directory's owner)`,
    );
  }
  return missing;
}

/** Removes the directories prepareDataDir created when start-up failed after all (only if empty). */
export function removeCreated(created: string[]): void {
  for (const path of [...created].reverse()) {
    try {
      rmdirSync(path);
    } catch {
      return; // something was written there after all: keep it
    }
  }
}

const uid = () => process.getuid?.() ?? '?';
