/**
 * The Express middleware that hands each request to the service pipeline and, once it is
 * answered (or cut off), writes its log line, its journal entry and its coverage count (the
 * record step, from the facts the stages left). It splits the request target once for every
 * request; the query is parsed at most once (RequestContext.query), and the control plane takes
 * the same split target from `res.locals.target`.
 */
import type { NextFunction, Request, Response } from 'express';
import { REDACTED, journalBody, secretQueries } from '../records/journal.js';
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
  const secretQuery = secretQueries(operations);
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
      // The journal's query: every value redacted for a request whose query could hold a password.
      const pairs = secretQuery(operationId, path) ? [...ctx.query.keys()].map((k): [string, string] => [k, REDACTED]) : ctx.query;
      const query = Object.fromEntries(pairs);
      let redacted = false;
      for (const [, v] of pairs) redacted ||= v === REDACTED;
      // The log line shows the URL with the journal's redactions (a password in /token's query).
      const url = rawQuery === undefined || !redacted ? req.originalUrl : `${path}?${new URLSearchParams([...pairs])}`;
      // The line's and the entry's fields in their documented order, built without spreads (the
      // record step runs once per request; its garbage is the server's).
      const line: Record<string, unknown> = { method: req.method, url, operationId, principal, status, duration_ms };
      if (hint) line.hint = hint;
      logger.info(line, 'request');
      const entry: Parameters<typeof journal.record>[0] = { method: req.method, path, query, operationId, principal, status, duration_ms, body: journalBody(facts.parsed) };
      if (!operationId) entry.hint = hint ?? null;
      journal.record(entry, startedAt);
      if (operationId) coverage.record(operationId, status);
    };
    // Listening from the start: a request cut off while its handler still waits for the body
    // (a client gone, a shutdown) is recorded when its connection closes. `on`, not `once`:
    // record() runs once by itself, and the response is dropped with its listeners.
    res.on('finish', record);
    res.on('close', record);
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
