/**
 * Writing a workspace's snapshot (the format: log-format.ts): to a temporary file, then renamed
 * into place, so a crash leaves the old snapshot or the new one, whole. A compaction writes it in
 * slices that yield to waiting requests; a whole document written at once (an import, a view's
 * first write) in one piece.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { tempNameFor } from './data-dir.js';
import { serializeJson, type TextCache } from './json-text.js';
import type { Snapshot } from './log-format.js';
import type { TestHooks } from './test-hooks.js';

/** Serialising a snapshot yields to waiting requests after this long. */
const SLICE_MS = 4;

/** Writes the snapshot to a temporary file, then renames it into place (atomic). */
export async function writeSnapshot(file: string, data: Snapshot, { texts, sliced, hooks }: { texts: TextCache; sliced: boolean; hooks: TestHooks }): Promise<{ bytes: number; pauseMs: number }> {
  const temp = tempNameFor(file);
  let bytes = 0;
  let pauseMs = 0;
  try {
    const fh = await open(temp, 'wx', 0o600);
    try {
      if (!sliced) {
        const text = serializeJson(data, texts);
        await fh.write(text);
        bytes = text.length;
      } else {
        for await (const piece of slices(data, texts)) {
          pauseMs = Math.max(pauseMs, piece.ms);
          await fh.write(piece.bytes);
          bytes += piece.bytes.length;
          hooks.reach('mid-compaction');
        }
      }
    } finally {
      await fh.close();
    }
    await rename(temp, file);
    if (sliced) hooks.reach('after-rename');
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  return { bytes, pauseMs };
}

/**
 * The snapshot's JSON in pieces, each made within about SLICE_MS, yielding to the event loop
 * between them: the records' kept text makes each piece mostly copying.
 */
async function* slices(data: Snapshot, texts: TextCache): AsyncGenerator<{ bytes: Buffer; ms: number }> {
  let began = performance.now();
  let parts: Buffer[] = [];
  const push = (b: Buffer) => parts.push(b);
  const due = () => performance.now() - began > SLICE_MS;
  const take = () => {
    const piece = { bytes: Buffer.concat(parts), ms: performance.now() - began };
    parts = [];
    return piece;
  };
  const yieldNow = () => new Promise<void>((r) => setImmediate(r));
  async function* list(items: readonly unknown[]): AsyncGenerator<{ bytes: Buffer; ms: number }> {
    push(Buffer.from('['));
    for (let i = 0; i < items.length; i++) {
      if (i) push(Buffer.from(','));
      push(serializeJson(items[i], texts));
      if ((i & 255) === 255 && due()) {
        yield take();
        await yieldNow();
        began = performance.now();
      }
    }
    push(Buffer.from(']'));
  }
  push(Buffer.from('{'));
  let first = true;
  for (const key of Object.keys(data) as (keyof Snapshot)[]) {
    const value = data[key];
    if (value === undefined) continue;
    push(Buffer.from(`${first ? '' : ','}${JSON.stringify(key)}:`));
    first = false;
    if (key === 'sessions') {
      // Sessions are few; their files are many: each list is sliced.
      yield* sessionsSliced(data.sessions);
    } else if (key === 'mailboxes' || key === 'secrets') {
      yield* list(value as readonly unknown[]);
    } else {
      push(serializeJson(value, texts));
    }
  }
  push(Buffer.from('}'));
  yield take();

  async function* sessionsSliced(sessions: Snapshot['sessions']): AsyncGenerator<{ bytes: Buffer; ms: number }> {
    push(Buffer.from('['));
    for (let i = 0; i < sessions.length; i++) {
      const session = sessions[i] as unknown as Record<string, unknown>;
      push(Buffer.from(i ? ',{' : '{'));
      let firstKey = true;
      for (const k of Object.keys(session)) {
        if (session[k] === undefined) continue;
        push(Buffer.from(`${firstKey ? '' : ','}${JSON.stringify(k)}:`));
        firstKey = false;
        if (k === 'files') yield* list(session[k] as readonly unknown[]);
        else push(serializeJson(session[k], texts));
      }
      push(Buffer.from('}'));
    }
    push(Buffer.from(']'));
  }
}
