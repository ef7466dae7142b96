/**
 * What a control-plane handler sees: the validated input (express-openapi-validator checked it
 * against control-plane.openapi.json) and the mock's state — never the request or the response:
 * it returns a Reply (http/reply.ts), which the reply stage writes. One handler per operationId of
 * that document, typed from it; the dispatcher (dispatch.ts) routes to it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { HttpError } from '../errors/http-error.js';
import type { Reply } from '../http/reply.js';
import type { Operation } from '../document/openapi.js';
import type { OperationId as ControlOperationId, Operations as ControlOperations } from '../generated/control-plane-api.js';
import type { InputOf, ValidatedInput } from '../operations/types.js';
import type { DriftLog } from '../proxy/drift.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../primitives/clock.js';
import type { Coverage } from './coverage.js';
import type { Faults } from '../records/faults.js';
import type { Pins } from '../records/pins.js';
import type { Journal } from '../records/journal.js';

export interface ControlPlaneDeps {
  store: Store;
  clock: Clock;
  journal: Journal;
  faults: Faults;
  /** Pinned answers of the operations a --spec document adds (pin-handlers.ts). */
  pins: Pins;
  /**
   * Why `body` is not an answer `operationId` documents for `status` (one line naming the path in
   * the body), or undefined when it is; absent: pinned bodies are not checked. Only asked about a
   * pin that has a body.
   */
  checkPinBody?: (operationId: string, status: number, body: unknown) => string | undefined;
  coverage: Coverage;
  /** The full reset (clock, workspaces, journal, faults, coverage) or one principal's. */
  reset(principal?: string): Promise<void>;
  /** Clears the journal, the faults and the coverage (a full reset does too). */
  clearRunRecords(): void;
  adminToken?: string;
  /** The guards stage: a request the app refuses before anything else (a cross-site one), or null. */
  guard?: (headers: IncomingHttpHeaders) => HttpError | null;
  fileTtlMs: number;
  maxUploadBytes: number;
  /** The principal a bearer token authenticates as, or null when --auth strict refuses it. */
  principalOf(token: string): string | null;
  /** Drift records of the --upstream proxy. */
  drift?: DriftLog;
  operations?: Operation[];
  /** Check every answer against control-plane.openapi.json (--validate-responses). */
  validateResponses?: boolean;
  /** Where a failed response check is reported. */
  logger?: Logger;
}

/** What a handler for `Id` sees beside its input; `operationId` ties `json()`'s answer to Id's responses. */
export interface ControlContext<Id extends ControlOperationId = ControlOperationId> {
  deps: ControlPlaneDeps;
  /** control-plane.openapi.json as loaded. */
  document: Record<string, unknown>;
  operationId: Id;
}

/** One operation's input, as src/generated/control-plane-api.ts derives it from control-plane.openapi.json. */
export type ControlInput<Id extends ControlOperationId> = InputOf<ControlOperations[Id]>;

/** A control-plane handler returns its answer (JSON, XML text, a streamed export, or no content). */
export type ControlHandler<Id extends ControlOperationId> = (input: ControlInput<Id>, ctx: ControlContext<Id>) => Promise<Reply> | Reply;

/** One handler per operationId of control-plane.openapi.json: a missing one fails to compile. */
export type ControlHandlerMap = { [Id in ControlOperationId]: ControlHandler<Id> };

/** The statuses documented for Id. */
export type ControlStatus<Id extends ControlOperationId> = Extract<keyof ControlOperations[Id]['responses'], number>;

/** The JSON body documented for Id's answer with status S. */
export type ControlJson<Id extends ControlOperationId, S extends ControlStatus<Id>> = ControlOperations[Id]['responses'][S] extends { 'application/json': infer J } ? J : never;

/**
 * The handler for a routed operation, as the dispatcher calls it: where the validated (untyped)
 * input meets the generated types; validateInput checked it against the same document.
 */
export function controlHandlerFor(handlers: ControlHandlerMap, id: string) {
  return handlers[id as ControlOperationId] as unknown as (input: ValidatedInput, ctx: ControlContext) => Promise<Reply> | Reply;
}
