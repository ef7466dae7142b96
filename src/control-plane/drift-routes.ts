/**
 * The control plane's drift routes (`--upstream`): `GET /__mock/drift` lists where the real
 * service (or the client) left openapi.json, `?format=junit` as JUnit XML for CI to gate on, and
 * `DELETE /__mock/drift` clears the list. Without --upstream the list is simply empty.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { err } from '../errors/catalogue.js';
import { validationError } from '../errors/http-error.js';
import type { Operation } from '../openapi.js';
import type { DriftLog, DriftRecord } from '../proxy/drift.js';
import { parseQuery } from '../python/url.js';
import { sendJsonText } from '../http/reply.js';

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JUnit XML: one testcase per operation, failing where drift was seen. */
export function driftJunit(operations: Operation[], records: DriftRecord[]): string {
  let failures = 0;
  const cases = operations.map((op) => {
    const mine = records.filter((r) => r.operationId === op.id);
    const head = `    <testcase classname="${xml(`${op.method} ${op.path}`)}" name="${xml(op.id)}"`;
    if (!mine.length) return `${head}/>`;
    failures++;
    const text = mine.flatMap((r) => r.problems.map((p) => `${r.source} ${r.status} ${p.where}: ${p.what} (expected ${p.expected}, got ${p.got}) x${r.count}`)).join('\n');
    return `${head}><failure message="${xml(`${mine.length} drift record${mine.length === 1 ? '' : 's'}`)}">${xml(text)}</failure></testcase>`;
  });
  const n = operations.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cloud-browser-mock drift" tests="${n}" failures="${failures}">`,
    `  <testsuite name="drift against openapi.json" tests="${n}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function driftRoutes(drift: DriftLog | undefined, operations: Operation[]): Router {
  const router = express.Router();
  router.get('/drift', (req: Request, res: Response, next: NextFunction) => {
    const format = parseQuery(req.url.split('?')[1] ?? '').get('format') ?? 'json';
    const records = drift?.list() ?? [];
    if (format === 'junit') {
      const body = Buffer.from(driftJunit(operations, records), 'utf8');
      res.writeHead(200, { 'Content-Type': 'application/xml; charset=utf-8', 'Content-Length': String(body.length) });
      return void res.end(body);
    }
    if (format !== 'json') return next(validationError([err.enum(['query', 'format'], format, ['json', 'junit'])]));
    sendJsonText(res, 200, JSON.stringify({ items: records }));
  });
  router.delete('/drift', (_req: Request, res: Response) => {
    drift?.clear();
    res.status(204).end();
  });
  return router;
}
