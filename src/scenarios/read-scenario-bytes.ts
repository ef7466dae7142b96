/**
 * Reading a scenario file's bytes safely: the control plane reads a path an HTTP request named,
 * so only a regular file of bounded size is read (never /dev/zero, a FIFO or a directory), and
 * never in a way that blocks the event loop. Start-up reads the same way (the store opens
 * asynchronously, so it needs no synchronous copy of this).
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export class ScenarioError extends Error {}

/** A scenario file larger than this is refused before it is read (paging.json, 5,000 files, is 2 MB). */
export const MAX_SCENARIO_BYTES = 32 * 1024 * 1024;

/** Only a regular file of bounded size is read: not a device (/dev/zero), a FIFO or a directory. */
function checkReadable(file: string, stats: { isFile(): boolean; isDirectory(): boolean; size: number }, unreadable: Unreadable) {
  if (stats.isDirectory()) throw unreadable.directory();
  if (!stats.isFile()) throw new ScenarioError(`scenario file ${file} is not a regular file`);
  if (stats.size > MAX_SCENARIO_BYTES) throw new ScenarioError(`scenario file ${file} has ${stats.size} bytes; a scenario file may have at most ${MAX_SCENARIO_BYTES} (32 MiB)`);
}

/** The caller words the errors for a path that is missing or a directory (they list the built-in scenarios). */
export interface Unreadable {
  missing(): ScenarioError;
  directory(): ScenarioError;
}

const openError = (file: string, e: unknown, unreadable: Unreadable) =>
  (e as NodeJS.ErrnoException).code === 'ENOENT' ? unreadable.missing() : new ScenarioError(`scenario file ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);

/**
 * The read: asynchronous, never of a device or a FIFO (O_NONBLOCK opens it at once), and bounded
 * by bytes actually read, because files such as /proc/self/environ report size 0 and are regular files.
 */
export async function readScenarioBytes(file: string, unreadable: Unreadable): Promise<Buffer> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw openError(file, e, unreadable);
  }
  try {
    const stats = await handle.stat();
    checkReadable(file, stats, unreadable);
    // Chunks of the size the file says it has (one read and the one that finds its end), between
    // 64 KiB and 1 MiB: not two zero-filled mebibytes for every 64 KB scenario a start reads.
    const chunk = Math.min(Math.max(stats.size + 1, 64 * 1024), 1024 * 1024);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(chunk);
      const { bytesRead } = await handle.read(buffer, 0, chunk, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > MAX_SCENARIO_BYTES) throw new ScenarioError(`scenario file ${file} has more than ${MAX_SCENARIO_BYTES} bytes (32 MiB), the most a scenario file may have`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

