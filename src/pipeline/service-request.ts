/**
 * A service request as named stages, each a function of its own (after Prism): route → read the
 * body → authenticate → validate → operate → send. The order is CONTRACT §8's: framing errors
 * come before authentication, authentication before validation, validation before the 404s,
 * 410s and 413s of the operation itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { authenticate, type AuthContext } from '../auth.js';
import { DETAIL, HttpError } from '../errors/http-error.js';
import { discardBody, readBody, type ParsedBody } from '../http/body.js';
import { requestHost, splitTarget } from '../http/request-target.js';
import type { Clock } from '../primitives/clock.js';
import type { OpenApiDocument, Operation } from '../openapi.js';
import { handlerFor, type HandlerMap, type OperationConfig, type Reply } from '../operations/types.js';
import { pyDumps } from '../python/values.js';
import { parseQuery } from '../python/url.js';
import { matchRoute } from './router.js';
import { sendError, sendJsonBytes, sendJsonText } from '../http/reply.js';
import { serializeJson, type TextCache } from '../store/json-text.js';
import type { Store } from '../store/store.js';
import type { Faults } from '../records/faults.js';
import type { ParsedRequest } from '../records/journal.js';
import { parsePrefer, preferenceWarning, preferredError } from './prefer.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import { validateInput } from '../validation/input.js';
import { proxyRequest, type ProxyDeps } from '../proxy/proxy-stage.js';
import type { ResponseValidator } from '../validation/responses.js';

export interface PipelineDeps {
  operations: Operation[];
  /** openapi.json, and express-openapi-validator over it (the validate stage). */
  document: OpenApiDocument;
  validator: OpenApiRequestValidator;
  handlers: HandlerMap;
  store: Store;
  clock: Clock;
  authMode: AuthContext['mode'];
  config: OperationConfig;
  validateResponse?: ResponseValidator;
  /** Kept JSON bytes of the frozen values replies are made of (a listed file's view, say). */
  texts: TextCache;
  /** token → principal for API keys (see AuthContext). */
  keyPrincipals?: Map<string, string>;
  faults?: Faults;
  /** With --upstream: the proxy stage replaces read-body → validate → operate. */
  proxy?: ProxyDeps;
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

/** Python's `quote(url, safe=":/%#?=@[]!$&'()*+,;")`, which Starlette applies to a redirect. */
function quoteLocation(url: string): string {
  return Array.from(new TextEncoder().encode(url))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_.\-~:/%#?=@[\]!$&'()*+,;]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Handles one service request; returns false when the path is not the service's. */
export async function handleServiceRequest(req: IncomingMessage, res: ServerResponse, deps: PipelineDeps, facts: RequestFacts): Promise<boolean> {
  const target = splitTarget(req.url ?? '/');
  const rawPath = target.path;
  const rawQuery = target.query ?? '';
  const route = matchRoute(deps.operations, req.method ?? 'GET', rawPath);

  if (route.kind === 'not-found') return false;
  if (route.kind === 'redirect') {
    const location = quoteLocation(`http://${requestHost(req)}${route.path}${rawQuery ? `?${rawQuery}` : ''}`);
    res.writeHead(307, { Location: location, 'Content-Length': '0' });
    res.end();
    return true;
  }
  if (route.kind === 'method-not-allowed') {
    facts.service = true;
    sendError(res, new HttpError(405, DETAIL.methodNotAllowed, { Allow: route.allow }));
    return true;
  }

  const op = route.op;
  facts.service = true;
  facts.operationId = op.id;
  const auth: AuthContext = {
    mode: deps.authMode,
    signingKey: deps.store.signingKey,
    users: deps.store.scenario.users,
    apiKeys: deps.store.scenario.apiKeys,
    keyPrincipals: deps.keyPrincipals,
    now: deps.clock.now(),
    tokenTtlMs: deps.config.tokenTtlMs,
  };
  // A fault stands for the service failing: it applies right after routing, before anything
  // about the request is checked (CONTRACT §7).
  const fault = deps.faults?.take(op.id, op.secured ? principalOrNull(req.headers.authorization, auth) : null);
  if (fault) {
    if (fault.delay_ms > 0) await sleep(fault.delay_ms);
    if (fault.status === 0) {
      facts.dropped = true;
      req.socket.destroy();
      return true;
    }
    sendJsonText(res, fault.status, JSON.stringify(fault.body), fault.headers);
    return true;
  }
  if (deps.proxy) {
    const principal = op.secured ? principalOrNull(req.headers.authorization, auth) : null;
    if (principal) facts.principal = principal;
    await proxyRequest(req, res, op, route.pathParams, rawQuery, deps.proxy, facts);
    return true;
  }
  let body: ParsedBody = { kind: 'none' };
  let committed = false;
  try {
    if (op.body) body = await readBody(req, op.body.kind, { blobs: deps.store.blobs, maxUpload: deps.config.maxUploadBytes });
    const principal = op.secured ? authenticate(req.headers.authorization, auth) : null;
    if (principal) facts.principal = principal;
    facts.parsed = { operationId: op.id, body };
    const input = await validateInput(deps.validator, deps.document, op, { path: route.pathParams, query: parseQuery(rawQuery), headers: req.headers }, body);
    const prefer = parsePrefer(req.headers.prefer);
    if (prefer.delayMs) await sleep(prefer.delayMs);
    if (prefer.code !== undefined) {
      const preferred = preferredError(op, prefer.code);
      if (preferred) throw preferred;
      const warning = preferenceWarning(op, prefer.code);
      if (warning) res.setHeader('X-Mock-Warning', warning);
    }
    const workspace = principal ? await deps.store.workspace(principal) : null;
    const reply = await handlerFor(deps.handlers, op.id)(input, { workspace, principal, clock: deps.clock, blobs: deps.store.blobs, auth, config: deps.config });
    committed = true;
    send(res, op, reply, deps);
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    // Error answers are documented responses too: validate them like any other.
    // (Not the mock's own storage answers — 507 for a full disk, 500 for an unreadable data
    // file — which no service document lists.)
    if (e.status < 500) deps.validateResponse?.(op, e.status, 'application/json', JSON.parse(pyDumps({ detail: e.detail })));
    sendError(res, e);
  } finally {
    // The upload that was stored is committed (renamed); anything else parsed is dropped.
    await discardBody(body, deps.store.blobs, committed);
  }
  return true;
}

function principalOrNull(header: string | undefined, auth: AuthContext): string | null {
  try {
    return authenticate(header, auth);
  } catch {
    return null;
  }
}

function send(res: ServerResponse, op: Operation, reply: Reply, { validateResponse: validate, texts }: PipelineDeps) {
  if (reply.stream) {
    const stream = reply.stream;
    try {
      validate?.(op, reply.status, reply.headers?.['Content-Type'], undefined as unknown);
      res.writeHead(reply.status, reply.headers);
    } catch (e) {
      // The stream holds a descriptor from the moment it was made: close it on every way out.
      stream.destroy();
      throw e;
    }
    // pipeline (unlike pipe) destroys the source when the client goes away mid-download, so an
    // abandoned download closes its file instead of keeping it (and a deleted blob) open.
    pipeline(stream, res, (err) => {
      if (err) res.destroy();
    });
    return;
  }
  if (reply.json === undefined) {
    validate?.(op, reply.status, undefined, undefined);
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  validate?.(op, reply.status, 'application/json', reply.json);
  sendJsonBytes(res, reply.status, serializeJson(reply.json, texts), reply.headers);
}
