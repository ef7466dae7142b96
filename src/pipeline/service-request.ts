/**
 * A service request as named stages (pipeline/stages.ts has their signature and the lifecycle
 * both APIs share): route → fault → read body → authenticate → validate → prefer → operate,
 * closing with reply; with --upstream, route → fault → proxy. The order is CONTRACT §8's: a fault
 * applies right after routing; framing errors come before authentication, authentication before
 * validation, validation before the 404s, 410s and 413s of the operation itself. Handlers return
 * replies (operations/types.ts); the reply stage writes them with the service's JSON writer
 * (serializeJson and its text cache).
 */
import { authenticate, type Auth, type AuthContext } from '../operations/auth.js';
import { DETAIL, HttpError } from '../errors/http-error.js';
import { requestHost } from '../http/request-target.js';
import type { Clock } from '../primitives/clock.js';
import type { OpenApiDocument, Operation } from '../document/openapi.js';
import { handlerFor, type HandlerMap, type OperationConfig } from '../operations/types.js';
import type { Reply } from '../http/reply.js';
import { matchRoute, RouteIndex } from './router.js';
import { answerAdded, authenticateAdded, pinnedReply, preferredExample, type AddedDeps } from './added-operation.js';
import { isMockOwnRoute } from '../document/union.js';
import { pyQuoteUrl } from '../python/url.js';
import { serializeJson, type TextCache } from '../store/json-text.js';
import type { Store } from '../store/store.js';
import type { Faults } from '../records/faults.js';
import type { ParsedRequest } from '../records/journal.js';
import { parsePrefer, preferenceWarning, preferredError } from './prefer.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import { proxyRequest, type ProxyDeps } from '../proxy/proxy-stage.js';
import type { ResponseValidator } from '../validation/responses.js';
import { checkServiceReply } from '../validation/reply-check.js';
import { NOT_MINE, RequestContext, WRITTEN_ELSEWHERE, readBody, reply, runStages, validate, type Composition, type StageDeps, type Target } from './stages.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface PipelineDeps {
  operations: Operation[];
  /** openapi.json, and express-openapi-validator over it (the validate stage). */
  document: OpenApiDocument;
  validator: OpenApiRequestValidator;
  handlers: HandlerMap;
  store: Store;
  clock: Clock;
  /** The runtime's one auth configuration (the control plane's `POST /__mock/principal` reads it too). */
  auth: Auth;
  config: OperationConfig;
  validateResponse?: ResponseValidator;
  /** Kept JSON bytes of the frozen values replies are made of (a listed file's view, say). */
  texts: TextCache;
  faults?: Faults;
  /** With --upstream: the proxy stage replaces read-body → validate → operate. */
  proxy?: ProxyDeps;
  /** With --spec: how the operations the supplied document added are answered. */
  added?: AddedDeps;
}

/** Facts about the request that the log line wants. */
export interface RequestFacts {
  /** The path matched an operation (whatever the method): a service request. */
  service?: boolean;
  operationId?: string;
  principal?: string;
  /**
   * The request body as parsed, which the journal keeps a redacted summary of; left out when the
   * request failed authentication (an anonymous client's bytes are not kept).
   */
  parsed?: ParsedRequest;
  /** Set when the connection was dropped on purpose (a status-0 fault). */
  dropped?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's deps as its stages read them (made once, by serviceStageDeps). */
export type ServiceDeps = PipelineDeps & StageDeps;

/**
 * The mock's own answers to an added operation — a 307, a body it cannot parse (400), 401, 404,
 * 405, a body too slow (408) or too large (413), 422 — are not the operation's to document:
 * response validation does not hold them against it.
 */
const MOCK_OWN_STATUSES = new Set([307, 400, 401, 404, 405, 408, 413, 422]);

export function serviceStageDeps(deps: PipelineDeps): ServiceDeps {
  const validateResponse = deps.validateResponse;
  return {
    ...deps,
    routes: new RouteIndex(deps.operations),
    blobs: () => deps.store.blobs,
    bodyOptions: () => ({ blobs: deps.store.blobs, maxUpload: deps.config.maxUploadBytes }),
    writeJson: (value) => serializeJson(value, deps.texts),
    checkReply: validateResponse
      ? (ctx, out) => (ctx.operation.added && MOCK_OWN_STATUSES.has(out.status) && !ctx.operation.statuses.includes(String(out.status)) ? out : checkServiceReply(validateResponse, ctx.operation, out))
      : undefined,
  };
}

/** A service request: the shared context, the facts its record wants, and how it authenticates. */
export class ServiceRequest extends RequestContext<ServiceDeps> {
  /** The record hand-off: what app/service-requests.ts logs and journals once the answer is out. */
  readonly facts: RequestFacts = {};
  #auth: AuthContext | undefined = undefined;
  /** The caller's principal (null: an open operation's anonymous caller) or why it has none, once known. */
  #authenticated: { principal: string | null } | { refused: unknown } | undefined = undefined;
  /** An added operation's `Prefer: code=`/`example=`, for the generator. */
  preferred: { code?: number; example?: string } | undefined = undefined;

