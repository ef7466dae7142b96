/**
 * The runtime: the one typed context the service's pipeline, the proxy stage and the control
 * plane all read — the store, the clock, the one auth configuration (operations/auth.ts), the
 * served document and its validator, and the run's records (journal, faults, coverage, pins) with
 * how they start over. createRuntime (app/create-runtime.ts) builds it once per app from the
 * options; `app.mock` is this same object seen through its public type, MockRuntime.
 */
import type { Logger } from 'pino';
import type { Answerer, PreferError } from '../answers/index.js';
import type { OpenApiDocument, Operation } from '../document/openapi.js';
import { loadMulter } from '../http/body.js';
import type { Auth } from '../operations/auth.js';
import type { Clock, ClockState } from '../primitives/clock.js';
import type { DriftLog } from '../proxy/drift.js';
import type { ProxyDeps } from '../proxy/proxy-stage.js';
import type { Coverage } from '../records/coverage.js';
import type { Faults } from '../records/faults.js';
import type { Journal } from '../records/journal.js';
import type { Pins } from '../records/pins.js';
import type { Store } from '../store/store.js';
import type { OpenApiRequestValidator } from '../validation/eov.js';
import type { ResponseValidator } from '../validation/responses.js';

/** `app.mock`: the runtime as a test in the same process may use it (documented in docs/testing.md). */
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

/** With --spec: how the operations the supplied document added are answered. */
export interface AddedDeps {
  answerer: Answerer;
  /** The generator's error for a `Prefer: code=` the operation does not document (the class, loaded with it). */
  PreferError: typeof PreferError;
  pins: Pins;
  /** --seed: generated values are a function of it, the operationId and the request. */
  seed: number | string;
}

/** The whole runtime: the public view and what only the mock's own layers read. */
export interface Runtime extends MockRuntime {
  /** The one auth configuration: the service's stages and `POST /__mock/principal` read it. */
  auth: Auth;
  /** express-openapi-validator over `document`: the validate stage's, and the proxy's client-drift check. */
  validator: OpenApiRequestValidator;
  fileTtlMs: number;
  maxUploadBytes: number;
  /**
   * Why `body` is not an answer `operationId` documents for `status`, or undefined when it is;
   * absent: pinned bodies are not checked (only a --spec union has a generator to check them).
   */
  checkPinBody?: (operationId: string, status: number, body: unknown) => string | undefined;
  added?: AddedDeps;
  /** With --upstream: the proxy stage replaces read body → operate. */
  proxy?: ProxyDeps;
  /** --validate-responses: the service's answers are checked with this; the control plane's with its own. */
  validateResponse?: ResponseValidator;
  /** Clears the journal, the faults and the coverage, and restores the scenario's pins (a full reset does too). */
  clearRunRecords(): void;
}

/** What createRuntime has built; assembleRuntime adds how it resets, warms and closes. */
export type RuntimeParts = Omit<Runtime, 'reset' | 'clearRunRecords' | 'warm' | 'close' | 'drift' | 'flushRecording'> & {
  /** The clock's settings when the mock started: a full reset puts them back. */
  clockAtStart: ClockState;
};

export function assembleRuntime({ clockAtStart, ...parts }: RuntimeParts): Runtime {
  const { store, clock, journal, faults, coverage, pins, validator, proxy } = parts;
  // What a run leaves besides workspaces; a full reset and a scenario switch both start it over,
  // the faults' random generator included (from the seed the store now runs with), and the pins
  // with the active scenario's.
  const clearRunRecords = () => {
    journal.clear();
    faults.restart(store.seed);
    coverage.clear();
    pins.loadScenario(store.scenario.pins);
  };
  return {
    ...parts,
    drift: proxy?.drift,
    flushRecording: proxy?.recorder ? () => proxy.recorder!.flush() : undefined,
    clearRunRecords,
    async reset(principal?: string) {
      if (principal !== undefined) return store.reset(principal);
      // The clock first: workspaces are rebuilt from the scenario at the clock's time.
      clock.restore(clockAtStart);
      await store.reset();
      clearRunRecords();
    },
    async warm(stopped?: () => boolean) {
      // The service's validators only: the control plane's compile on its first use, which
      // keeps the idle process ~6 MiB smaller (BENCHMARKS.md) for a one-off cost on that call.
      await loadMulter();
      await validator.warm(stopped);
    },
    async close() {
      await proxy?.recorder?.flush();
      await store.close();
    },
  };
}
