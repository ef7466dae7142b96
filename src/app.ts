/**
 * createApp(options): the whole mock as an Express application that never listens (supertest
 * and startMockServer both mount it). Its state lives in the store it creates; nothing is
 * module-level.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { corsMiddleware } from './cors.js';
import { controlPlaneDocsRouter, docsRouter } from './docs.js';
import { landingPageRoute } from './landing-page.js';
import { Clock } from './mock/clock.js';
import { buildOperations, readOpenApi, type OpenApiDocument, type Operation } from './openapi.js';
import { handlers } from './operations/index.js';
import { DEFAULTS, type MockOptions } from './options.js';
import { handleServiceRequest, sendError, sendJsonText, type RequestFacts } from './pipeline.js';
import { DETAIL, HttpError } from './errors/http-error.js';
import { Store } from './store/store.js';
import type { ResponseValidator } from './validation/responses.js';
import { Coverage } from './mock/coverage.js';
import { controlPlane, readControlPlaneDocument } from './mock/control-plane.js';
import { Faults } from './mock/faults.js';
import { DEFAULT_JOURNAL_SIZE, Journal } from './mock/journal.js';
import { isMockOwnPath, nearMiss } from './mock/near-miss.js';
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
  const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return { ...doc, servers: [{ url: `http://${host}` }] };
}

/** Loaded only when asked for: Ajv and its compiled schemas are the dearest part of start-up. */
async function responseValidator(document: OpenApiDocument): Promise<ResponseValidator> {
  const { createResponseValidator } = await import('./validation/responses.js');
  return createResponseValidator(document);
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
export async function createApp(options: MockOptions = {}): Promise<MockApp> {
  const clock = options.clock ?? new Clock();
  // A clock passed in stays the caller's object; a full reset puts back the settings it had here.
  const clockAtStart = clock.state();
  const logger = pino({ level: options.logLevel ?? DEFAULTS.logLevel, base: undefined }, (options.logDestination as pino.DestinationStream | undefined) ?? pino.destination(1));
  const store = await Store.open({
    inMemory: options.inMemory ?? !options.dataDir,
    dataDir: options.dataDir ? resolve(options.cwd ?? process.cwd(), options.dataDir) : undefined,
    scenario: options.scenario ?? DEFAULTS.scenario,
    seed: options.seed ?? DEFAULTS.seed,
    resetData: options.resetData,
    clock,
    cwd: options.cwd,
  });
  const document = readOpenApi();
  const operations = buildOperations(document);
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE);
  const faults = new Faults(options.seed ?? DEFAULTS.seed);
  const coverage = new Coverage(operations);
  const reset = async (principal?: string) => {
    if (principal !== undefined) return store.reset(principal);
    // The clock first: workspaces are rebuilt from the scenario at the clock's time.
    clock.restore(clockAtStart);
    await store.reset();
    journal.clear();
    faults.clear();
    coverage.clear();
  };
  const deps = {
    faults,
    operations,
    handlers,
    store,
    clock,
    authMode: options.auth ?? DEFAULTS.auth,
    config: {
      fileTtlMs: (options.fileTtlSeconds ?? DEFAULTS.fileTtlSeconds) * 1000,
      maxUploadBytes: options.maxUploadBytes ?? DEFAULTS.maxUploadBytes,
    },
    validateResponse: options.validateResponses ? await responseValidator(document) : undefined,
    texts: new WeakMap(),
    keyPrincipals: new Map<string, string>(),
  };

  const app = express() as unknown as MockApp;
  app.disable('x-powered-by');
  app.set('etag', false);

  if (options.cors?.length) app.use(corsMiddleware(options.cors));
  // Service requests first: they are nearly all the traffic, and each Express layer they would
  // otherwise pass (health, openapi.json, docs, the control plane) costs them time on every
  // request. No service path is one of those paths, so the order changes no answer.
  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const startedAt = clock.now();
    const facts: RequestFacts = {};
    let done = false;
    const [path, query = ''] = req.originalUrl.split(/\?(.*)/s);
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
      logger.info({ method: req.method, url: req.originalUrl, operationId, principal, status, duration_ms, ...(hint && { hint }) }, 'request');
      journal.record({ method: req.method, path, query: Object.fromEntries(parseQuery(query)), operationId, principal, status, duration_ms, body: facts.body ?? null, ...(operationId ? {} : { hint: hint ?? null }) }, startedAt);
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

  app.use(
    '/__mock',
    controlPlane({
      store,
      clock,
      reset,
      journal,
      faults,
      coverage,
      adminToken: options.adminToken,
      fileTtlMs: deps.config.fileTtlMs,
      maxUploadBytes: deps.config.maxUploadBytes,
      serviceOperationIds: operations.map((o) => o.id),
    }),
  );

  // Neither the service nor the mock's own paths: FastAPI's 404.
  app.use((_req: Request, res: Response) => sendError(res, new HttpError(404, DETAIL.notFound)));

  // An unexpected fault: logged with its stack, answered as FastAPI does, never leaking either.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number }).status;
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
    reset,
    close: () => store.close(),
  };
  return app;
}
