/**
 * Bytes of a seeded file. Scenario files do not carry their content (a 5,000-file scenario would
 * be megabytes of noise); the bytes are derived from the file's id and size instead, so every
 * workspace, every restart and every machine serves the same bytes for the same record. They are
 * produced a chunk at a time, never a whole file in memory: a snapshot may say `size: 1e9`.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

const CHUNK = 1024 * 1024;

const seedLine = (id: string) => Buffer.from(`cloud-browser-mock seeded file ${id}\n`, 'utf8');

/** The bytes from `start` (a multiple of the line length) for `length` bytes: the line repeated. */
function seededChunk(line: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += line.length) line.copy(out, i, 0, Math.min(line.length, length - i));
  return out;
}

/** The seeded bytes in chunks. A chunk is a whole number of lines, so every chunk starts a line. */
function* seededChunks(id: string, size: number): Generator<Buffer> {
  const line = seedLine(id);
  const chunkSize = Math.max(line.length, CHUNK - (CHUNK % line.length));
  let full: Buffer | undefined;
  for (let done = 0; done < size; done += chunkSize) {
    const length = Math.min(chunkSize, size - done);
    if (length === chunkSize) yield (full ??= seededChunk(line, chunkSize));
    else yield seededChunk(line, length);
  }
}

export function seededBytes(id: string, size: number): Buffer {
  return Buffer.concat([...seededChunks(id, size)], size);
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of the bytes a record stands for, hashed a chunk at a time, yielding in between. */
export async function scenarioFileChecksum(file: { id: string; size: number; content?: string }): Promise<string> {
  if (file.content !== undefined) return sha256Hex(file.content);
  const hash = createHash('sha256');
  for (const chunk of seededChunks(file.id, file.size)) {
    hash.update(chunk);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

/** The bytes a scenario file record stands for, as a stream: its literal content, else derived ones. */
export function scenarioFileStream(file: { id: string; size: number; content?: string }): Readable {
  return file.content !== undefined ? Readable.from([Buffer.from(file.content, 'utf8')]) : Readable.from(seededChunks(file.id, file.size));
}

/** The bytes of a record with literal content (scenario files check it against their checksum). */
export function scenarioFileBytes(file: { id: string; size: number; content?: string }): Buffer {
  return file.content !== undefined ? Buffer.from(file.content, 'utf8') : seededBytes(file.id, file.size);
}
