/**
 * A young-generation collection on demand, for uploads (see store/blobs.ts). Getting one sets
 * V8's `--expose-gc` for the whole process, so it is the caller's choice — the CLI's, which owns
 * its process — never something importing the package does.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A function that runs a minor (scavenge) collection. V8 offers no other handle on it at run
 * time; the gc function of a fresh context made after `--expose-gc` is set is the documented way
 * to reach it. Where it cannot be had, the function does nothing.
 */
export function youngGarbageCollector(): () => void {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as ((options: { type: 'minor' }) => void) | undefined;
    if (gc) return () => gc({ type: 'minor' });
  } catch {
    // no gc to be had: uploads still stream, only the peak is higher
  }
  return () => undefined;
}
