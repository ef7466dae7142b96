/**
 * The control plane under /__mock (CONTRACT §7), dispatched the way the service is: routed by
 * operationId from control-plane.openapi.json (no hand-listed routes to drift from it), bodies
 * read by the service's readers (multer for the upload), validated by express-openapi-validator
 * against that document (Pydantic-style 422s); other errors are `{"detail": "…"}`. Handlers
 * live by concern in runtime-handlers.ts and workspace-handlers.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { DETAIL, HttpError, unauthorized } from '../errors/http-error.js';
import { bearerParam, isSecret } from '../http/authorization.js';
import { discardBody, isJsonType, readBody, type ParsedBody } from '../http/body.js';
import { splitTarget } from '../http/request-target.js';
import { buildOperations, type OpenApiDocument, type Operation } from '../openapi.js';
import { packageRoot } from '../package-root.js';
import { sendError } from '../http/reply.js';
import { parseQuery } from '../python/url.js';
import { matchRoute } from '../pipeline/router.js';
import { createOpenApiValidator } from '../validation/eov.js';
import { holdAnswerForCheck, type AnswerCheck } from '../validation/response-capture.js';
import { validateInput } from '../validation/input.js';
import { parseControlJson } from './control-input.js';
import { runtimeHandlers } from './runtime-handlers.js';
import { controlHandlerFor, type ControlHandlerMap, type ControlPlaneDeps } from './handler-types.js';
import { workspaceHandlers } from './workspace-handlers.js';
import { inspectorHandlers } from './ui-api.js';

export type { ControlPlaneDeps } from './handler-types.js';

export function readControlPlaneDocument(): Record<string, any> {
  return JSON.parse(readFileSync(join(packageRoot, 'control-plane.openapi.json'), 'utf8'));
}

/**
 * The largest JSON body the control plane parses: a workspace import carries file bytes as
 * base64, and is the one body the mock must hold whole (documented in the README's Limits).
 */
export const MAX_IMPORT_BODY = 256 * 1024 * 1024;
/** Every other control-plane JSON body: as the service's. */
export const MAX_CONTROL_BODY = 1024 * 1024;

/** One handler per operationId of control-plane.openapi.json, by concern: a missing one fails to compile. */
const handlers: ControlHandlerMap = { ...runtimeHandlers, ...workspaceHandlers, ...inspectorHandlers };

export type ControlPlane = (req: Request, res: Response, next: NextFunction) => Promise<void>;

/**
 * --validate-responses for /__mock: each answer is held until complete and checked against
 * control-plane.openapi.json (Ajv loaded only then); a mismatch answers 500 and is logged.
 */
async function answerChecker(document: Record<string, any>): Promise<(op: Operation) => AnswerCheck> {
  const { createResponseValidator, ResponseValidationError } = await import('../validation/responses.js');
  const validate = createResponseValidator(document as OpenApiDocument, 'control-plane.openapi.json');
  return (op) => (status, contentType, body) => {
    let value: unknown = body;
    if (body !== undefined && isJsonType(contentType)) {
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        throw new ResponseValidationError(`${op.id} ${status} answered ${contentType} that is not JSON`);
      }
    }
    validate(op, status, contentType, value);
  };
}

export function controlPlane(deps: ControlPlaneDeps): ControlPlane {
  const document = readControlPlaneDocument();
  const operations = buildOperations(document) as Operation[];
  const missing = operations.filter((op) => !(op.id in handlers)).map((op) => op.id);
  if (missing.length) throw new Error(`control-plane.openapi.json: no handler for ${missing.join(', ')}`);
  const validator = createOpenApiValidator(document);
  const responses = deps.validateResponses ? answerChecker(document) : undefined;

  const authorised = (header: string | undefined) => {
    if (!deps.adminToken) return true;
    const token = bearerParam(header);
    return token !== null && isSecret(token, deps.adminToken);
  };

  const dispatch = async (req: Request, res: Response, next: NextFunction) => {
    const target = splitTarget(req.originalUrl);
    let body: ParsedBody = { kind: 'none' };
    let committed = false;
    try {
      if (!authorised(req.headers.authorization)) throw unauthorized(DETAIL.notAuthenticated);
      let rawPath = target.path;
      let route = matchRoute(operations, req.method, rawPath);
      // Express's routing, which this replaced, ignored a trailing slash; so does this.
      if (route.kind === 'redirect') route = matchRoute(operations, req.method, (rawPath = route.path));
      if (route.kind === 'method-not-allowed') throw new HttpError(405, DETAIL.methodNotAllowed, { Allow: route.allow });
      if (route.kind !== 'match') throw new HttpError(404, DETAIL.notFound);
      const op = route.op;
      if (responses) holdAnswerForCheck(res, (await responses)(op), (e) => deps.logger?.error({ err: e, operationId: op.id }, 'response validation failed'));
      if (op.body) {
        const maxJson = (op.id as string) === 'importWorkspace' ? MAX_IMPORT_BODY : MAX_CONTROL_BODY;
        body = await readBody(req, op.body.kind, { blobs: deps.store.blobs, maxUpload: deps.maxUploadBytes, maxJson, parseJson: parseControlJson });
      }
      const input = await validateInput(validator, document, op, { path: route.pathParams, query: parseQuery(target.query ?? ''), headers: req.headers }, body);
      await controlHandlerFor(handlers, op.id)(input, { deps, req, res, document });
      committed = true;
    } catch (e) {
      if (e instanceof HttpError) return sendError(res, e);
      next(e);
    } finally {
      // An upload the handler did not store (refused, or a repeated part) leaves nothing behind.
      await discardBody(body, deps.store.blobs, committed);
    }
  };
  return dispatch;
}
