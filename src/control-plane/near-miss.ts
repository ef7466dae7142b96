/**
 * Unmatched requests (CONTRACT §7 as changed by issue 11): which requests the journal and the log
 * leave out (the mock's own pages and the control plane), and, for a 404 or 405, the closest
 * documented route — WireMock's near-miss report, reduced to one line: `did you mean GET
 * /sessions/{session_id}/files?`. The answer's body stays FastAPI's; the hint goes only to the log
 * line and the journal entry.
 */
import type { Operation } from '../document/openapi.js';
import { editDistance } from '../primitives/edit-distance.js';
import { isMockOwnRoute, OWN_PATHS } from '../primitives/own-paths.js';
import { pyUnquote } from '../python/url.js';

/**
 * Paths that are the mock's own, never the service's: the healthcheck (the image polls it every
 * few seconds and would flood the journal), the served document, Swagger UI and its assets, and
 * the control plane. `/` counts only when it served the landing page (see app.ts).
 */
export function isMockOwnPath(rawPath: string): boolean {
  return rawPath !== OWN_PATHS.landing && isMockOwnRoute(rawPath);
}

/** A missing or extra segment costs a little less than an unrelated one, so `/sessions/x` still finds `/sessions/{id}/files`. */
const GAP = 0.75;
/** A parameter takes any segment, but a literal that matches exactly is closer (`/mailboxes/sync`). */
const PARAM = 0.01;
const METHOD = 0.5;

function segmentCost(given: string, template: string): number {
  if (template.startsWith('{')) return given === '' ? 1 : PARAM;
  if (given === template) return 0;
  const lower = given.toLowerCase();
  const longest = Math.max(given.length, template.length);
  // The distance is at least the difference in length: past half, no need to count it (a
  // 5,000-letter segment against `sessions` is decided here, not in 40,000 steps).
  if (Math.abs(lower.length - template.length) > longest / 2) return 1;
  const ratio = editDistance(lower, template) / longest;
  // Beyond half the letters changed, a segment is not a typo of the other: as bad as any.
  return ratio <= 0.5 ? ratio : 1;
}

type SegmentCost = (given: string, template: string) => number;

/** Segment-level edit distance between a request path and a route template. */
function pathCost(given: string[], template: string[], cost: SegmentCost): number {
  let prev = Array.from({ length: template.length + 1 }, (_, j) => j * GAP);
  for (let i = 1; i <= given.length; i++) {
    const row = [i * GAP];
    for (let j = 1; j <= template.length; j++) row.push(Math.min(prev[j] + GAP, row[j - 1] + GAP, prev[j - 1] + cost(given[i - 1], template[j - 1])));
    prev = row;
  }
  return prev[template.length];
}

const segments = (path: string) => path.replace(/^\/+|\/+$/g, '').split('/').filter((s, _i, all) => s !== '' || all.length > 1);

/**
 * The closest documented route to a request that matched none (or matched a path but not its
 * method), as `did you mean METHOD /template?`, or undefined when nothing is close: a path that
 * holds none of a route's words, or is more than about one typo or one missing segment away from
 * every route, gets no guess.
 */
export function nearMiss(operations: Operation[], method: string, rawPath: string): string | undefined {
  const given = segments(pyUnquote(rawPath));
  if (given.length === 0) return undefined;
  // The routes share their words (`sessions` begins dozens of them): each pair is counted once.
  const known = new Map<string, number>();
  const cost: SegmentCost = (g, t) => {
    const key = `${g}/${t}`;
    let c = known.get(key);
    if (c === undefined) known.set(key, (c = segmentCost(g, t)));
    return c;
  };
  let best: { op: Operation; cost: number } | undefined;
  for (const op of operations) {
    const template = segments(op.path);
    // Each segment one path has and the other lacks costs a GAP: two or more, and the route is
    // too far whatever the rest (decided before comparing 4,000 segments with each of its own).
    if (Math.abs(given.length - template.length) * GAP >= 1) continue;
    // Parameters take any segment, so `/favicon.ico` is "close" to `/mailboxes/{id}`: a guess
    // needs one of the route's own words (or a typo of it) in the request.
    const anchored = template.some((t) => !t.startsWith('{') && given.some((g) => cost(g, t) <= 0.5));
    if (!anchored) continue;
    const path = pathCost(given, template, cost);
    if (path >= 1) continue;
    const total = path + (op.method === method.toUpperCase() ? 0 : METHOD);
    if (!best || total < best.cost) best = { op, cost: total };
  }
  return best && `did you mean ${best.op.method} ${best.op.path}?`;
}
