/**
 * What a handler sees: plain validated input and a context. Never `req`/`res`, never lowdb,
 * never a global clock (STYLE.md, conventions 2 and 5).
 */
import type { Readable } from 'node:stream';
import type { AuthContext } from '../auth.js';
import type { UploadedPart } from '../http/body.js';
import type { Clock } from '../primitives/clock.js';
import type { OperationId } from '../openapi.js';
import type { BlobStore } from '../store/blobs.js';
import type { Workspace } from '../store/workspace.js';

export interface OperationInput {
  path: Record<string, any>;
  query: Record<string, any>;
  headers: Record<string, any>;
  /** The validated JSON or form body; undefined when an optional body was absent. */
  body: any;
  /** The uploaded `file` part of a multipart operation. */
  upload?: UploadedPart;
}

export interface OperationConfig {
  fileTtlMs: number;
  maxUploadBytes: number;
  /** How long a token from createToken lives on the mock's clock (ms). */
  tokenTtlMs?: number;
}

export interface OperationContext {
  /** The caller's workspace; null only for createToken, which has no caller yet. */
  workspace: Workspace | null;
  principal: string | null;
  clock: Clock;
  blobs: BlobStore;
  auth: AuthContext;
  config: OperationConfig;
}

export interface Reply {
  status: number;
  /** A JSON body (serialised compactly, as FastAPI does). */
  json?: unknown;
  /** Raw bytes, for downloads. */
  stream?: Readable;
  headers?: Record<string, string>;
}

export type Handler = (input: OperationInput, ctx: OperationContext) => Promise<Reply>;

/** One handler per operationId: a missing one fails to compile. */
export type HandlerMap = Record<OperationId, Handler>;

/** The caller's workspace, for operations that have a caller. */
export function workspaceOf(ctx: OperationContext): Workspace {
  if (!ctx.workspace) throw new Error('operation needs an authenticated workspace');
  return ctx.workspace;
}
