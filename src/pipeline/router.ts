/**
 * Routing as Starlette does it: routes are tried in declaration order on the percent-decoded
 * path; the first route matching path and method wins; else the first route matching the path
 * alone gives 405 with its methods; else a path with a trailing slash that would match without
 * it is a 307 redirect; else 404.
 *
 * The routes are indexed, not scanned: a `{param}` matches exactly one segment, so a route can
 * only match a path with as many segments as its template, and one whose first segment is a
 * literal only a path starting with that literal. Each bucket (segment count, first segment)
 * keeps the declaration order of the routes that could match there, so trying a bucket in order
 * is trying every route in order — a document of 70 operations costs the fifteen's listing nothing.
 */
import type { Operation } from '../document/openapi.js';
import { pyUnquote } from '../python/url.js';

export type RouteResult =
  | { kind: 'match'; op: Operation; pathParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'redirect'; path: string }
  | { kind: 'not-found' };

const EMPTY: readonly Operation[] = Object.freeze([]);

const segmentCount = (path: string) => {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
};

/** The first segment of `/a/b` is `a`; a template's is undefined when it holds a parameter. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

export class RouteIndex {
  /** segment count → first literal segment → routes, in declaration order; '' holds those any first segment may match. */
  readonly #buckets = new Map<number, Map<string, readonly Operation[]>>();
  static readonly #ANY = '\0any';

  constructor(readonly operations: readonly Operation[]) {
    const byCount = new Map<number, Operation[]>();
    for (const op of operations) {
      const n = segmentCount(op.path);
      let list = byCount.get(n);
      if (!list) byCount.set(n, (list = []));
      list.push(op);
    }
    for (const [n, ops] of byCount) {
      const literals = new Set(ops.map((op) => firstSegment(op.path)).filter((s) => !s.includes('{')));
      const buckets = new Map<string, readonly Operation[]>();
      for (const literal of literals) buckets.set(literal, ops.filter((op) => firstSegment(op.path) === literal || firstSegment(op.path).includes('{')));
      buckets.set(RouteIndex.#ANY, ops.filter((op) => firstSegment(op.path).includes('{')));
      this.#buckets.set(n, buckets);
    }
  }

  /** The routes that could match `path` (decoded), in declaration order. */
  candidates(path: string): readonly Operation[] {
    const buckets = this.#buckets.get(segmentCount(path));
    if (!buckets) return EMPTY;
    return buckets.get(firstSegment(path)) ?? buckets.get(RouteIndex.#ANY)!;
  }
}

export function matchRoute(routes: RouteIndex, method: string, rawPath: string): RouteResult {
  const path = pyUnquote(rawPath);
  let partial: Operation | undefined;
  for (const op of routes.candidates(path)) {
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
    if (routes.candidates(trimmed).some((op) => op.regex.test(trimmed))) return { kind: 'redirect', path: trimmed };
  }
  return { kind: 'not-found' };
}
