/**
 * Workspace snapshots with file bytes, a chunk at a time. A snapshot holding a 100 MiB upload is
 * 140 MB of JSON: built as one string (base64, JSON.stringify, UTF-8) it blocked the event loop
 * for seconds and every other request with it, and decoded in one piece it did again. Here the
 * export streams each upload's base64 from its blob; the import decodes it in slices
 * (primitives/base64-stream.ts) into the blob store's (hashing) writer.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Reply } from '../http/reply.js';
import type { StoredFile } from '../model/records.js';
import type { Workspace } from '../store/workspace.js';
import { exportSnapshot } from './snapshots.js';

/**
 * `ws`'s full snapshot as a streamed JSON reply; uploads' bytes are streamed in as base64. The
 * snapshot is taken now; the stream reads each blob only as the client takes the bytes (the
 * reply stage pipes it, waiting on drain), so /health keeps answering meanwhile.
 */
export async function snapshotReply(ws: Workspace): Promise<Reply> {
  // Each upload's content_base64 is first a unique placeholder, replaced by its bytes on the way out.
  const token = randomUUID();
  const uploadsInOrder: StoredFile[] = [];
  const snapshot = await exportSnapshot(ws);
  snapshot.sessions.forEach((s, i) =>
    s.files.forEach((f, j) => {
      const file = ws.data.sessions[i].files[j];
      if (file.blob) f.content_base64 = `${token}-${uploadsInOrder.push(file) - 1}`;
    }),
  );
  const parts = JSON.stringify(snapshot).split(new RegExp(`"${token}-\\d+"`));
  return { status: 200, headers: { 'Content-Type': 'application/json' }, stream: Readable.from(snapshotChunks(parts, uploadsInOrder, ws), { objectMode: false }) };
}

async function* snapshotChunks(parts: string[], uploadsInOrder: StoredFile[], ws: Workspace): AsyncGenerator<string> {
  for (let i = 0; i < parts.length; i++) {
    yield parts[i];
    if (i < uploadsInOrder.length) yield* base64Chunks(ws.openFile(uploadsInOrder[i]));
  }
}

/** A JSON string of the stream's bytes in base64; 3-byte groups never straddle two chunks. */
async function* base64Chunks(bytes: Readable): AsyncGenerator<string> {
  yield '"';
  let carry: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of bytes as AsyncIterable<Buffer>) {
      const all = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = all.length - (all.length % 3);
      if (whole) yield all.subarray(0, whole).toString('base64');
      carry = all.subarray(whole);
    }
  } finally {
    // A client gone mid-export ends this generator early: close the blob's file with it.
    bytes.destroy();
  }
  yield `${carry.toString('base64')}"`;
}
