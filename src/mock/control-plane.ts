/**
 * The control plane under /__mock (CONTRACT §7): reset, scenarios, workspaces, the journal, the
 * clock, faults and coverage. Our own interface, described by control-plane.openapi.json and
 * validated the way the service's bodies are (Pydantic-style 422s); other errors are
 * `{"detail": "…"}`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { DETAIL, HttpError, unauthorized, validationError } from '../errors/http-error.js';
import { err, type PydanticError } from '../errors/catalogue.js';
import { readBody, readRaw } from '../http/body.js';
import { mailboxView } from '../operations/mailboxes.js';
import { fileView, storeUploadedFile } from '../operations/session-files.js';
import { packageRoot } from '../package-root.js';
import { sendError, sendJsonText } from '../pipeline.js';
import { JsonDecodeError, JsonUndecodableError } from '../python/json-decode.js';
import { isPyDict } from '../python/values.js';
import { parseQuery } from '../python/url.js';
import { parseBoolString, parseIntString, INVALID, validateModel } from '../validation/lax.js';
import { compileSchema, type FieldSpec } from '../validation/spec.js';
import type { Store } from '../store/store.js';
import { ClockRangeError, isoTime, type Clock } from './clock.js';
import { duplicateIdProblem, faultProblem, parseControlJson, parseInstant, snapshotValueErrors } from './control-input.js';
import type { Coverage } from './coverage.js';
import type { Faults } from './faults.js';
import type { Journal } from './journal.js';
import { exportSnapshot, importSnapshot, workspaceCounts } from './snapshots.js';
import { addInspectorRoutes } from './ui-api.js';
import { sendSnapshot } from './snapshot-stream.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/scenario.js';
import { parseDuration } from '../cli-args.js';
import type { Operation } from '../openapi.js';
import type { DriftLog } from '../proxy/drift.js';
import { driftRoutes } from './drift-routes.js';

export interface ControlPlaneDeps {
  store: Store;
  clock: Clock;
  journal: Journal;
  faults: Faults;
  coverage: Coverage;
  /** The full reset (clock, workspaces, journal, faults, coverage) or one principal's. */
  reset(principal?: string): Promise<void>;
  adminToken?: string;
  fileTtlMs: number;
  maxUploadBytes: number;
  serviceOperationIds: string[];
  /** The principal a bearer token authenticates as, or null when --auth strict refuses it. */
  principalOf(token: string): string | null;
  /** Drift records of the --upstream proxy (its routes live in drift-routes.ts). */
  drift?: DriftLog;
  operations?: Operation[];
}

export function readControlPlaneDocument(): Record<string, any> {
  return JSON.parse(readFileSync(join(packageRoot, 'control-plane.openapi.json'), 'utf8'));
}

/** Snapshots carry file bytes as base64, so the control plane takes larger bodies than the service. */
const MAX_CONTROL_BODY = 256 * 1024 * 1024;

