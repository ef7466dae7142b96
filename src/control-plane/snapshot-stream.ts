/**
 * Workspace snapshots with file bytes, a chunk at a time. A snapshot holding a 100 MiB upload is
 * 140 MB of JSON: built as one string (base64, JSON.stringify, UTF-8) it blocked the event loop
 * for seconds and every other request with it, and decoded in one piece it did again. Here the
 * export streams each upload's base64 from its blob; the import decodes it in slices
 * (primitives/base64-stream.ts) into the blob store's (hashing) writer.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { BlobStore } from '../store/blobs.js';
import type { Workspace } from '../store/workspace.js';
import { exportSnapshot } from './snapshots.js';

async function write(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  if (!res.write(chunk)) await once(res, 'drain');
}

/** Writes `ws`'s full snapshot as the JSON answer; uploads' bytes are streamed in as base64. */
export async function sendSnapshot(res: ServerResponse, ws: Workspace, blobs: BlobStore): Promise<void> {
  // Each upload's content_base64 is first a unique placeholder, replaced by its bytes on the way out.
  const token = randomUUID();
  const blobsInOrder: string[] = [];
  const snapshot = await exportSnapshot(ws);
  snapshot.sessions.forEach((s, i) =>
    s.files.forEach((f, j) => {
      const blob = ws.data.sessions[i].files[j].blob;
      if (blob) f.content_base64 = `${token}-${blobsInOrder.push(blob) - 1}`;
    }),
  );
  const parts = JSON.stringify(snapshot).split(new RegExp(`"${token}-\\d+"`));
  res.writeHead(200, { 'Content-Type': 'application/json' });
  try {
    for (let i = 0; i < parts.length; i++) {
      await write(res, parts[i]);
      if (i < blobsInOrder.length) await writeBase64(res, blobs.read(blobsInOrder[i]));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/** A JSON string of the stream's bytes in base64; 3-byte groups never straddle two chunks. */
async function writeBase64(res: ServerResponse, bytes: Readable): Promise<void> {
  await write(res, '"');
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of bytes as AsyncIterable<Buffer>) {
    const all = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const whole = all.length - (all.length % 3);
    if (whole) await write(res, all.subarray(0, whole).toString('base64'));
    carry = all.subarray(whole);
  }
  await write(res, `${carry.toString('base64')}"`);
}
