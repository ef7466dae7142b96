/**
 * The Express middleware that hands each request to the service pipeline and, once it is
 * answered (or cut off), writes its log line, its journal entry and its coverage count (the
 * record step, from the facts the stages left). It splits the request target once for every
 * request; the query is parsed at most once (RequestContext.query), and the control plane takes
 * the same split target from `res.locals.target`.
 */
import type { NextFunction, Request, Response } from 'express';
import { REDACTED, journalBody, queryRedaction } from '../records/journal.js';
import { isMockOwnPath, nearMiss } from '../control-plane/near-miss.js';
import { handleServiceRequest, serviceStageDeps, ServiceRequest, type PipelineDeps } from '../pipeline/service-request.js';
import { handlers } from '../operations/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { splitTarget } from '../http/request-target.js';

/** What the service's stages read of the runtime (the same store, clock and auth as the control plane's). */
export function pipelineDeps(runtime: Runtime): PipelineDeps {
  const { operations, document, validator, store, clock, auth, faults, proxy, added, validateResponse } = runtime;
  const config = { fileTtlMs: runtime.fileTtlMs, maxUploadBytes: runtime.maxUploadBytes };
  return { operations, document, validator, handlers, store, clock, auth, config, validateResponse, texts: store.texts, faults, proxy, added };
}

export function serviceRequests(runtime: Runtime) {
  const { clock, logger, operations, journal, coverage } = runtime;
  const redactQuery = queryRedaction(operations);
  const stageDeps = serviceStageDeps(pipelineDeps(runtime));
  return async (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const startedAt = clock.now();
    let done = false;
    const target = splitTarget(req.originalUrl);
    const { path, query: rawQuery } = target;
    const ctx = new ServiceRequest(req, res, stageDeps, target);
    const facts = ctx.facts;
    // Service requests, and every request the service would not know (a typo'd URL, a 307):
    // those leave a trace too, with operationId null. The mock's own pages and the control
    // plane never do (CONTRACT §7).
    const record = () => {
      if (done || (!facts.service && (isMockOwnPath(path) || res.locals.mockOwnPage))) return;
      done = true;
      // 0: the client got no answer (a dropped fault, or a connection cut before one was sent).
      const status = facts.dropped || !res.headersSent ? 0 : res.statusCode;
      const duration_ms = Math.round(Number(process.hrtime.bigint() - started) / 1e3) / 1e3;
      const operationId = facts.operationId ?? null;
      const principal = facts.principal ?? null;
      const hint = !operationId && (status === 404 || status === 405) ? nearMiss(operations, req.method, path) : undefined;
      const query = redactQuery(operationId, path, [...ctx.query]);
      // The log line shows the URL with the journal's redactions (a password in /token's query).
      const url = rawQuery === undefined || query.every(([, v]) => v !== REDACTED) ? req.originalUrl : `${path}?${new URLSearchParams(query)}`;
      logger.info({ method: req.method, url, operationId, principal, status, duration_ms, ...(hint && { hint }) }, 'request');
      journal.record({ method: req.method, path, query: Object.fromEntries(query), operationId, principal, status, duration_ms, body: journalBody(facts.parsed), ...(operationId ? {} : { hint: hint ?? null }) }, startedAt);
      if (operationId) coverage.record(operationId, status);
    };
    // Listening from the start: a request cut off while its handler still waits for the body
    // (a client gone, a shutdown) is recorded when its connection closes.
    res.once('finish', record);
    res.once('close', record);
    try {
      await handleServiceRequest(ctx);
      if (!ctx.isService) {
        res.locals.target = target;
        return next();
      }
    } catch (e) {
      return next(e);
    } finally {
      if (facts.dropped) record();
    }
  };
}