export function controlPlane(deps: ControlPlaneDeps): Router {
  const doc = readControlPlaneDocument();
  const schemas = doc.components.schemas as Record<string, any>;
  const fields = (name: string): FieldSpec[] => {
    const spec = compileSchema(schemas[name], schemas);
    return spec.kind === 'object' ? spec.fields : [];
  };
  const models = Object.fromEntries(
    ['ScenarioSwitchRequest', 'WorkspaceSnapshot', 'SessionCreateRequest', 'MailboxCreateRequest', 'ConnectionUpdateRequest', 'ClockUpdateRequest', 'FaultRequest', 'PrincipalRequest'].map((n) => [n, fields(n)]),
  );

  async function body(req: Request, model: string): Promise<any> {
    const raw = await readRaw(req, MAX_CONTROL_BODY);
    let value;
    try {
      value = raw.length ? await parseControlJson(raw) : null;
    } catch (e) {
      if (e instanceof JsonDecodeError) throw validationError([err.jsonInvalid(e.pos, e.msg)]);
      if (e instanceof JsonUndecodableError) throw new HttpError(400, DETAIL.bodyParseError);
      throw e;
    }
    if (value === null) throw validationError([err.missing(['body'])]);
    if (!isPyDict(value)) throw validationError([err.modelType(['body'], value)]);
    const errors: PydanticError[] = [];
    const out = validateModel(value, models[model], ['body'], errors);
    if (out === INVALID) throw validationError(errors);
    return out;
  }

  const clockState = () => ({ now: isoTime(deps.clock.now()), offset_seconds: Math.round(deps.clock.offsetSeconds * 1000) / 1000, frozen: deps.clock.frozen });
  const json = (res: Response, status: number, value: unknown) => sendJsonText(res, status, JSON.stringify(value));
  const noContent = (res: Response) => res.status(204).end();
  const unprocessable = (detail: string) => new HttpError(422, detail);

  const router = express.Router();
  router.use((req: Request, _res: Response, next: NextFunction) => {
    if (!deps.adminToken) return next();
    const header = req.headers.authorization ?? '';
    const space = header.indexOf(' ');
    const ok = space > 0 && header.slice(0, space).toLowerCase() === 'bearer' && header.slice(space + 1).trim() === deps.adminToken;
    next(ok ? undefined : unauthorized(DETAIL.notAuthenticated));
  });

  const route = (fn: (req: Request, res: Response) => Promise<void> | void) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      await fn(req, res);
    } catch (e) {
      next(e);
    }
  };

  router.get('/openapi.json', (_req, res) => json(res, 200, doc));
  addInspectorRoutes(router, route, deps);

  router.post('/reset', route(async (req, res) => {
    const principal = parseQuery(req.url.split('?')[1] ?? '').get('principal');
    await deps.reset(principal);
    noContent(res);
  }));

  // The token comes in the body, never the URL: URLs get logged.
  router.post('/principal', route(async (req, res) => {
    const b = await body(req, 'PrincipalRequest');
    const principal = deps.principalOf(b.token);
    if (principal === null) throw unprocessable('this token is refused under --auth strict: only the scenario\'s API keys and tokens from POST /token are accepted');
    json(res, 200, { principal });
  }));

  router.post('/scenario', route(async (req, res) => {
    const b = await body(req, 'ScenarioSwitchRequest');
    const ref = b.name ?? b.path;
    if (!ref || (b.name && b.path)) throw unprocessable('give exactly one of name (a built-in scenario) and path (a scenario file)');
    if (b.name && !(BUILT_IN_SCENARIOS as readonly string[]).includes(b.name)) {
      throw unprocessable(`unknown scenario ${JSON.stringify(b.name)}: name is one of ${BUILT_IN_SCENARIOS.join(', ')}; give a file as path`);
    }
    const seed = b.seed ?? deps.store.seed;
    try {
      await deps.store.switchScenario(ref, seed);
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw unprocessable((e as Error).message);
    }
    deps.journal.clear();
    deps.faults.clear();
    deps.coverage.clear();
    json(res, 200, { scenario: ref, seed });
  }));

  router.get('/workspaces', route(async (_req, res) => {
    const items = [];
    for (const p of deps.store.principals().sort()) items.push(workspaceCounts(await deps.store.workspace(p)));
    json(res, 200, { items });
  }));

  router.get('/workspaces/:principal', route(async (req, res) => {
    // Uploaded bytes travel as base64 unless ?content=false; seeded bytes are derived anyway.
    const withContent = parseQuery(req.url.split('?')[1] ?? '').get('content') !== 'false';
    const ws = await deps.store.workspace(String(req.params.principal));
    if (withContent) await sendSnapshot(res, ws, deps.store.blobs);
    else json(res, 200, await exportSnapshot(ws));
  }));

  router.put('/workspaces/:principal', route(async (req, res) => {
    const snapshot = await body(req, 'WorkspaceSnapshot');
    const invalid = snapshotValueErrors(snapshot, deps.maxUploadBytes);
    if (invalid.length) throw validationError(invalid);
    const repeated = duplicateIdProblem(snapshot);
    if (repeated) throw unprocessable(repeated);
    await importSnapshot(await deps.store.workspace(String(req.params.principal)), snapshot, deps.store.blobs, deps.clock.now());
    noContent(res);
  }));

  router.post('/workspaces/:principal/sessions', route(async (req, res) => {
    const b = await body(req, 'SessionCreateRequest');
    const ws = await deps.store.workspace(String(req.params.principal));
    const id = b.id ?? ws.newId('sess');
    if (ws.session(id)) throw new HttpError(409, `Session ${id} exists`);
    if ((b.actions ?? []).some((a: any) => typeof a.type !== 'string')) throw unprocessable('every action needs a string "type"');
    ws.addSession({ id, actions: b.actions ?? [], files: [] });
    await ws.save();
    json(res, 201, { id, actions: b.actions ?? [] });
  }));

  router.post('/workspaces/:principal/mailboxes', route(async (req, res) => {
    const b = await body(req, 'MailboxCreateRequest');
    const ws = await deps.store.workspace(String(req.params.principal));
    const id = b.id ?? ws.newId('mbx');
    if (ws.mailbox(id)) throw new HttpError(409, `Mailbox ${id} exists`);
    const now = deps.clock.now();
    const healthy = b.healthy ?? true;
    const mailbox = {
      id,
      email_address: b.email_address,
      provider: b.provider,
      healthy,
      authorized_scopes: b.authorized_scopes ?? [],
      allow_all_senders: b.allow_all_senders ?? false,
      allowed_sender_domains: b.allowed_sender_domains ?? [],
      created_at: now,
      updated_at: now,
      connection_healthy: healthy,
    };
    ws.addMailbox(mailbox);
    await ws.save();
    json(res, 201, mailboxView(mailbox));
  }));

  router.patch('/workspaces/:principal/mailboxes/:mailbox_id/connection', route(async (req, res) => {
    const b = await body(req, 'ConnectionUpdateRequest');
    const ws = await deps.store.workspace(String(req.params.principal));
    const found = ws.mailbox(String(req.params.mailbox_id));
    if (!found) throw new HttpError(404, DETAIL.mailboxNotFound);
    // Only the hidden connection changes; the reported `healthy` follows at the next sync.
    const m = ws.updateMailbox(found, { connection_healthy: b.healthy });
    await ws.save();
    json(res, 200, mailboxView(m));
  }));

  router.post('/workspaces/:principal/sessions/:session_id/files', route(async (req, res) => {
    const parsed = await readBody(req, 'multipart', { blobs: deps.store.blobs, maxUpload: deps.maxUploadBytes });
    const discard = async () => {
      if (parsed.kind === 'form') for (const f of [...parsed.fields.values()]) if (f.type === 'file') await deps.store.blobs.discard(f.upload.blob.temp);
      if (parsed.kind === 'form') for (const b of parsed.discarded) await deps.store.blobs.discard(b.temp);
    };
    const part = parsed.kind === 'form' ? parsed.fields.get('file') : undefined;
    if (part?.type !== 'file') {
      await discard();
      throw validationError([part && part.value !== '' ? err.uploadExpected(['body', 'file'], part.value) : err.missing(['body', 'file'])]);
    }
    const ws = await deps.store.workspace(String(req.params.principal));
    const session = ws.session(String(req.params.session_id));
    if (!session) {
      await discard();
      throw new HttpError(404, DETAIL.sessionNotFound);
    }
    if (parsed.kind === 'form') for (const b of parsed.discarded) await deps.store.blobs.discard(b.temp);
    let file;
    try {
      file = await storeUploadedFile(ws, session, part.upload, 'session_download', { now: deps.clock.now(), ttlMs: deps.fileTtlMs, blobs: deps.store.blobs });
    } catch (e) {
      await deps.store.blobs.discard(part.upload.blob.temp);
      throw e;
    }
    json(res, 201, fileView(file));
  }));

  router.get('/requests', route(async (req, res) => {
    const q = parseQuery(req.url.split('?')[1] ?? '');
    const errors: PydanticError[] = [];
    const int = (name: string, min: number) => {
      const raw = q.get(name);
      if (raw === undefined) return undefined;
      const v = parseIntString(raw);
      if (v === null || v === 'size') return void errors.push(err.intParsing(['query', name], raw));
      if (v < BigInt(min)) return void errors.push(err.ge(['query', name], raw, min));
      return Number(v);
    };
    const status = int('status', 0);
    const limit = int('limit', 1);
    const sinceRaw = q.get('since');
    const since = sinceRaw === undefined ? undefined : Date.parse(sinceRaw);
    if (since !== undefined && Number.isNaN(since)) errors.push({ type: 'datetime_from_date_parsing', loc: ['query', 'since'], msg: 'Input should be a valid datetime', input: sinceRaw });
    const unmatchedRaw = q.get('unmatched');
    const unmatched = unmatchedRaw === undefined ? undefined : parseBoolString(unmatchedRaw);
    if (unmatched === null) errors.push(err.boolParsing(['query', 'unmatched'], unmatchedRaw));
    // A cursor for pollers (the inspector page): entries recorded after the one with this id.
    const afterRaw = q.get('after');
    const after = afterRaw === undefined ? undefined : /^req_[1-9]\d{0,15}$/.test(afterRaw) ? Number(afterRaw.slice(4)) : null;
    if (after === null) errors.push({ type: 'string_pattern_mismatch', loc: ['query', 'after'], msg: "String should match pattern '^req_[1-9][0-9]*$'", input: afterRaw, ctx: { pattern: '^req_[1-9][0-9]*$' } });
    if (errors.length) throw validationError(errors);
    const items = deps.journal.list({ operationId: q.get('operationId'), method: q.get('method'), path: q.get('path'), principal: q.get('principal'), status, limit, since, unmatched: unmatched ?? undefined, after: after ?? undefined });
    json(res, 200, { items });
  }));

  router.delete('/requests', (_req, res) => {
    deps.journal.clear();
    noContent(res);
  });

  router.get('/clock', (_req, res) => json(res, 200, clockState()));

  router.post('/clock', route(async (req, res) => {
    const b = await body(req, 'ClockUpdateRequest');
    if ((b.set === undefined) === (b.advance === undefined)) throw unprocessable('give exactly one of set (an ISO-8601 instant) and advance (seconds or an ISO-8601 duration)');
    try {
      if (b.set !== undefined) {
        const at = parseInstant(b.set);
        if (at === null) throw unprocessable(`set must be an ISO-8601 instant from year 1 to 9999 such as 2030-01-01T00:00:00Z, not ${JSON.stringify(b.set)}`);
        deps.clock.set(at);
      } else {
        const seconds = typeof b.advance === 'number' ? b.advance : typeof b.advance === 'string' ? parseDuration(b.advance) : null;
        if (seconds === null || !Number.isFinite(seconds)) throw unprocessable(`advance must be seconds or an ISO-8601 duration such as P8D, not ${JSON.stringify(b.advance)}`);
        deps.clock.advance(seconds * 1000);
      }
    } catch (e) {
      if (e instanceof ClockRangeError) throw unprocessable(`advance ${JSON.stringify(b.advance)} would take the clock outside years 1 to 9999 (it is ${isoTime(deps.clock.now())})`);
      throw e;
    }
    json(res, 200, clockState());
  }));

  router.post('/clock/reset', (_req, res) => {
    deps.clock.reset();
    json(res, 200, clockState());
  });

  router.post('/faults', route(async (req, res) => {
    const b = await body(req, 'FaultRequest');
    if (b.operationId !== '*' && !deps.serviceOperationIds.includes(b.operationId)) {
      throw unprocessable(`operationId must be * or one of ${deps.serviceOperationIds.join(', ')}, not ${JSON.stringify(b.operationId)}`);
    }
    const problem = faultProblem(b);
    if (problem) throw unprocessable(problem);
    json(res, 201, deps.faults.add(b));
  }));

  router.get('/faults', (_req, res) => json(res, 200, { items: deps.faults.list() }));

  router.delete('/faults', (_req, res) => {
    deps.faults.clear();
    noContent(res);
  });

  router.delete('/faults/:id', (req, res) => {
    if (!deps.faults.remove(String(req.params.id))) return sendError(res, new HttpError(404, `Fault ${String(req.params.id)} not found`));
    noContent(res);
  });

  router.get('/coverage', route((req, res) => {
    const format = parseQuery(req.url.split('?')[1] ?? '').get('format') ?? 'json';
    if (format === 'junit') {
      const xml = Buffer.from(deps.coverage.junit());
      res.writeHead(200, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Length': String(xml.length) });
      res.end(xml);
      return;
    }
    if (format !== 'json') throw validationError([err.enum(['query', 'format'], format, ['json', 'junit'])]);
    json(res, 200, deps.coverage.report());
  }));

  router.use(driftRoutes(deps.drift, deps.operations ?? []));
  router.use((_req: Request, res: Response) => sendError(res, new HttpError(404, DETAIL.notFound)));
  router.use((e: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (e instanceof HttpError) return sendError(res, e);
    // Express's own 4xx (a path parameter that is not valid percent-encoding, …).
    const status = (e as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendError(res, new HttpError(status, (e as Error).message.split('\n')[0]));
    next(e);
  });
  return router;
}
