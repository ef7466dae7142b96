/**
 * The route index (pipeline/router.ts) answers exactly as Starlette's linear scan over the routes
 * in declaration order would, for the union of the built-in document and the test document:
 * the same operation, the same 405 Allow, the same 307, the same 404.
 */
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { join } from 'node:path';
import { buildOperations, readOpenApi, type Operation } from '../src/document/openapi.js';
import { loadSpec } from '../src/document/spec-file.js';
import { buildUnion } from '../src/document/union.js';
import { matchRoute, RouteIndex } from '../src/pipeline/router.js';
import { pyUnquote } from '../src/python/url.js';
import { FIXTURES } from './helpers.js';

const union = buildUnion(readOpenApi(), loadSpec(join(FIXTURES, 'whole-service', 'service.openapi.json')), 'service.openapi.json');
/** Routes whose first segment is a parameter, interleaved with literal ones: they belong to every bucket of their length. */
const paramFirst = buildOperations({
  openapi: '3.1.0',
  paths: Object.fromEntries(
    ['/{tenant}/sessions', '/usage/{x}', '/{a}/{b}/stop', '/{page}', '/sessions/{id}/stop'].map((path, i) => [path, { [i % 2 ? 'post' : 'get']: { operationId: `extra_${i}`, responses: {} } }]),
  ),
});
const operations = [...buildOperations(union.document, new Set(union.added)), ...paramFirst];

/** Starlette's rules as a plain scan: first full match, else first path match's 405, else 307, else 404. */
function scan(ops: readonly Operation[], method: string, rawPath: string) {
  const path = pyUnquote(rawPath);
  const hit = ops.find((op) => op.regex.test(path) && op.method === method);
  if (hit) return { kind: 'match', id: hit.id };
  const partial = ops.find((op) => op.regex.test(path));
  if (partial) return { kind: 'method-not-allowed', allow: partial.method };
  const trimmed = path.replace(/\/+$/, '');
  if (path !== '/' && path.endsWith('/') && ops.some((op) => op.regex.test(trimmed))) return { kind: 'redirect', path: trimmed };
  return { kind: 'not-found' };
}

const words = [...new Set(operations.flatMap((op) => op.path.split('/')).filter((s) => s && !s.includes('{')))];
const segment = fc.oneof(fc.constantFrom(...words), fc.constantFrom('sess_1', 'x', '%2F', 'a%20b'), fc.stringMatching(/^[a-z0-9_]{1,6}$/));
const pathOf = fc.oneof(
  // a route's own template, its parameters filled (sometimes with another route's literal)
  fc.tuple(fc.constantFrom(...operations.map((op) => op.path)), segment, fc.boolean()).map(([t, s, slash]) => t.replace(/\{[^}]+\}/g, s) + (slash ? '/' : '')),
  fc.array(segment, { minLength: 0, maxLength: 5 }).map((segs) => `/${segs.join('/')}`),
);

test('the index agrees with the linear scan on every method and path tried', () => {
  const index = new RouteIndex(operations);
  fc.assert(
    fc.property(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), pathOf, (method, path) => {
      const found = matchRoute(index, method, path);
      const got = found.kind === 'match' ? { kind: 'match', id: found.op.id } : found;
      expect(got).toEqual(scan(operations, method, path));
    }),
    { numRuns: 3000, seed: 30 },
  );
});

test('a bucket holds only routes of its segment count and first segment, in declaration order', () => {
  const index = new RouteIndex(operations);
  const ids = (path: string) => index.candidates(path).map((op) => op.id);
  expect(ids('/sessions/start')).toEqual(operations.filter((op) => /^\/(sessions|\{[^}]+\})\/[^/]+$/.test(op.path)).map((op) => op.id));
  expect(ids('/sessions/start').indexOf('session_start')).toBeLessThan(ids('/sessions/start').indexOf('session_status'));
  expect(ids('/a/b/c/d/e/f/g')).toEqual([]);
});
