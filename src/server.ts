/** startMockServer(): createApp plus a listening HTTP server, for tests and the CLI. */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type MockApp } from './app.js';
import { controlClient, type MockControl } from './control-client.js';
import { DEFAULTS, type ServerOptions } from './options.js';
import { defaultMaxConnections, limitConnections } from './http/connection-limits.js';

// The options type lives with the others in options.ts, which the CLI's parser reads too.
export type { ServerOptions } from './options.js';

/**
 * The mock this process started: the control handle every test stack shares (`MockControl`,
 * asynchronous, over the control plane's HTTP API, as connectMockServer() returns it) plus what
 * only the starter has.
 */
export interface MockServer extends MockControl {
  port: number;
  app: MockApp;
  /**
   * Stops accepting connections, lets in-flight requests finish (up to `shutdownGraceMs`, then
   * cuts them off, logs them and removes their temporary uploads), flushes state.
   */
  close(): Promise<void>;
  /** How many requests are being answered right now. */
  pendingRequests(): number;
}

/**
 * Starts the mock on a free port with an in-memory store (unless `dataDir` is given).
 *
 * @example
 * ```ts
 * import { startMockServer } from 'cloud-browser-mock';
 *
 * const mock = await startMockServer();
 * const res = await fetch(`${mock.url}/secrets`, { headers: { Authorization: 'Bearer sk_test_demo' } });
 * // (await res.json()).items → the default scenario's secrets
 *
 * await mock.faults.add({ operationId: 'listMailboxes', status: 503, times: 1 }); // next call fails once
 * await mock.clock.advance('P8D');                                                 // files expire
 * await mock.requests({ operationId: 'listSecrets' });                             // what the client sent
 * await mock.close();
 * ```
 */
/** Idle time after listen before the validators are loaded, when no request came first. */
const WARM_AFTER_MS = 300;

/** Resolves once the log's destination has written what it holds (at once for a synchronous one). */
export function flushLog(app: MockApp): Promise<void> {
  // A flush error (fsync on a pipe: EINVAL) is no reason to fail a stop: the lines are written.
  return new Promise((resolve) => app.mock.logger.flush(() => resolve()));
}

export async function startMockServer(options: ServerOptions = {}): Promise<MockServer> {
  const app = await createApp(options);
  // A client that sends its headers slowly is cut off after headersTimeout; it never blocks
  // others (the server is asynchronous).
  const headersTimeout = options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs;
  // A body may take as long as it takes while bytes keep coming; one idle for
  // bodyIdleTimeoutMs is answered 408, and connections over the cap 503 (http/connection-limits.ts).
  const server: Server = createServer({ requestTimeout: 0, headersTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) });
  server.on(
    'request',
    limitConnections(server, app, {
      maxConnections: options.maxConnections ?? defaultMaxConnections(),
      idleMs: options.bodyIdleTimeoutMs ?? DEFAULTS.bodyIdleTimeoutMs,
    }),
  );
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    // Once shutting down, every answer closes its connection, so none lingers as keep-alive.
    if (stopping) res.shouldKeepAlive = false;
    res.on('close', () => inFlight.delete(res));
    // An answer that was already under way when shutdown began leaves its keep-alive connection
    // idle only once it is out; close that connection then, not after keepAliveTimeout.
    res.on('finish', () => {
      if (stopping) setImmediate(() => server.closeIdleConnections());
    });
  });
  const host = options.host ?? DEFAULTS.host;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULTS.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await app.mock.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  // The validation stack loads and compiles after listen (issue 12). Loading blocks the event
  // loop for a moment, so it starts once the first answer (a readiness probe's /health, most
  // often) has gone out, or after WARM_AFTER_MS without a request.
  if (options.warm ?? DEFAULTS.warm) {
    let started = false;
    const warm = () => {
      if (started || stopping) return;
      started = true;
      const began = Date.now();
      void app.mock
        .warm(() => stopping)
        // A line a test (or a curious user at --log-level debug) can wait for.
        .then(() => app.mock.logger.debug({ duration_ms: Date.now() - began }, 'validators warmed'))
        .catch((e) => app.mock.logger.error({ err: e }, 'validator warm-up failed'));
    };
    setTimeout(warm, WARM_AFTER_MS).unref();
    server.once('request', (_req, res: ServerResponse) => res.once('finish', () => setImmediate(warm)));
  }
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  // The same client connectMockServer() returns, over this server's own control plane: one
  // implementation, so both handles validate, convert and fail alike.
  return {
    ...controlClient(`http://${urlHost}:${port}`, { adminToken: options.adminToken }),
    port,
    app,
    pendingRequests: () => inFlight.size,
    close: () =>
      (closing ??= (async () => {
        // Stop accepting; let in-flight requests finish within the grace period; cut off what
        // is left (logged, its temporary upload removed); then flush.
        stopping = true;
        for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
        const graceMs = options.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs;
        const deadline = setTimeout(() => {
          for (const res of inFlight) {
            app.mock.logger.warn({ method: res.req.method, url: res.req.url, answering: res.headersSent }, `shutdown: request cut off after ${graceMs / 1000} s`);
          }
          server.closeAllConnections();
        }, graceMs);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        clearTimeout(deadline);
        await app.mock.store.blobs.discardTemps();
        await app.mock.close();
        // An asynchronous log destination (the CLI's) has its last lines out before close() resolves.
        await flushLog(app);
      })()),
  };
}
