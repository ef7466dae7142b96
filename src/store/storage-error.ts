/**
 * A write the disk refused (full, or over quota) is the client's to know about at once, as
 * WebDAV's 507 Insufficient Storage, with a FastAPI-style `{"detail": …}` body; anything else
 * stays the unexpected fault it is.
 */
import { HttpError } from '../errors/http-error.js';

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
