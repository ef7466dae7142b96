/**
 * What a handler sees: plain validated input and a context. Never `req`/`res`, never lowdb,
 * never a global clock (STYLE.md, conventions 2 and 5).
 */
import type { Readable } from 'node:stream';
import type { AuthContext } from './auth.js';
import type { UploadedPart } from '../http/body.js';
import type { Reply } from '../http/reply.js';
import type { Clock } from '../primitives/clock.js';
import type { OperationId, Operations } from '../generated/service-api.js';
import type { Workspace } from '../store/workspace.js';

/**
 * What the validate stage hands over, before it is typed: validateInput checked it against the
 * document (every declared parameter present, null when absent with no default).
 */
export interface ValidatedInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  /** The validated JSON or form body; undefined when an optional body was absent. */
  body: unknown;
  /** The uploaded binary part of a multipart operation. */
  upload?: UploadedPart;
}

/** One operation's input, as src/generated/service-api.ts derives it from openapi.json. */
export type OperationInput<Id extends OperationId> = InputOf<Operations[Id]>;

/** The input of a generated operation type (shared with the control plane's document). */
export type InputOf<Op extends { path: unknown; query: unknown; headers: unknown; body: unknown; upload: unknown }> = {
  path: Op['path'];
  query: Op['query'];
  headers: Op['headers'];
  body: Op['body'];
} & ([Op['upload']] extends [never] ? { upload?: undefined } : { upload: UploadedPart });

export interface OperationConfig {
  fileTtlMs: number;
  maxUploadBytes: number;
}

export interface OperationContext {
  /** The caller's workspace; null only for createToken, which has no caller yet. */
  workspace: Workspace | null;
  principal: string | null;
  clock: Clock;
  auth: AuthContext;
  config: OperationConfig;
}

/** An answer as the reply stage writes it (http/reply.ts); a handler's is typed by OperationReply. */
export type { Reply } from '../http/reply.js';

/** Handlers answer only with success; errors are thrown as HttpError. */
type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** The answer for one status: JSON, streamed bytes, or nothing, as the document's media types say. */
// No content is `Record<string, never>`, whose keys are any string.
type ReplyFor<S, Content> = string extends keyof Content
  ? { status: S; headers?: Record<string, string> }
  : Content extends { 'application/json': infer J }
    ? { status: S; json: J; headers?: Record<string, string> }
    : { status: S; stream: Readable; headers: Record<string, string> };

/** What an operation may answer with, per documented success status (generated from openapi.json). */
export type OperationReply<Id extends OperationId> = {
  [S in Extract<keyof Operations[Id]['responses'], SuccessStatus>]: ReplyFor<S, Operations[Id]['responses'][S]>;
}[Extract<keyof Operations[Id]['responses'], SuccessStatus>];

export type Handler<Id extends OperationId> = (input: OperationInput<Id>, ctx: OperationContext) => Promise<OperationReply<Id>>;

/** One handler per operationId of openapi.json, each typed for its own operation: a missing one fails to compile. */
export type HandlerMap = { [Id in OperationId]: Handler<Id> };

/**
 * The handler for a routed operation, as the pipeline calls it. The one place the generated
 * types meet the untyped request: validateInput checked the input against the same document.
 */
export function handlerFor(handlers: HandlerMap, id: OperationId): (input: ValidatedInput, ctx: OperationContext) => Promise<Reply> {
  return handlers[id] as unknown as (input: ValidatedInput, ctx: OperationContext) => Promise<Reply>;
}

/** The caller's workspace, for operations that have a caller. */
export function workspaceOf(ctx: OperationContext): Workspace {
  if (!ctx.workspace) throw new Error('operation needs an authenticated workspace');
  return ctx.workspace;
}

/** The statuses whose `detail` depends on the operation when a `Prefer: code=` asks for them. */
type PreferredStatus = 400 | 404 | 413;

/**
 * What the mock knows about one operation beyond openapi.json (its path, parameters and statuses
 * come from the document). Kept beside the operation's handler; the map of them is typed by the
 * generated operation ids, so an operation without one fails to compile, and an operation that
 * documents a 400, 404 or 413 must name its detail.
 */
export interface OperationDescriptor<Id extends OperationId = OperationId> {
  /** The `detail` of the error `Prefer: code=N` answers, for each of 400/404/413 the operation documents. */
  prefer: { [S in Extract<keyof Operations[Id]['responses'], PreferredStatus>]: string };
  /**
   * The request body carries a secret: the journal shows only these fields, and only when they are
   * strings; every other value (the secret, an unknown key, a body that is not an object) is "***",
   * and so is every query value of a request to its path.
   */
  secretBody?: { shown: readonly string[] };
  /** A 200 answer is a file's bytes: the proxy hashes them, and records them as a download. */
  download?: true;
}

/** One descriptor per operationId of openapi.json: a missing one fails to compile. */
export type DescriptorMap = { [Id in OperationId]: OperationDescriptor<Id> };
