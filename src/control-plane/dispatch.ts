/**
 * The control plane under /__mock (CONTRACT §7), dispatched the way the service is: routed by
 * operationId from control-plane.openapi.json (no hand-listed routes to drift from it), bodies
 * read by the service's readers (multer for the upload), validated by express-openapi-validator
 * against that document (Pydantic-style 422s); other errors are `{"detail": "…"}`. Handlers
 * live by concern in runtime-handlers.ts and workspace-handlers.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { DETAIL, HttpError, unauthorized } from '../errors/http-error.js';
import { bearerParam, isSecret } from '../http/authorization.js';
import { isJsonType } from '../http/body.js';
import { splitTarget } from '../http/request-target.js';
import { replyType, stringifyJson, type Reply } from '../http/reply.js';
import { buildOperations, type OpenApiDocument, type Operation } from '../document/openapi.js';
import { packageRoot } from '../primitives/package-root.js';
import { matchRoute, RouteIndex } from '../pipeline/router.js';
import { RequestContext, readBody, reply, runStages, validate, type Composition, type StageDeps, type Target } from '../pipeline/stages.js';
import { createOpenApiValidator } from '../validation/eov.js';
import { parseControlJson } from './control-input.js';
import { runtimeHandlers } from './runtime-handlers.js';
import { pinHandlers } from './pin-handlers.js';
import { controlHandlerFor, type ControlHandlerMap, type ControlPlaneOptions } from './handler-types.js';
import type { Runtime } from '../runtime/runtime.js';
import { workspaceHandlers } from './workspace-handlers.js';
import { inspectorHandlers } from './ui-api.js';

export type { ControlPlaneOptions } from './handler-types.js';

export function readControlPlaneDocument(): Record<string, any> {
  return JSON.parse(readFileSync(join(packageRoot, 'control-plane.openapi.json'), 'utf8'));
}

/**
 * The largest JSON body the control plane parses: a workspace import carries file bytes as
 * base64, and is the one body the mock must hold whole (documented in docs/guarantees.md, Limits).
 */
export const MAX_IMPORT_BODY = 256 * 1024 * 1024;
/** Every other control-plane JSON body: as the service's. */
export const MAX_CONTROL_BODY = 1024 * 1024;

/** One handler per operationId of control-plane.openapi.json, by concern: a missing one fails to compile. */
const handlers: ControlHandlerMap = { ...runtimeHandlers, ...pinHandlers, ...workspaceHandlers, ...inspectorHandlers };

export type ControlPlane = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/** The control plane's deps as its stages read them. */
interface ControlStageDeps extends StageDeps {
  control: Runtime;
  options: ControlPlaneOptions;
  /** control-plane.openapi.json as loaded (getControlPlaneDocument answers it). */
  raw: Record<string, unknown>;
}

type ControlStage = (ctx: RequestContext<ControlStageDeps>) => Reply | void | Promise<Reply | void>;

/** guards: the app's refusals, before anything else (a cross-site request: guards/cross-site.ts). */
const guards: ControlStage = (ctx) => {
  const refusal = ctx.deps.options.guard?.(ctx.req.headers);
  if (refusal) throw refusal;
};

/** admin token: with --admin-token, checked before routing (an unknown /__mock path without it is a 401). */
const adminToken: ControlStage = (ctx) => {
  const expected = ctx.deps.options.adminToken;
  if (!expected) return;
  const token = bearerParam(ctx.req.headers.authorization);
  if (token === null || !isSecret(token, expected)) throw unauthorized(DETAIL.notAuthenticated);
};

/** route: by operationId from control-plane.openapi.json; a trailing slash is ignored, as Express's routing did. */
const route: ControlStage = (ctx) => {
  let found = matchRoute(ctx.deps.routes, ctx.method, ctx.target.path);
  if (found.kind === 'redirect') found = matchRoute(ctx.deps.routes, ctx.method, found.path);
  if (found.kind === 'method-not-allowed') throw new HttpError(405, DETAIL.methodNotAllowed, { Allow: found.allow });
  if (found.kind !== 'match') throw new HttpError(404, DETAIL.notFound);
  ctx.op = found.op;
  ctx.pathParams = found.pathParams;
  // From here on, every answer is one the document describes (response validation checks it).
  ctx.documented = true;
};

