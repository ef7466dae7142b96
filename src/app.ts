/**
 * createApp(options): the whole mock as an Express application that never listens (supertest
 * and startMockServer both mount it). Its state lives in the store it opens (or is given) and
 * the journal, faults and coverage it creates; nothing is module-level.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { pino, type Logger } from 'pino';
import { authenticate } from './operations/auth.js';
import { corsMiddleware } from './web/cors.js';
import { allowedHostsGuard } from './guards/allowed-hosts.js';
import { crossSiteRefusal, isControlPlanePath } from './guards/cross-site.js';
import { controlPlaneDocsRouter, docsRouter } from './web/docs.js';
import { landingPageRoute } from './web/landing-page.js';
import { inspectorRouter } from './ui/inspector-page.js';
import { Clock } from './primitives/clock.js';
import { OWN_PATHS } from './primitives/own-paths.js';
import { buildOperations, readOpenApi, type OpenApiDocument, type Operation } from './document/openapi.js';
import { loadSpec } from './document/spec-file.js';
import { buildUnion } from './document/union.js';
import type { Answerer } from './answers/index.js';
import { Pins } from './records/pins.js';
import { handlers } from './operations/index.js';
import { DEFAULTS, durations, type MockOptions } from './options.js';
import { sendReply, stringifyJson } from './http/reply.js';
import { StartupError, type Store } from './store/store.js';
import { createStore } from './app/create-store.js';
import type { DriftLog } from './proxy/drift.js';
import { Coverage } from './control-plane/coverage.js';
import { createOpenApiValidator } from './validation/eov.js';
import { loadMulter } from './http/body.js';
import { requestHost } from './http/request-target.js';
import { controlPlane, readControlPlaneDocument } from './control-plane/dispatch.js';
import { Faults } from './records/faults.js';
import { scenarioPinsProblem } from './control-plane/pin-checks.js';
import { ScenarioError, scenarioPath, type LoadedScenario } from './scenarios/scenario.js';
import { Journal } from './records/journal.js';
import { notFound, unexpectedError } from './app/error-handlers.js';
import { proxyDeps, responseValidator } from './app/proxy-deps.js';
import { serviceRequests } from './app/service-requests.js';

export interface MockRuntime {
  store: Store;
  clock: Clock;
  logger: Logger;
  operations: Operation[];
  document: OpenApiDocument;
  journal: Journal;
  faults: Faults;
  /** Pinned answers of the operations a --spec document adds: the scenario's and those added at run time. */
  pins: Pins;
  coverage: Coverage;
  /** With --spec: the generator answering the added operations (over `document`, the union). */
  answerer?: Answerer;
  /** Loads and compiles the validation stack (call after listen: /health never waits for it). */
  warm(stopped?: () => boolean): Promise<void>;
  /** With --upstream: where the real service's answers (and the client's requests) left openapi.json. */
  drift?: DriftLog;
  /** With --record: resolves once everything recorded so far is written. */
  flushRecording?: () => Promise<void>;
  /**
   * Resets one principal's workspace, or everything a test can change: the clock (back to its
   * state when the mock started), every workspace, the journal, the faults, the coverage and the
   * pins (those added at run time go, the scenario's come back).
   */
  reset(principal?: string): Promise<void>;
  /** Closes the store: flushes pending writes, removes in-memory blobs. */
  close(): Promise<void>;
}

export type MockApp = Express & { mock: MockRuntime };

export interface AppOptions extends MockOptions {
  /** The name the mock is reached by (startMockServer's bind address), for the allowed-hosts guard. */
  host?: string;
  /**
   * A store to use instead of opening one (json-server's `createApp(db)`): a test arranges data
   * in it (createStore) and reads it over HTTP. The scenario, seed and data-directory options are
   * then the store's; its clock is the app's. `app.mock.close()` closes it.
   */
  store?: Store;
}

