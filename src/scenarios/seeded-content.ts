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

/** `length` bytes of the line repeated from its start (the last copy cut short), filled natively. */
function seededChunk(line: Buffer, length: number): Buffer {
  return Buffer.alloc(length, line);
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

type FileRecord = { id: string; size: number; content?: string; content_base64?: string };

/** A record's literal bytes (UTF-8 `content` or `content_base64`), or undefined when they are derived. */
function literalBytes(file: FileRecord): Buffer | undefined {
  if (file.content !== undefined) return Buffer.from(file.content, 'utf8');
  if (file.content_base64 !== undefined) return Buffer.from(file.content_base64, 'base64');
  return undefined;
}

/** The SHA-256 of the bytes a record stands for, hashed a chunk at a time, yielding in between. */
export async function scenarioFileChecksum(file: FileRecord): Promise<string> {
  const literal = literalBytes(file);
  if (literal) return sha256Hex(literal);
  const hash = createHash('sha256');
  for (const chunk of seededChunks(file.id, file.size)) {
    hash.update(chunk);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return hash.digest('hex');
}

/** The bytes a scenario file record stands for, as a stream: its literal content, else derived ones. */
export function scenarioFileStream(file: FileRecord): Readable {
  const literal = literalBytes(file);
  return Readable.from(literal ? [literal] : seededChunks(file.id, file.size));
}

/** The bytes a scenario file record stands for: its literal content (UTF-8 or base64), else derived ones. */
export function scenarioFileBytes(file: FileRecord): Buffer {
  return literalBytes(file) ?? seededBytes(file.id, file.size);
}
