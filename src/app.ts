/**
 * createApp(options): the whole mock as an Express application that never listens (supertest
 * and startMockServer both mount it). Its state is one runtime (runtime/runtime.ts, built by
 * app/create-runtime.ts): the store it opens (or is given), the clock, the auth configuration,
 * the journal, faults, coverage and pins; both APIs read it, and `app.mock` is it. Nothing is
 * module-level.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { corsMiddleware } from './web/cors.js';
import { allowedHostsGuard } from './guards/allowed-hosts.js';
import { crossSiteRefusal, isControlPlanePath } from './guards/cross-site.js';
import { controlPlaneDocsRouter, docsRouter } from './web/docs.js';
import { landingPageRoute } from './web/landing-page.js';
import { inspectorRouter } from './ui/inspector-page.js';
import type { OpenApiDocument } from './document/openapi.js';
import type { MockOptions } from './options.js';
import { OWN_PATHS } from './primitives/own-paths.js';
import { sendReply, stringifyJson } from './http/reply.js';
import type { Store } from './store/store.js';
import { requestHost } from './http/request-target.js';
import { controlPlane, readControlPlaneDocument } from './control-plane/dispatch.js';
import { notFound, unexpectedError } from './app/error-handlers.js';
import { serviceRequests } from './app/service-requests.js';
import { createRuntime } from './app/create-runtime.js';
import type { MockRuntime } from './runtime/runtime.js';

export type { MockRuntime } from './runtime/runtime.js';

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
  // Everything both APIs and the proxy read, built once: the store, the clock, the one auth
  // configuration, the document and its validator, the journal, faults, coverage and pins.
  const runtime = await createRuntime(options);
  const { logger, document } = runtime;

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
  app.use(serviceRequests(runtime));

  const healthy = Object.freeze({ status: 200, jsonText: '{"status":"ok"}' });
  app.get(OWN_PATHS.health, (_req, res) => sendReply(res, healthy, stringifyJson));
  app.get(OWN_PATHS.document, (req, res) => sendReply(res, { status: 200, json: servedDocument(document, req) }, stringifyJson));
  app.use(docsRouter(document.info.title));
  app.get(OWN_PATHS.landing, landingPageRoute(document.info.title, document.info.version));
  // Parsed once: its Swagger UI page and the control plane's routing and validation read this one.
  const controlPlaneDocument = readControlPlaneDocument();
  app.use(controlPlaneDocsRouter(controlPlaneDocument.info.title, controlPlaneDocument));
  app.use(inspectorRouter(document.info.title, Boolean(options.adminToken)));

  const control = controlPlane(runtime, { adminToken: options.adminToken, guard: crossSiteRefusal, validateResponses: options.validateResponses }, controlPlaneDocument);
  app.use(OWN_PATHS.controlPlane, control);

  app.use(notFound);
  app.use(unexpectedError(logger));

  // The runtime itself, seen through its public type.
  app.mock = runtime;
  return app;
}
