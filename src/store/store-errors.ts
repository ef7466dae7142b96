/**
 * The store's errors: a problem that stops start-up, a full disk (507), and one of the mock's
 * own data files that is not JSON.
 */
import { readFileSync } from 'node:fs';
import { HttpError } from '../errors/http-error.js';

/** A problem that stops start-up; its message is one line for the user. */
export class StartupError extends Error {}

/**
 * A write the disk refused (full, or over quota) is the client's to know about at once, as
 * WebDAV's 507 Insufficient Storage, with a FastAPI-style `{"detail": …}` body; anything else
 * stays the unexpected fault it is.
 */
export const STORAGE_FULL_DETAIL = 'Insufficient storage: the mock could not write to its data directory (disk full); nothing was stored';

function isStorageFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The 507 for a full disk; other errors unchanged. */
export function asStorageError(e: unknown): unknown {
  return isStorageFull(e) ? new HttpError(507, STORAGE_FULL_DETAIL) : e;
}

/** For a removal: a file already gone is what was wanted. */
export const ignoreMissing = (e: NodeJS.ErrnoException): Promise<never> | undefined => (e.code === 'ENOENT' ? undefined : Promise.reject(e));

/**
 * Reads one of the mock's own JSON data files (meta.json, a workspace file), or fails with one
 * line that names the file and says why it is not JSON — the caller's error type decides whether
 * that stops start-up (meta.json) or answers that principal's requests 500 (a workspace file).
 */
export function readDataFile(file: string, advice: string, fail: (message: string) => Error, bytes?: Buffer): unknown {
  try {
    return JSON.parse((bytes ?? readFileSync(file)).toString('utf8'));
  } catch (e) {
    throw fail(`data file ${file} is not valid JSON (${(e as Error).message.split('\n')[0]}); ${advice}`);
  }
}
