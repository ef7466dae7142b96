/**
 * Control-plane handlers for workspaces: list, export (streamed), import (the one whole body the
 * mock parses, capped), and seeding sessions, mailboxes and session downloads.
 */
import { DETAIL, HttpError, validationError } from '../errors/http-error.js';
import { duplicateIdProblem, snapshotValueErrors } from './control-input.js';
import { snapshotReply } from './snapshot-stream.js';
import { mailboxRecord, mailboxView } from '../operations/mailboxes.js';
import { fileView, sessionOr404, storeUploadedFile } from '../operations/session-files.js';
import type { Action } from '../model/records.js';
import type { ControlHandlerMap } from './handler-types.js';
import { json, noContent, unprocessable } from './runtime-handlers.js';
import { exportSnapshot, importSnapshot, workspaceCounts } from './snapshots.js';

export const workspaceHandlers = {
  async listWorkspaces(_input, ctx) {
    const items = [];
    for (const p of ctx.deps.store.principals().sort()) items.push(workspaceCounts(await ctx.deps.store.workspace(p)));
    return json(ctx, 200, { items });
  },

  async exportWorkspace({ path, query }, ctx) {
    // Uploaded bytes travel as base64 unless ?content=false; seeded bytes are derived anyway.
    const ws = await ctx.deps.store.workspace(String(path.principal));
    if (query.content !== false) return snapshotReply(ws);
    return json(ctx, 200, await exportSnapshot(ws));
  },

  async importWorkspace({ path, body: snapshot }, ctx) {
    const invalid = snapshotValueErrors(snapshot, ctx.deps.maxUploadBytes);
    if (invalid.length) throw validationError(invalid);
    const repeated = duplicateIdProblem(snapshot);
    if (repeated) throw unprocessable(repeated);
    await importSnapshot(await ctx.deps.store.workspace(String(path.principal)), snapshot, ctx.deps.clock.now());
    return noContent(ctx);
  },

  async createSession({ path, body: b }, ctx) {
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const id = b.id ?? ws.newId('sess');
    if (ws.session(id)) throw new HttpError(409, `Session ${id} exists`);
    const actions = b.actions ?? [];
    if (!actions.every((a): a is Action => typeof a.type === 'string')) throw unprocessable('every action needs a string "type"');
    await ws.createSession({ id, actions, files: [] });
    return json(ctx, 201, { id, actions });
  },

  async connectMailbox({ path, body: b }, ctx) {
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const id = b.id ?? ws.newId('mbx');
    if (ws.mailbox(id)) throw new HttpError(409, `Mailbox ${id} exists`);
    // Named fields only: the document allows others, which must not reach the record.
    const { email_address, provider, healthy, authorized_scopes, allow_all_senders, allowed_sender_domains } = b;
    const mailbox = mailboxRecord({ id, email_address, provider, healthy, authorized_scopes, allow_all_senders, allowed_sender_domains }, ctx.deps.clock.now());
    await ws.connectMailbox(mailbox);
    return json(ctx, 201, mailboxView(mailbox));
  },

  async setMailboxConnection({ path, body: b }, ctx) {
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const found = ws.mailbox(String(path.mailbox_id));
    if (!found) throw new HttpError(404, DETAIL.mailboxNotFound);
    // Only the hidden connection changes; the reported `healthy` follows at the next sync.
    const m = await ws.changeMailbox(found, { connection_healthy: b.healthy });
    return json(ctx, 200, mailboxView(m));
  },

  async addSessionDownload({ path, upload }, ctx) {
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const sessionId = String(path.session_id);
    sessionOr404(ws, sessionId);
    const file = await storeUploadedFile(ws, sessionId, upload!, 'session_download', { now: ctx.deps.clock.now(), ttlMs: ctx.deps.fileTtlMs });
    return json(ctx, 201, fileView(file));
  },
} satisfies Partial<ControlHandlerMap>;