/** operate: the operation's handler; it returns its reply. */
const operate: ControlStage = async (ctx) => {
  const op = ctx.operation;
  const out = await controlHandlerFor(handlers, op.id)(ctx.input!, { deps: ctx.deps.control, document: ctx.deps.raw, operationId: op.id as never });
  ctx.committed = true;
  return out;
};

/** The control plane's order: no faults, no Prefer; the admin token before routing. */
export const CONTROL_STAGES: Composition<ControlStageDeps> = {
  front: [
    { name: 'guards', run: guards },
    { name: 'admin token', run: adminToken },
    { name: 'route', run: route },
    { name: 'read body', run: readBody },
    { name: 'validate', run: validate },
    { name: 'operate', run: operate },
  ],
  closing: [{ name: 'reply', run: reply }],
};

/**
 * --validate-responses for /__mock: each documented answer is checked against
 * control-plane.openapi.json (Ajv loaded only then) as the bytes it is — a streamed export is
 * gathered whole first, which the suite can afford; a mismatch answers 500 and is logged.
 */
async function answerChecker(document: Record<string, any>, logger: Runtime['logger']): Promise<NonNullable<StageDeps['checkReply']>> {
  const { createResponseValidator, ResponseValidationError } = await import('../validation/responses.js');
  const validate = createResponseValidator(document as OpenApiDocument, 'control-plane.openapi.json');
  return async (ctx, out) => {
    const op = ctx.operation;
    const contentType = replyType(out);
    let bytes: Buffer | undefined;
    if (out.json !== undefined) bytes = stringifyJson(out.json);
    else if (out.jsonText !== undefined) bytes = Buffer.from(out.jsonText, 'utf8');
    else if (out.body !== undefined) bytes = typeof out.body === 'string' ? Buffer.from(out.body, 'utf8') : out.body;
    else if (out.stream) {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of out.stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
        bytes = Buffer.concat(chunks);
      } catch {
        return { status: 0, drop: true };
      }
    }
    try {
      let value: unknown = bytes;
      if (bytes !== undefined && isJsonType(contentType)) {
        try {
          value = JSON.parse(bytes.toString('utf8'));
        } catch {
          throw new ResponseValidationError(`${op.id} ${out.status} answered ${contentType} that is not JSON`);
        }
      }
      validate(op, out.status, contentType, value);
    } catch (e) {
      logger.error({ err: e, operationId: op.id }, 'response validation failed');
      return { status: 500, jsonText: JSON.stringify({ detail: (e as Error).message }) };
    }
    // Sent as the bytes checked (a stream cannot be read twice), framed as the stream was.
    return out.stream ? { ...out, stream: Readable.from([bytes!]) } : out;
  };
}

/**
 * The control plane over the runtime `runtime` (the service's pipeline reads the same one).
 * `document`: control-plane.openapi.json as the app read it once (its docs page shows the same object).
 */
export function controlPlane(runtime: Runtime, options: ControlPlaneOptions = {}, document: Record<string, any> = readControlPlaneDocument()): ControlPlane {
  const operations = buildOperations(document) as Operation[];
  const missing = operations.filter((op) => !(op.id in handlers)).map((op) => op.id);
  if (missing.length) throw new Error(`control-plane.openapi.json: no handler for ${missing.join(', ')}`);
  const validator = createOpenApiValidator(document);
  const checker = options.validateResponses ? answerChecker(document, runtime.logger) : undefined;
  const bodies = { blobs: runtime.store.blobs, maxUpload: runtime.maxUploadBytes, parseJson: parseControlJson };
  const importBodies = { ...bodies, maxJson: MAX_IMPORT_BODY };
  const controlBodies = { ...bodies, maxJson: MAX_CONTROL_BODY };
  const stageDeps: ControlStageDeps = {
    control: runtime,
    options,
    raw: document,
    operations,
    routes: new RouteIndex(operations),
    document: document as OpenApiDocument,
    validator,
    blobs: () => runtime.store.blobs,
    bodyOptions: (op) => ((op.id as string) === 'importWorkspace' ? importBodies : controlBodies),
    writeJson: stringifyJson,
    checkReply: checker ? async (ctx, out) => (await checker)(ctx, out) : undefined,
  };

  return async (req: Request, res: Response, next: NextFunction) => {
    // The target as app/service-requests.ts split it for every request.
    const target: Target = (res.locals.target as Target | undefined) ?? splitTarget(req.originalUrl);
    try {
      await runStages(new RequestContext(req, res, stageDeps, target), CONTROL_STAGES);
    } catch (e) {
      next(e);
    }
  };
}
