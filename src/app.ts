/**
 * createApp(options): the whole mock as an Express application that never listens (supertest
 * and startMockServer both mount it). Its state lives in the store it creates; nothing is
 * module-level.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { authenticate } from './auth.js';
import { corsMiddleware } from './cors.js';
import { allowedHostsGuard } from './guards/allowed-hosts.js';
import { isControlPlanePath, refuseCrossSite } from './guards/cross-site.js';
import { controlPlaneDocsRouter, docsRouter } from './docs.js';
import { landingPageRoute } from './landing-page.js';
import { inspectorRouter } from './ui/inspector-page.js';
import { Clock } from './primitives/clock.js';
import { buildOperations, readOpenApi, type OpenApiDocument, type Operation } from './openapi.js';
import { handlers } from './operations/index.js';
import { DEFAULTS, type MockOptions } from './options.js';
import { handleServiceRequest, type RequestFacts } from './pipeline/service-request.js';
import { sendError, sendJsonText } from './http/reply.js';
import { DETAIL, HttpError } from './errors/http-error.js';
import { StartupError, Store } from './store/store.js';
import type { DriftLog } from './proxy/drift.js';
import type { ProxyDeps } from './proxy/proxy-stage.js';
import type { ResponseValidator } from './validation/responses.js';
import { Coverage } from './control-plane/coverage.js';
import { createOpenApiValidator, type OpenApiRequestValidator } from './validation/eov.js';
import { loadMulter } from './http/body.js';
import { requestHost, splitTarget } from './http/request-target.js';
import { controlPlane, readControlPlaneDocument } from './control-plane/dispatch.js';
import { Faults } from './control-plane/faults.js';
import { DEFAULT_JOURNAL_SIZE, Journal, REDACTED, redactQuery } from './control-plane/journal.js';
import { isMockOwnPath, nearMiss } from './control-plane/near-miss.js';
import { parseQuery } from './python/url.js';

export interface MockRuntime {
  store: Store;
  clock: Clock;
  logger: Logger;
  operations: Operation[];
  document: OpenApiDocument;
  journal: Journal;
  faults: Faults;
  coverage: Coverage;
  /** Loads and compiles the validation stack (call after listen: /health never waits for it). */
  warm(stopped?: () => boolean): Promise<void>;
  /** With --upstream: where the real service's answers (and the client's requests) left openapi.json. */
  drift?: DriftLog;
  /** With --record: resolves once everything recorded so far is written. */
  flushRecording?: () => Promise<void>;
  /**
   * Resets one principal's workspace, or everything a test can change: the clock (back to its
   * state when the mock started), every workspace, the journal, the faults and the coverage.
   */
  reset(principal?: string): Promise<void>;
  /** Closes the store: flushes pending writes, removes in-memory blobs. */
  close(): Promise<void>;
}

export type MockApp = Express & { mock: MockRuntime };

/** The served document: the contract with `servers` pointing at where this instance answers. */
function servedDocument(doc: OpenApiDocument, req: Request): OpenApiDocument {
  return { ...doc, servers: [{ url: `http://${requestHost(req)}` }] };
}

/** Loaded only when asked for: Ajv and its compiled schemas are the dearest part of start-up. */
async function responseValidator(document: OpenApiDocument): Promise<ResponseValidator> {
  const { createResponseValidator } = await import('./validation/responses.js');
  return createResponseValidator(document);
}

/**
 * The proxy stage's parts, only with --upstream: Ajv and the strict schemas are loaded for it alone.
 */