/** The served document: the contract with `servers` pointing at where this instance answers. */
function servedDocument(doc: OpenApiDocument, req: Request): OpenApiDocument {
  return { ...doc, servers: [{ url: `http://${requestHost(req)}` }] };
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
export async function createApp(options: AppOptions = {}): Promise<MockApp> {
  if (options.store && options.clock && options.clock !== options.store.clock) {
    throw new StartupError('createApp: options.clock is not the clock of options.store; leave clock out (the store\'s is used) or open the store with it');
  }
  const clock = options.clock ?? options.store?.clock ?? new Clock();
  // A clock passed in stays the caller's object; a full reset puts back the settings it had here.
  const clockAtStart = clock.state();
  const logger = pino({ level: options.logLevel ?? DEFAULTS.logLevel, base: undefined }, (options.logDestination as pino.DestinationStream | undefined) ?? pino.destination(1));
  // With --spec, the served document is the union (document/union.ts); without it, openapi.json.
  const builtIn = readOpenApi();
  const union = options.spec !== undefined ? buildUnion(builtIn, loadSpec(options.spec, options.cwd), options.spec) : undefined;
  if (union?.warning) logger.warn(union.warning);
  const document = union?.document ?? builtIn;
  const operations = buildOperations(document, new Set(union?.added));
  // The generator (json-schema-faker) is loaded only with --spec: without it, start-up reads none of it.
  const answers = union ? await import('./answers/index.js') : undefined;
  const answerer = answers?.createAnswerer(document);
  // Checked before the store opens, so a bad --upstream/--record leaves nothing open behind it.
  // One express-openapi-validator for the document: the pipeline's, also the proxy's client-drift check.
  // The fifteen's operations keep their dereferenced validators with --spec (the built-in document has no cycle).
  const validator = createOpenApiValidator(document, union ? 'bundle' : 'dereference', new Set(operations.filter((o) => !o.added).map((o) => o.id)));
  const { fileTtlMs, tokenTtlMs, upstreamTimeoutMs } = durations(options);
  const proxy = await proxyDeps(options, upstreamTimeoutMs, document, validator, clock, logger);
  const pins = new Pins(operations.map((o) => ({ id: o.id, pathParams: o.pathParams, statuses: o.statuses })));
  const pinChecks = { pins, checkPinBody: answerer ? (operationId: string, status: number, body: unknown) => answerer.validateAnswer(operationId, status, body) : undefined };
  // Checked as the scenario loads, before a data directory is made for it.
  const acceptScenario = (scenario: LoadedScenario) => {
    const problem = scenarioPinsProblem(pinChecks, scenario.pins);
    if (!problem) return;
    const line = `scenario file ${scenarioPath(scenario.ref, options.cwd)}: ${problem}`;
    throw new StartupError(line, { cause: new ScenarioError(line) });
  };
  // A store passed in is used as it is (its scenario, seed, data directory); else one is opened.
  if (options.store) acceptScenario(options.store.scenario);
  const store = options.store ?? (await createStore({ ...options, clock }, { proxy: Boolean(proxy), warn: (line) => logger.warn(line), onCompaction: (c) => logger.debug(c, 'workspace compacted'), acceptScenario }));
  const journal = new Journal(options.journalSize ?? DEFAULTS.journalSize, options.journalMaxBytes ?? DEFAULTS.journalMaxBytes);
  const faults = new Faults(operations.map((o) => o.id), store.seed);
  const coverage = new Coverage(operations);
  pins.loadScenario(store.scenario.pins);
  // What a run leaves besides workspaces; a full reset and a scenario switch both start it over,
  // the faults' random generator included (from the seed the store now runs with), and the pins
  // with the active scenario's.
  const clearRunRecords = () => {
    journal.clear();
    faults.restart(store.seed);
    coverage.clear();
    pins.loadScenario(store.scenario.pins);
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
      fileTtlMs,
      maxUploadBytes: options.maxUploadBytes ?? DEFAULTS.maxUploadBytes,
      tokenTtlMs,
    },
    validateResponse: options.validateResponses ? await responseValidator(document) : undefined,
    texts: store.texts,
    keyPrincipals: new Map<string, string>(),
    proxy,
    added: answers && answerer ? { answerer, PreferError: answers.PreferError, pins, seed: options.seed ?? store.seed } : undefined,
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
  app.use(serviceRequests({ clock, logger, operations, journal, coverage, deps }));

  const healthy = Object.freeze({ status: 200, jsonText: '{"status":"ok"}' });
  app.get(OWN_PATHS.health, (_req, res) => sendReply(res, healthy, stringifyJson));
  app.get(OWN_PATHS.document, (req, res) => sendReply(res, { status: 200, json: servedDocument(document, req) }, stringifyJson));
  app.use(docsRouter(document.info.title));
  app.get(OWN_PATHS.landing, landingPageRoute(document.info.title, document.info.version));
  // Parsed once: its Swagger UI page and the control plane's routing and validation read this one.
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
      ...pinChecks,
      coverage,
      adminToken: options.adminToken,
      guard: crossSiteRefusal,
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
      validateResponses: options.validateResponses,
      logger,
  }, controlPlaneDocument);
  app.use(OWN_PATHS.controlPlane, control);

  app.use(notFound);
  app.use(unexpectedError(logger));

  app.mock = {
    store,
    clock,
    logger,
    operations,
    document,
    journal,
    faults,
    pins,
    coverage,
    answerer,
    warm: async (stopped?: () => boolean) => {
      // The service's validators only: the control plane's compile on its first use, which
      // keeps the idle process ~6 MiB smaller (BENCHMARKS.md) for a one-off cost on that call.
      await loadMulter();
      await validator.warm(stopped);
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
