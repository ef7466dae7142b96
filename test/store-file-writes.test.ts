/**
 * A file's record and its bytes are stored together or not at all (issue 32, item 3), driven
 * through the store's own methods — Workspace.storeUpload and deleteFile — with no handler in
 * between: whatever the caller's record step does, no blob is left that no record names.
 */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createStore } from '../src/index.js';
import type { StoredFile } from '../src/model/records.js';
import type { Store } from '../src/store/store.js';
import type { Workspace } from '../src/store/workspace.js';
import { blobFiles, storedWorkspaces, tempFiles } from './data-layout.js';

const PRINCIPAL = 'user:dev@example.com';
let dir: string;
let store: Store;
let ws: Workspace;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-file-writes-'));
  store = await createStore({ dataDir: dir, scenario: 'default' });
  ws = await store.workspace(PRINCIPAL);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An upload's first step, as the body reader takes it: the bytes in a temporary blob. */
const uploaded = async (text: string) => (await store.blobs.writeTemp(Readable.from([Buffer.from(text)]), 1024)).temp;

function recordFor(sessionId: string, blob: string): StoredFile {
  return { id: ws.newId('file'), session_id: sessionId, filename: 'a.txt', mime_type: 'text/plain', size: 5, checksum: 'x', created_at: 0, expires_at: 8.64e15, source: 'user_upload', blob };
}

const uploadedRecords = () => (storedWorkspaces(dir).get(PRINCIPAL)?.sessions ?? []).flatMap((s) => s.files.filter((f) => f.blob));

test('when the record step throws (its session gone meanwhile), storeUpload rejects and leaves no blob and no temporary file', async () => {
  const temp = await uploaded('bytes');
  await expect(
    ws.storeUpload(temp, () => {
      throw new Error('Session not found');
    }),
  ).rejects.toThrow('Session not found');
  expect(blobFiles(dir)).toEqual([]);
  expect(tempFiles(dir)).toEqual([]);
  expect(uploadedRecords()).toEqual([]);
});

test('when the record names a session the workspace does not hold, storeUpload rejects and leaves no blob', async () => {
  const temp = await uploaded('bytes');
  await expect(ws.storeUpload(temp, (blob) => recordFor('sess_gone', blob))).rejects.toThrow(/sess_gone/);
  expect(blobFiles(dir)).toEqual([]);
  expect(uploadedRecords()).toEqual([]);
});

test('when the record can be added, storeUpload resolves with the record durable and its one blob in place', async () => {
  const temp = await uploaded('bytes');
  const file = await ws.storeUpload(temp, (blob) => recordFor('sess_demo', blob));
  expect(blobFiles(dir)).toEqual([file.blob]);
  expect(uploadedRecords().map((f) => [f.id, f.blob])).toEqual([[file.id, file.blob]]);
});

test('deleteFile removes the record durably and then the bytes', async () => {
  const file = await ws.storeUpload(await uploaded('bytes'), (blob) => recordFor('sess_demo', blob));
  const removed = await ws.deleteFile(ws.session('sess_demo')!, file.id);
  expect(removed?.id).toBe(file.id);
  expect(blobFiles(dir)).toEqual([]);
  expect(uploadedRecords()).toEqual([]);
});
