/**
 * Bytes of a seeded file. Scenario files do not carry their content (a 5,000-file scenario would
 * be megabytes of noise); the bytes are derived from the file's id and size instead, so every
 * workspace, every restart and every machine serves the same bytes for the same record.
 */
import { createHash } from 'node:crypto';

export function seededBytes(id: string, size: number): Buffer {
  const line = Buffer.from(`cloud-browser-mock seeded file ${id}\n`, 'utf8');
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += line.length) line.copy(out, i, 0, Math.min(line.length, size - i));
  return out;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The bytes a scenario file record stands for: its literal content (UTF-8 or base64), else derived ones. */
export function scenarioFileBytes(file: { id: string; size: number; content?: string; content_base64?: string }): Buffer {
  if (file.content !== undefined) return Buffer.from(file.content, 'utf8');
  if (file.content_base64 !== undefined) return Buffer.from(file.content_base64, 'base64');
  return seededBytes(file.id, file.size);
}
