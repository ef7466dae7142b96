/**
 * Workspace snapshots for the control plane (CONTRACT §7): the service's own record shapes plus
 * what the service hides (mailbox connection state, secret values). Export is a full snapshot;
 * import replaces a workspace with one.
 */
import { keyHint } from '../model/secret-rules.js';
import { fileView } from '../operations/session-files.js';
import { mailboxRecord, mailboxView } from '../operations/mailboxes.js';
import { secretView } from '../operations/secrets.js';
import { scenarioFileChecksum } from '../scenarios/seeded-content.js';
import { parseInstant } from './control-input.js';
import type { BlobStore } from '../store/blobs.js';
import { compareFiles, type StoredFile, type StoredMailbox, type StoredSecret, type StoredSession, type WorkspaceData } from '../model/records.js';
import type { Workspace } from '../store/workspace.js';
import { base64Stream } from '../primitives/base64-stream.js';
import type { Schemas } from '../generated/control-plane-api.js';

/** What importWorkspace takes, as control-plane.openapi.json describes it (checked by the validator). */
export type WorkspaceImport = Schemas['WorkspaceImport'];
/** What exportWorkspace answers: every field the mock holds given; an import takes it back as it is. */
export type WorkspaceExport = Schemas['WorkspaceExport'];

/** A full snapshot; with `blobs`, uploaded files carry their bytes as `content_base64`. */
export async function exportSnapshot(ws: Workspace, blobs?: BlobStore) {
  const d = ws.data;
  const sessions = [];
  for (const s of d.sessions) {
    const files = [];
    for (const f of s.files) {
      const view: ReturnType<typeof fileView> & { content_base64?: string } = fileView(f);
      if (blobs && f.blob) view.content_base64 = (await blobs.readAll(f.blob)).toString('base64');
      files.push(view);
    }
    sessions.push({ id: s.id, actions: s.actions, files });
  }
  return {
    sessions,
    mailboxes: d.mailboxes.map(mailboxSnapshot),
    secrets: d.secrets.map((s) => ({ ...secretView(s), value: s.value })),
  } satisfies WorkspaceExport;
}

/** A mailbox as the control plane shows it: the service's view plus the hidden connection state. */
export const mailboxSnapshot = (m: StoredMailbox) => ({ ...mailboxView(m), connection_healthy: m.connection_healthy });

export function workspaceCounts(ws: Workspace) {
  const d = ws.data;
  return {
    principal: ws.principal,
    sessions: d.sessions.length,
    // Expired files still count: they are stored until deleted, only hidden from listings.
    files: d.sessions.reduce((n, s) => n + s.files.length, 0),
    mailboxes: d.mailboxes.length,
    secrets: d.secrets.length,
  };
}

// Instants were checked by the control plane (snapshotValueErrors): each parses within years 1–9999.
const ms = (t: string) => parseInstant(t)!;
const msOrNull = (t: string | null | undefined) => (t === null || t === undefined ? null : parseInstant(t));

/** Replaces the workspace's data with a validated snapshot; file bytes go to blobs. */
export async function importSnapshot(ws: Workspace, snapshot: WorkspaceImport, blobs: BlobStore, now: number): Promise<void> {
  // Everything that waits comes first: uploaded bytes, and the checksums of derived bytes. Then,
  // with no wait until the document is replaced, the blobs kept from the records as they are now —
  // so a file deleted meanwhile is not revived pointing at bytes the delete removed (the import
  // then counts as coming after the delete).
  const written = new Map<Schemas['SnapshotFile'], { blob: string; size: number; checksum: string }>();
  try {
    for (const s of snapshot.sessions) {
      for (const f of s.files) {
        if (typeof f.content_base64 !== 'string') continue;
        const temp = await blobs.writeTemp(base64Stream(f.content_base64), Infinity);
        written.set(f, { blob: await ws.commitBlob(temp.temp), size: temp.size, checksum: temp.checksum });
      }
    }
  } catch (e) {
    for (const w of written.values()) await blobs.discard(w.blob);
    throw e;
  }
  const derived = new Map<Schemas['SnapshotFile'], string>();
  let previousBlobs: Map<string, string>;
  for (;;) {
    previousBlobs = new Map<string, string>();
    for (const s of ws.data.sessions) for (const f of s.files) if (f.blob) previousBlobs.set(`${s.id}/${f.id}`, f.blob);
    const missing = snapshot.sessions.flatMap((s) => s.files.filter((f) => !written.has(f) && !derived.has(f) && !previousBlobs.has(`${s.id}/${f.id}`)));
    if (!missing.length) break;
    // (Computing them waits: the records may change meanwhile, so look again afterwards.)
    for (const f of missing) derived.set(f, await scenarioFileChecksum({ id: f.id, size: f.size }));
  }
  const kept = new Set<string>();
  const sessions: StoredSession[] = [];
  for (const s of snapshot.sessions) {
    const files: StoredFile[] = [];
    for (const f of s.files) {
      const file: StoredFile = {
        id: f.id,
        session_id: s.id,
        filename: f.filename,
        mime_type: f.mime_type,
        size: f.size,
        checksum: f.checksum ?? '',
        created_at: ms(f.created_at),
        expires_at: ms(f.expires_at),
        source: f.source,
      };
      const w = written.get(f);
      if (w) {
        file.blob = w.blob;
        file.size = w.size;
        file.checksum = w.checksum;
      } else if (previousBlobs.has(`${s.id}/${f.id}`)) {
        file.blob = previousBlobs.get(`${s.id}/${f.id}`);
        kept.add(file.blob!);
      } else {
        // No bytes given and none stored: derived from id and size, with a checksum to match.
        file.checksum = derived.get(f)!;
      }
      files.push(file);
    }
    // The document does not require an imported action's `type` (nor did the import ever check it): kept as given.
    sessions.push({ id: s.id, actions: s.actions as StoredSession['actions'], files: files.sort(compareFiles) });
  }
  const mailboxes: StoredMailbox[] = snapshot.mailboxes.map((m) => mailboxRecord({ ...m, created_at: msOrNull(m.created_at), updated_at: msOrNull(m.updated_at) }, now));
  const secrets: StoredSecret[] = snapshot.secrets.map((s) => ({
    id: s.id,
    namespace: s.namespace,
    name: s.name,
    value: s.value,
    key_hint: keyHint(s.value),
    created_at: ms(s.created_at),
    last_used_at: msOrNull(s.last_used_at),
  }));
  const data: WorkspaceData = { ...ws.data, sessions, mailboxes, secrets };
  ws.replace(data);
  try {
    await ws.save();
  } catch (e) {
    // Rolled back to what the disk holds: the new bytes are nobody's.
    for (const w of written.values()) if (!ws.references(w.blob)) await blobs.discard(w.blob);
    throw e;
  }
  // The new state is on disk; only now do the bytes of replaced records go.
  const referenced = new Set(ws.blobNames());
  for (const [, blob] of previousBlobs) if (!kept.has(blob) && !referenced.has(blob)) await blobs.discard(blob);
}
