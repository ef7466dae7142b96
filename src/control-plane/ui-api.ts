/**
 * The control-plane operations the inspector page (/__mock/ui) needs beyond the snapshot API: a
 * workspace overview without secret values (the snapshot export carries them even with
 * content=false) and one session's files, paged (a session may hold 5,000), each marked expired
 * or not by the mock's clock. Public, documented operations — the page has no private endpoint.
 */
import { secretView } from '../operations/secrets.js';
import { fileView, isExpired, sessionOr404 } from '../operations/session-files.js';
import { isoTime } from '../primitives/clock.js';
import type { ControlHandlerMap } from './handler-types.js';
import { json } from './runtime-handlers.js';
import { mailboxSnapshot } from './snapshots.js';

/** The inspector's read-only operations, routed by operationId like the rest of the control plane. */
export const inspectorHandlers = {
  async workspaceOverview({ path }, ctx) {
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const now = ctx.deps.clock.now();
    const d = ws.data;
    return json(ctx, 200, {
      principal: ws.principal,
      now: isoTime(now),
      sessions: d.sessions.map((s) => ({
        id: s.id,
        actions: s.actions.length,
        files: s.files.length,
        expired_files: s.files.filter((f) => isExpired(f, now)).length,
      })),
      mailboxes: d.mailboxes.map(mailboxSnapshot),
      // Metadata only, as the service's own secret listing: the value never leaves the store here.
      secrets: d.secrets.map(secretView),
    });
  },

  async listWorkspaceFiles({ path, query }, ctx) {
    const { offset, limit } = query as { offset: number; limit: number };
    const ws = await ctx.deps.store.workspace(String(path.principal));
    const session = sessionOr404(ws, String(path.session_id));
    const now = ctx.deps.clock.now();
    const items = session.files.slice(offset, offset + limit).map((f) => ({ ...fileView(f), expired: isExpired(f, now) }));
    return json(ctx, 200, { now: isoTime(now), total: session.files.length, offset, limit, items });
  },
} satisfies Partial<ControlHandlerMap>;
