/**
 * What a control-plane handler sees: the validated input (express-openapi-validator checked it
 * against control-plane.openapi.json) and the mock's state — never the request or the response:
 * it returns a Reply (http/reply.ts), which the reply stage writes. One handler per operationId of
 * that document, typed from it; the dispatcher (dispatch.ts) routes to it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpError } from '../errors/http-error.js';
import type { Reply } from '../http/reply.js';
import type { OperationId as ControlOperationId, Operations as ControlOperations } from '../generated/control-plane-api.js';
import type { InputOf, ValidatedInput } from '../operations/types.js';
import type { Runtime } from '../runtime/runtime.js';

/**
 * The app's refusals and options around the control plane — not state: the handlers read the
 * runtime (runtime/runtime.ts), the same object the service's pipeline reads.
 */
export interface ControlPlaneOptions {
  adminToken?: string;
  /** The guards stage: a request the app refuses before anything else (a cross-site one), or null. */
  guard?: (headers: IncomingHttpHeaders) => HttpError | null;
  /** Check every answer against control-plane.openapi.json (--validate-responses). */
  validateResponses?: boolean;
}

/** What a handler for `Id` sees beside its input; `operationId` ties `json()`'s answer to Id's responses. */
export interface ControlContext<Id extends ControlOperationId = ControlOperationId> {
  /** The mock's state: store, clock, auth, journal, faults, coverage, pins, reset. */
  deps: Runtime;
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
