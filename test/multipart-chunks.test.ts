/**
 * Multipart bodies are read by multer (busboy) behind our part-header corrector, which hands file
 * bytes on without copying each chunk, keeping back only the few bytes that might begin a
 * delimiter. However a body is cut into chunks — a delimiter across two chunks, content that
 * looks like the start of one — the parts must come out the same.
 */
import { afterAll, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readMultipartParts } from '../src/http/body.js';
import { BlobStore } from '../src/store/blobs.js';

interface Part {
  name: string;
  file: boolean;
  content: Buffer;
}

const dir = mkdtempSync(join(tmpdir(), 'cbm-chunks-'));
const blobs = new BlobStore(join(dir, 'tmp'), join(dir, 'blobs'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function parse(boundary: string, chunks: Buffer[]) {
  const length = chunks.reduce((n, c) => n + c.length, 0);
  const req = Object.assign(Readable.from(chunks, { objectMode: false }), {
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
  }) as unknown as IncomingMessage;
  const parts = await readMultipartParts(req, `multipart/form-data; boundary=${boundary}`, { blobs, maxUpload: 1 << 30 });
  const out = parts.map((p) => ({
    name: p.name,
    file: p.value.type === 'file',
    content: p.value.type === 'file' ? readFileSync(join(dir, 'tmp', p.value.upload.blob.temp)) : Buffer.from(p.value.value, 'utf8'),
  }));
  for (const p of parts) if (p.value.type === 'file') await blobs.discard(p.value.upload.blob.temp);
  return out;
}

function body(boundary: string, parts: Part[]): Buffer {
  const pieces: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.file ? '; filename="f.bin"' : ''}`;
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`, 'latin1'), p.content, Buffer.from('\r\n', 'latin1'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(pieces);
}

/** Cuts `buf` at the given fractions. */
function cut(buf: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((f) => Math.floor(f * buf.length)))].filter((p) => p > 0 && p < buf.length).sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of points) chunks.push(buf.subarray(from, p)), (from = p);
  chunks.push(buf.subarray(from));
  return chunks;
}

test('however the body is cut into chunks, every part comes out whole and unchanged', async () => {
  const boundary = 'xYz-boundary-42';
  // Content made of delimiter look-alikes: CR, LF, dashes and pieces of the boundary.
  const content = fc
    .array(fc.constantFrom('\r', '\n', '-', '--', '\r\n--', '\r\n--xYz', 'xYz-boundary-4', 'a', 'bb', '\u00e9'), { maxLength: 120 })
    .map((xs) => Buffer.from(xs.join(''), 'utf8'));
  const part = fc.record({ name: fc.constantFrom('file', 'note', 'other'), file: fc.boolean(), content });
  await fc.assert(
    fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 4 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }), async (parts, at) => {
      const whole = body(boundary, parts);
      // A file part's content is bytes; a field's is decoded text (these are valid UTF-8).
      const expected = parts.map((p) => ({ name: p.name, file: p.file, content: p.content }));
      expect(await parse(boundary, cut(whole, at))).toEqual(expected);
    }),
    { numRuns: 300 },
  );
});