async function proxyDeps(options: MockOptions, document: OpenApiDocument, validator: OpenApiRequestValidator, clock: Clock, logger: Logger): Promise<ProxyDeps | undefined> {
  if (!options.upstream) {
    if (options.record) throw new StartupError('--record needs --upstream: a recording is made of what the real service answers');
    if (options.recordSecretValues) throw new StartupError('--record-secret-values needs --record');
    return undefined;
  }
  if (options.recordSecretValues && !options.record) throw new StartupError('--record-secret-values needs --record');
  const { parseUpstream, ProxySetupError, UpstreamUrlError } = await import('./proxy/forward.js');
  let upstream;
  try {
    upstream = parseUpstream(options.upstream, options.upstreamTimeoutSeconds ?? DEFAULTS.upstreamTimeoutSeconds);
  } catch (e) {
    if (e instanceof UpstreamUrlError) throw new ProxySetupError(e.message);
    throw e;
  }
  const { DriftLog } = await import('./proxy/drift.js');
  const drift = new DriftLog(document, clock, logger);
  let recorder;
  if (options.record) {
    const { Recorder } = await import('./proxy/recorder.js');
    const file = resolve(options.cwd ?? process.cwd(), options.record);
    recorder = new Recorder(file, { upstreamOrigin: upstream.origin, clock, logger, secretValues: options.recordSecretValues ?? false });
    try {
      await recorder.write();
    } catch (e) {
      throw new ProxySetupError(`--record ${file}: cannot write there (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    logger.info({ file }, 'recording into one scenario everything seen through this proxy, whatever the token (tokens themselves are never recorded)');
  }
  logger.info({ upstream: upstream.origin }, 'forwarding service requests to the upstream; the local store is not used');
  return { upstream, drift, recorder, logger, validator, document };
}

/**
 * Creates the mock application.
 *
 * @example
 * ```ts
 * import request from 'supertest';
 * import { createApp } from 'cloud-browser-mock';
 *
 * const app = await createApp({ scenario: 'default' });
 * const res = await request(app).get('/mailboxes').set('Authorization', 'Bearer sk_test_demo');
 * // res.body.items[0].id === 'mbx_gmail'
 * await app.mock.close();
 * ```
 */
export async function createApp(options: MockOptions & { host?: string } = {}): Promise<MockApp> {
  const clock = options.clock ?? new Clock();
  // A clock passed in stays the caller's object; a full reset puts back the settings it had here.
  const clockAtStart = clock.state();
  const logger = pino({ level: options.logLevel ?? DEFAULTS.logLevel, base: undefined }, (options.logDestination as pino.DestinationStream | undefined) ?? pino.destination(1));
  const document = readOpenApi();
  const operations = buildOperations(document);
  // Checked before the store opens, so a bad --upstream/--record leaves nothing open behind it.
  // One express-openapi-validator for the document: the pipeline's, also the proxy's client-drift check.
  const validator = createOpenApiValidator(document);
  const proxy = await proxyDeps(options, document, validator, clock, logger);
  const store = await Store.open({
    // A proxy never uses the local store: kept in memory, so no data directory is made or touched.
    inMemory: proxy ? true : (options.inMemory ?? !options.dataDir),
    dataDir: !proxy && options.dataDir ? resolve(options.cwd ?? process.cwd(), options.dataDir) : undefined,
    scenario: options.scenario ?? DEFAULTS.scenario,
    seed: options.seed ?? DEFAULTS.seed,
    resetData: options.resetData,
    clock,
    cwd: options.cwd,
    workspacesInMemory: options.workspacesInMemory,
    warn: (line) => logger.warn(line),
  });
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE, options.journalMaxBytes);
  const faults = new Faults(operations.map((o) => o.id), options.seed ?? DEFAULTS.seed);
  const coverage = new Coverage(operations);
  // What a run leaves besides workspaces; a full reset and a scenario switch both start it over.
  const clearRunRecords = () => {
    journal.clear();
    faults.clear();
    coverage.clear();
  };
  const reset = async (principal?: string) => {
    if (principal !== undefined) return store.reset(principal);
    // The clock first: workspaces are rebuilt from the scenario at the clock's time.
    clock.restore(clockAtStart);
    await store.reset();
    clearRunRecords();
  };
  const deps = {
    faults,
    operations,
    document,
    validator,
    handlers,
    store,
    clock,
    authMode: options.auth ?? DEFAULTS.auth,
    config: {
      fileTtlMs: (options.fileTtlSeconds ?? DEFAULTS.fileTtlSeconds) * 1000,
      maxUploadBytes: options.maxUploadBytes ?? DEFAULTS.maxUploadBytes,
      tokenTtlMs: (options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds) * 1000,
    },
    validateResponse: options.validateResponses ? await responseValidator(document) : undefined,
    texts: store.texts,
    keyPrincipals: new Map<string, string>(),
    proxy,
  };

  const app = express() as unknown as MockApp;
  app.disable('x-powered-by');
  app.set('etag', false);

  // Before anything answers: a request addressed by a foreign name (DNS rebinding) gets nothing.
  app.use(allowedHostsGuard(options.allowedHosts ?? [], options.host));
  if (options.cors?.length) {
    // The control plane never takes part in CORS: no page on another origin may read it.
    const cors = corsMiddleware(options.cors);
    app.use((req: Request, res: Response, next: NextFunction) => (isControlPlanePath(req.url) ? next() : cors(req, res, next)));
  }
  // Service requests first: they are nearly all the traffic, and each Express layer they would
  // otherwise pass (health, openapi.json, docs, the control plane) costs them time on every
  // request. No service path is one of those paths, so the order changes no answer.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const startedAt = clock.now();
    const facts: RequestFacts = {};
    let done = false;
    const { path, query: rawQuery } = splitTarget(req.originalUrl);
    // Service requests, and every request the service would not know (a typo'd URL, a 307):
    // those leave a trace too, with operationId null. The mock's own pages and the control
    // plane never do (CONTRACT §7).
    const record = () => {
      if (done || (!facts.service && (isMockOwnPath(path) || res.locals.mockOwnPage))) return;
      done = true;
      // 0: the client got no answer (a dropped fault, or a connection cut before one was sent).
      const status = facts.dropped || !res.headersSent ? 0 : res.statusCode;
      const duration_ms = Math.round(Number(process.hrtime.bigint() - started) / 1e3) / 1e3;
      const operationId = facts.operationId ?? null;
      const principal = facts.principal ?? null;
      const hint = !operationId && (status === 404 || status === 405) ? nearMiss(operations, req.method, path) : undefined;
      const query = redactQuery(operationId, path, [...parseQuery(rawQuery ?? '')]);
      // The log line shows the URL with the journal's redactions (a password in /token's query).
      const url = rawQuery === undefined || query.every(([, v]) => v !== REDACTED) ? req.originalUrl : `${path}?${new URLSearchParams(query)}`;
      logger.info({ method: req.method, url, operationId, principal, status, duration_ms, ...(hint && { hint }) }, 'request');
      journal.record({ method: req.method, path, query: Object.fromEntries(query), operationId, principal, status, duration_ms, body: facts.body ?? null, ...(operationId ? {} : { hint: hint ?? null }) }, startedAt);
      if (operationId) coverage.record(operationId, status);
    };
    // Listening from the start: a request cut off while its handler still waits for the body
    // (a client gone, a shutdown) is recorded when its connection closes.
    res.once('finish', record);
    res.once('close', record);
    try {
      const handled = await handleServiceRequest(req, res, deps, facts);
      if (!handled) return next();
    } catch (e) {
      return next(e);
    } finally {
      if (facts.dropped) record();
    }
  });

  app.get('/health', (_req, res) => sendJsonText(res, 200, '{"status":"ok"}'));
  app.get('/openapi.json', (req, res) => sendJsonText(res, 200, JSON.stringify(servedDocument(document, req))));
  app.use(docsRouter(document.info.title));
  app.get('/', landingPageRoute(document.info.title, document.info.version));
  const controlPlaneDocument = readControlPlaneDocument();
  app.use(controlPlaneDocsRouter(controlPlaneDocument.info.title, controlPlaneDocument));
  app.use(inspectorRouter(document.info.title, Boolean(options.adminToken)));

  const control = controlPlane({
      store,
      clock,
      reset,
      clearRunRecords,
      journal,
      faults,
      coverage,
      adminToken: options.adminToken,
      fileTtlMs: deps.config.fileTtlMs,
      maxUploadBytes: deps.config.maxUploadBytes,
      principalOf: (token) => {
        const auth = { mode: deps.authMode, signingKey: store.signingKey, users: store.scenario.users, apiKeys: store.scenario.apiKeys };
        try {
          return authenticate(`Bearer ${token}`, auth);
        } catch {
          return null;
        }
      },
      drift: deps.proxy?.drift,
      operations,
  });
  app.use('/__mock', refuseCrossSite(), control);

  // Neither the service nor the mock's own paths: FastAPI's 404.
  app.use((_req: Request, res: Response) => sendError(res, new HttpError(404, DETAIL.notFound)));

  // An unexpected fault: logged with its stack, answered as FastAPI does, never leaking either.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
    // 507: the disk refused a write (storage-error.ts), an answer of its own, not a fault.
    if (error instanceof HttpError && error.status >= 500 && !res.headersSent) return sendError(res, error);
    if (typeof status === 'number' && status >= 400 && status < 500 && !res.headersSent) {
      return sendError(res, new HttpError(status, (error as Error).message.split('\n')[0]));
    }
    logger.error({ err: error, method: req.method, url: req.originalUrl }, 'unhandled error');
    if (res.headersSent) return void res.destroy();
    const body = Buffer.from('Internal Server Error');
    res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(body.length) });
    res.end(body);
  });

  app.mock = {
    store,
    clock,
    logger,
    operations,
    document,
    journal,
    faults,
    coverage,
    warm: async (stopped?: () => boolean) => {
      loadMulter();
      await validator.warm(stopped);
      await control.warm(stopped);
    },
    drift: deps.proxy?.drift,
    flushRecording: deps.proxy?.recorder ? () => deps.proxy!.recorder!.flush() : undefined,
    reset,
    close: async () => {
      await deps.proxy?.recorder?.flush();
      await store.close();
    },
  };
  return app;
}
