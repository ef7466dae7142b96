/**
 * A file's record and its bytes change together or not at all — the one place that orders the
 * steps (the Workspace methods storeUpload, deleteFile and importDocument call these):
 *
 * - an upload: its bytes are committed into the workspace's blob folder, then its record is
 *   made (after that wait: its session may have gone meanwhile) and made durable; on any failure
 *   after the commit its bytes go too, so no blob is left that no record names;
 * - a delete: the record goes first and is made durable, then the bytes — a crash between the two
 *   leaves a blob no record names, which the workspace's next load collects (recovery.ts), never
 *   a record without its bytes;
 * - an import: the bytes it brings are stored first, then, with no wait until the document is
 *   replaced, each file keeps the bytes it brings, else the ones stored for its session and id now
 *   (so a file deleted meanwhile is not revived pointing at bytes the delete removed), else bytes
 *   derived from its id and size; the replaced records' bytes go once the new document is durable.
 */
import type { Readable } from 'node:stream';
import { compareFiles, type StoredFile, type StoredMailbox, type StoredSecret, type StoredSession, type WorkspaceData } from '../model/records.js';
import { scenarioFileChecksum } from '../scenarios/seeded-content.js';
import type { BlobStore } from './blobs.js';

/** What these steps need of a workspace (workspace.ts). */
export interface FileOwner {
  readonly blobs: BlobStore;
  readonly data: WorkspaceData;
  session(id: string): StoredSession | undefined;
  addFile(session: StoredSession, file: StoredFile): void;
  removeFile(session: StoredSession, fileId: string): StoredFile | undefined;
  replace(data: WorkspaceData): void;
  commitBlob(temp: string): Promise<string>;
  references(blob: string): boolean;
  blobNames(): string[];
  save(): Promise<void>;
}

/** The record of an uploaded file, given the name its committed bytes have; may throw. */
export type RecordOf = (blob: string) => StoredFile;

export async function storeUpload(ws: FileOwner, temp: string, recordOf: RecordOf): Promise<StoredFile> {
  const blob = await ws.commitBlob(temp);
  let file: StoredFile;
  try {
    file = recordOf(blob);
    const session = ws.session(file.session_id);
    if (!session) throw new Error(`session ${file.session_id} is not in this workspace`);
    ws.addFile(session, file);
  } catch (e) {
    await ws.blobs.discard(blob);
    throw e;
  }
  try {
    await ws.save();
  } catch (e) {
    // Not stored (the disk refused it, and the record was rolled back): neither are its bytes.
    if (!ws.references(blob)) await ws.blobs.discard(blob);
    throw e;
  }
  return file;
}

export async function deleteFile(ws: FileOwner, session: StoredSession, fileId: string): Promise<StoredFile | undefined> {
  const removed = ws.removeFile(session, fileId);
  if (!removed) return undefined;
  await ws.save();
  if (removed.blob) await ws.blobs.discard(removed.blob);
  return removed;
}

/** A file of an imported document: its record (no `blob`), and the bytes it brings, if any. */
export interface ImportedFile {
  record: Omit<StoredFile, 'blob'>;
  content?: () => Readable;
}

/** A whole document to import: its sessions' files as ImportedFile, its other records as stored. */
export interface ImportedDocument {
  sessions: Array<{ id: string; actions: StoredSession['actions']; files: ImportedFile[] }>;
  mailboxes: StoredMailbox[];
  secrets: StoredSecret[];
}

interface Written {
  blob: string;
  size: number;
  checksum: string;
}

export async function importDocument(ws: FileOwner, doc: ImportedDocument): Promise<void> {
  // Everything that waits comes first: the bytes brought, and the checksums of derived bytes.
  const written = new Map<ImportedFile, Written>();
  try {
    for (const s of doc.sessions) {
      for (const f of s.files) {
        if (!f.content) continue;
        const temp = await ws.blobs.writeTemp(f.content(), Infinity);
        written.set(f, { blob: await ws.commitBlob(temp.temp), size: temp.size, checksum: temp.checksum });
      }
    }
  } catch (e) {
    for (const w of written.values()) await ws.blobs.discard(w.blob);
    throw e;
  }
  const derived = new Map<ImportedFile, string>();
  let stored: Map<string, string>;
  for (;;) {
    stored = new Map<string, string>();
    for (const s of ws.data.sessions) for (const f of s.files) if (f.blob) stored.set(`${s.id}/${f.id}`, f.blob);
    const missing = doc.sessions.flatMap((s) => s.files.filter((f) => !written.has(f) && !derived.has(f) && !stored.has(`${s.id}/${f.record.id}`)));
    if (!missing.length) break;
    // (Computing them waits: the records may change meanwhile, so look again afterwards.)
    for (const f of missing) derived.set(f, await scenarioFileChecksum({ id: f.record.id, size: f.record.size }));
  }
  // From here to the replace, nothing waits.
  const sessions: StoredSession[] = doc.sessions.map((s) => ({
    id: s.id,
    actions: s.actions,
    files: s.files
      .map((f): StoredFile => {
        const w = written.get(f);
        if (w) return { ...f.record, blob: w.blob, size: w.size, checksum: w.checksum };
        const blob = stored.get(`${s.id}/${f.record.id}`);
        return blob ? { ...f.record, blob } : { ...f.record, checksum: derived.get(f)! };
      })
      .sort(compareFiles),
  }));
  ws.replace({ ...ws.data, sessions, mailboxes: doc.mailboxes, secrets: doc.secrets });
  try {
    await ws.save();
  } catch (e) {
    // Rolled back to what the disk holds: the new bytes are nobody's.
    for (const w of written.values()) if (!ws.references(w.blob)) await ws.blobs.discard(w.blob);
    throw e;
  }
  // The new state is durable; only now do the bytes of replaced records go.
  const referenced = new Set(ws.blobNames());
  for (const blob of stored.values()) if (!referenced.has(blob)) await ws.blobs.discard(blob);
}
