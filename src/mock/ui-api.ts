/**
 * The control-plane operations the inspector page (/__mock/ui) needs beyond the snapshot API: a
 * workspace overview without secret values (the snapshot export carries them even with
 * content=false) and one session's files, paged (a session may hold 5,000), each marked expired
 * or not by the mock's clock. Public, documented operations — the page has no private endpoint.
 */
import type { Request, Response, Router } from 'express';
import { HttpError, validationError } from '../errors/http-error.js';
import { DETAIL } from '../errors/http-error.js';
import { err, type PydanticError } from '../errors/catalogue.js';
import { mailboxView } from '../operations/mailboxes.js';
import { secretView } from '../operations/secrets.js';
import { fileView, isExpired } from '../operations/session-files.js';
import { sendJsonText } from '../pipeline.js';
import { parseIntString } from '../validation/lax.js';
import { parseQuery } from '../python/url.js';
import type { Store } from '../store/store.js';
import { isoTime, type Clock } from './clock.js';

export const MAX_FILES_PAGE = 1000;

type Route = (fn: (req: Request, res: Response) => Promise<void> | void) => (req: Request, res: Response, next: (e?: unknown) => void) => void;

/** Adds the inspector's read-only operations to the control-plane router (after its token check). */
export function addInspectorRoutes(router: Router, route: Route, deps: { store: Store; clock: Clock }): void {
  const json = (res: Response, value: unknown) => sendJsonText(res, 200, JSON.stringify(value));

  router.get('/workspaces/:principal/overview', route(async (req, res) => {
    const ws = await deps.store.workspace(String(req.params.principal));
    const now = deps.clock.now();
    const d = ws.data;
    json(res, {
      principal: ws.principal,
      now: isoTime(now),
      sessions: d.sessions.map((s) => ({
        id: s.id,
        actions: s.actions.length,
        files: s.files.length,
        expired_files: s.files.filter((f) => isExpired(f, now)).length,
      })),
      mailboxes: d.mailboxes.map((m) => ({ ...mailboxView(m), connection_healthy: m.connection_healthy })),
      // Metadata only, as the service's own secret listing: the value never leaves the store here.
      secrets: d.secrets.map(secretView),
    });
  }));

  router.get('/workspaces/:principal/sessions/:session_id/files', route(async (req, res) => {
    const q = parseQuery(req.url.split('?')[1] ?? '');
    const errors: PydanticError[] = [];
    const int = (name: string, min: number, max: number, fallback: number) => {
      const raw = q.get(name);
      if (raw === undefined) return fallback;
      const v = parseIntString(raw);
      if (v === null || v === 'size') return void errors.push(err.intParsing(['query', name], raw));
      if (v < BigInt(min)) return void errors.push(err.ge(['query', name], raw, min));
      if (v > BigInt(max)) return void errors.push(err.le(['query', name], raw, max));
      return Number(v);
    };
    const offset = int('offset', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = int('limit', 1, MAX_FILES_PAGE, 100);
    if (errors.length) throw validationError(errors);
    const ws = await deps.store.workspace(String(req.params.principal));
    const session = ws.session(String(req.params.session_id));
    if (!session) throw new HttpError(404, DETAIL.sessionNotFound);
    const now = deps.clock.now();
    const items = session.files.slice(offset!, offset! + limit!).map((f) => ({ ...fileView(f), expired: isExpired(f, now) }));
    json(res, { now: isoTime(now), total: session.files.length, offset, limit, items });
  }));
}
