/**
 * Routing as Starlette does it: routes are tried in declaration order on the percent-decoded
 * path; the first route matching path and method wins; else the first route matching the path
 * alone gives 405 with its methods; else a path with a trailing slash that would match without
 * it is a 307 redirect; else 404.
 */
import type { Operation } from '../document/openapi.js';
import { pyUnquote } from '../python/url.js';

export type RouteResult =
  | { kind: 'match'; op: Operation; pathParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'redirect'; path: string }
  | { kind: 'not-found' };

export function matchRoute(operations: Operation[], method: string, rawPath: string): RouteResult {
  const path = pyUnquote(rawPath);
  let partial: Operation | undefined;
  for (const op of operations) {
    const m = op.regex.exec(path);
    if (!m) continue;
    if (op.method === method) {
      const pathParams: Record<string, string> = {};
      op.pathParams.forEach((name, i) => (pathParams[name] = m[i + 1]));
      return { kind: 'match', op, pathParams };
    }
    partial ??= op;
  }
  if (partial) return { kind: 'method-not-allowed', allow: partial.method };
  if (path !== '/' && path.endsWith('/')) {
    // Starlette builds the Location from the decoded path, as we do.
    const trimmed = path.replace(/\/+$/, '');
    if (operations.some((op) => op.regex.test(trimmed))) return { kind: 'redirect', path: trimmed };
  }
  return { kind: 'not-found' };
}
