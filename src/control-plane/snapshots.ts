/**
 * Workspace snapshots for the control plane (CONTRACT §7): the service's own record shapes plus
 * what the service hides (mailbox connection state, secret values). Export is a full snapshot;
 * import replaces a workspace with one.
 */
import { keyHint } from '../model/secret-rules.js';
import { fileView } from '../operations/session-files.js';
import { mailboxRecord, mailboxView } from '../operations/mailboxes.js';
import { secretView } from '../operations/secrets.js';
import { parseInstant } from './control-input.js';
import type { StoredMailbox, StoredSecret, StoredSession } from '../model/records.js';
import type { ImportedFile, Workspace } from '../store/workspace.js';
import { base64Stream } from '../primitives/base64-stream.js';
import type { Schemas } from '../generated/control-plane-api.js';

/** What importWorkspace takes, as control-plane.openapi.json describes it (checked by the validator). */
export type WorkspaceImport = Schemas['WorkspaceImport'];
/** What exportWorkspace answers: every field the mock holds given; an import takes it back as it is. */
export type WorkspaceExport = Schemas['WorkspaceExport'];

/** A full snapshot, without file bytes (snapshot-stream.ts streams them in). */
export async function exportSnapshot(ws: Workspace) {
  const d = ws.data;
  const sessions = [];
  for (const s of d.sessions) {
    const files = [];
    for (const f of s.files) {
      const view: ReturnType<typeof fileView> & { content_base64?: string } = fileView(f);
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

/**
 * Replaces the workspace's data with a validated snapshot (the store's importDocument: the bytes
 * a file brings become its blob, else it keeps the bytes stored for it, else derived ones).
 */
export async function importSnapshot(ws: Workspace, snapshot: WorkspaceImport, now: number): Promise<void> {
  const sessions = snapshot.sessions.map((s) => ({
    id: s.id,
    // The document does not require an imported action's `type` (nor did the import ever check it): kept as given.
    actions: s.actions as StoredSession['actions'],
    files: s.files.map((f): ImportedFile => {
      const content = f.content_base64;
      return {
        record: {
          id: f.id,
          session_id: s.id,
          filename: f.filename,
          mime_type: f.mime_type,
          size: f.size,
          checksum: f.checksum ?? '',
          created_at: ms(f.created_at),
          expires_at: ms(f.expires_at),
          source: f.source,
        },
        content: typeof content === 'string' ? () => base64Stream(content) : undefined,
      };
    }),
  }));
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
  await ws.importDocument({ sessions, mailboxes, secrets });
}