  constructor(req: IncomingMessage, res: ServerResponse, deps: ServiceDeps, target: Target) {
    super(req, res, deps, target);
  }

  /** The auth configuration at this request's instant (built on first use: most requests need it once). */
  get auth(): AuthContext {
    return (this.#auth ??= this.deps.auth.context());
  }

  /**
   * The caller's principal by the operation's requirements, or the 401 thrown; worked out once per
   * request, whichever stage asks first (a fault naming a principal, the proxy, authenticate), so
   * a fault's check never authenticates twice nor changes what the authenticate stage answers.
   */
  principalOrThrow(): string | null {
    const known = (this.#authenticated ??= this.#authenticate());
    if ('refused' in known) throw known.refused;
    return known.principal;
  }

  /** The caller's principal, or null when the operation is open or the caller fails authentication. */
  principalOrNull(): string | null {
    const known = (this.#authenticated ??= this.#authenticate());
    return 'refused' in known ? null : known.principal;
  }

  #authenticate(): { principal: string | null } | { refused: unknown } {
    const op = this.operation;
    try {
      if (op.added) return { principal: authenticateAdded(op, this.req.headers, this.auth) };
      return { principal: op.secured ? authenticate(this.req.headers.authorization, this.auth) : null };
    } catch (e) {
      return { refused: e };
    }
  }

  /** The route stage found the path to be the service's (false: the request goes on to Express). */
  get isService(): boolean {
    return this.reply !== NOT_MINE;
  }
}

type ServiceComposition = Composition<ServiceDeps, ServiceRequest>;

/** route: the operation (Starlette's matching), a 307 for a trailing slash, a 405, or not the service's. */
function route(ctx: ServiceRequest): Reply | void {
  // The mock's own paths win over a supplied document's (its own GET /health, a `/{page}` route).
  if (ctx.deps.added && isMockOwnRoute(ctx.target.path)) return NOT_MINE;
  const found = matchRoute(ctx.deps.routes, ctx.method, ctx.target.path);
  if (found.kind === 'not-found') return NOT_MINE;
  if (found.kind === 'redirect') {
    const query = ctx.target.query;
    const location = pyQuoteUrl(`http://${requestHost(ctx.req)}${found.path}${query ? `?${query}` : ''}`);
    return { status: 307, headers: { Location: location, 'Content-Length': '0' } };
  }
  ctx.facts.service = true;
  if (found.kind === 'method-not-allowed') throw new HttpError(405, DETAIL.methodNotAllowed, { Allow: found.allow });
  const op = found.op;
  ctx.op = op;
  ctx.pathParams = found.pathParams;
  ctx.facts.operationId = op.id;
}

/**
 * fault: a fault stands for the service failing, so it applies right after routing, before
 * anything about the request is checked (CONTRACT §7). Past it, every answer is one openapi.json
 * documents (response validation checks it).
 */
function fault(ctx: ServiceRequest): Reply | void | Promise<Reply> {
  const op = ctx.operation;
  const faults = ctx.deps.faults;
  // No fault for this operation (nearly every request): nothing to check, nobody to authenticate.
  const found = faults?.any(op.id) ? faults.take(op.id, () => (op.secured ? ctx.principalOrNull() : null)) : undefined;
  if (!found) {
    ctx.documented = true;
    return;
  }
  if (found.delay_ms > 0) return sleep(found.delay_ms).then(() => faultReply(ctx, found));
  return faultReply(ctx, found);
}

function faultReply(ctx: ServiceRequest, found: { status: number; body?: unknown; headers?: Record<string, string> }): Reply {
  if (found.status === 0) {
    ctx.facts.dropped = true;
    return { status: 0, drop: true };
  }
  return { status: found.status, headers: found.headers, jsonText: JSON.stringify(found.body) };
}

/** proxy (--upstream): forwards the request and writes the real answer itself (proxy/forward.ts). */
async function proxy(ctx: ServiceRequest): Promise<Reply> {
  const op = ctx.operation;
  const principal = op.secured ? ctx.principalOrNull() : null;
  if (principal) ctx.facts.principal = principal;
  await proxyRequest(ctx.req, ctx.res, op, ctx.pathParams, ctx.query, ctx.deps.proxy!, ctx.facts);
  return WRITTEN_ELSEWHERE;
}

/** authenticate: the caller's principal; then the journal may keep the body (an anonymous one is not kept). */
function authenticateStage(ctx: ServiceRequest): void {
  const op = ctx.operation;
  const principal = ctx.principalOrThrow();
  if (principal) ctx.facts.principal = ctx.principal = principal;
  ctx.facts.parsed = op.added ? { operationId: op.id, body: ctx.body, secretFields: op.added.secretFields } : { operationId: op.id, body: ctx.body };
}

/** prefer: Prism's `Prefer: delay=` waits, `code=` answers a documented error (or warns why not). */
function prefer(ctx: ServiceRequest): Reply | void | Promise<void> {
  if (ctx.operation.added) return preferAdded(ctx);
  const preference = parsePrefer(ctx.req.headers.prefer);
  if (preference.delayMs) return sleep(preference.delayMs).then(() => applyCode(ctx, preference.code));
  applyCode(ctx, preference.code);
}

function applyCode(ctx: ServiceRequest, code: number | undefined): void {
  if (code === undefined) return;
  const preferred = preferredError(ctx.operation, code);
  if (preferred) throw preferred;
  const warning = preferenceWarning(ctx.operation, code);
  if (warning) ctx.warning = warning;
}

/**
 * prefer, for an added operation: a pinned answer first (after authentication and validation,
 * before `Prefer`), then `delay=`; `code=` and `example=` are the generator's to apply (operate).
 */
function preferAdded(ctx: ServiceRequest): Reply | void | Promise<void> {
  const op = ctx.operation;
  const added = ctx.deps.added!;
  const pinned = added.pins.match(op.id, ctx.pathParams, ctx.principal ?? undefined);
  if (pinned) {
    ctx.committed = false;
    return pinnedReply(pinned, () => added.answerer.answer({ operation: op.added!.operation, operationId: op.id, pathParams: ctx.pathParams, query: Object.fromEntries(ctx.query), prefer: { code: pinned.status }, seed: added.seed, now: new Date(ctx.deps.clock.now()) }));
  }
  const preference = parsePrefer(ctx.req.headers.prefer);
  ctx.preferred = { code: preference.code, example: preferredExample(ctx.req.headers.prefer) };
  if (preference.delayMs) return sleep(preference.delayMs).then(() => undefined);
}

/** operate: the operation's handler, given the validated input and the caller's workspace. */
async function operate(ctx: ServiceRequest): Promise<Reply> {
  const deps = ctx.deps;
  if (ctx.operation.added) {
    const { reply, warning } = await answerAdded({ op: ctx.operation, pathParams: ctx.pathParams, query: ctx.query, body: ctx.body, principal: ctx.principal, prefer: ctx.preferred ?? {}, store: deps.store, clock: deps.clock, deps: deps.added! });
    if (warning) ctx.warning = warning;
    return reply;
  }
  const principal = ctx.principal;
  const workspace = principal ? await deps.store.workspace(principal) : null;
  const out = await handlerFor(deps.handlers, ctx.operation.id)(ctx.input!, { workspace, principal, clock: deps.clock, auth: ctx.auth, config: deps.config });
  ctx.committed = true;
  return out;
}

/** The service's order (CONTRACT §8). */
export const SERVICE_STAGES: ServiceComposition = {
  front: [
    { name: 'route', run: route },
    { name: 'fault', run: fault },
    { name: 'read body', run: readBody },
    { name: 'authenticate', run: authenticateStage },
    { name: 'validate', run: validate },
    { name: 'prefer', run: prefer },
    { name: 'operate', run: operate },
  ],
  closing: [{ name: 'reply', run: reply }],
};

/** With --upstream: the proxy stage replaces read body → operate (the store is never touched). */
export const PROXY_STAGES: ServiceComposition = {
  front: [
    { name: 'route', run: route },
    { name: 'fault', run: fault },
    { name: 'proxy', run: proxy },
  ],
  closing: [{ name: 'reply', run: reply }],
};

/** Handles one service request; afterwards `ctx.isService` says whether the path was the service's. */
export function handleServiceRequest(ctx: ServiceRequest, stages: ServiceComposition = ctx.deps.proxy ? PROXY_STAGES : SERVICE_STAGES): Promise<void> {
  return runStages(ctx, stages);
}
