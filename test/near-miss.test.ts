/**
 * The near-miss guess (src/control-plane/near-miss.ts) skips comparisons whose answer the lengths
 * already decide: a segment whose length differs from a route's word by more than half of the
 * longer cannot be a typo of it, and a path two or more segments longer or shorter than a route
 * cannot be within one typo of it; and it compares each pair of words once per request. This
 * checks the guess against the comparison made in full,
 * written here from its definition (a segment's cost: 0 equal, 0.01 for a parameter, else the
 * share of letters changed up to half, 1 beyond; a path's: the segment-level edit distance with
 * 0.75 a gap; a guess needs one of the route's words and a cost under 1, 0.5 more for another
 * method), over generated paths: route words with typos, extra and missing segments, long
 * segments and many of them, against the built-in document and the whole-service one.
 */
import { expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildOperations, readOpenApi, type Operation } from '../src/document/openapi.js';
import { nearMiss } from '../src/control-plane/near-miss.js';
import { ROOT } from './helpers.js';

function levenshtein(a: string, b: string): number {
  let prev = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Int32Array(b.length + 1);
    row[0] = i;
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
const segmentCosts = new Map<string, number>();
function segmentCostInFull(given: string, word: string): number {
  if (word.startsWith('{')) return given === '' ? 1 : 0.01;
  if (given === word) return 0;
  const key = `${given}\n${word}`;
  let cost = segmentCosts.get(key);
  if (cost === undefined) {
    const share = levenshtein(given.toLowerCase(), word) / Math.max(given.length, word.length);
    segmentCosts.set(key, (cost = share <= 0.5 ? share : 1));
  }
  return cost;
}
function pathCostInFull(given: string[], route: string[]): number {
  const d = Array.from({ length: given.length + 1 }, (_, i) => Array.from({ length: route.length + 1 }, (_, j) => (i + j) * 0.75 * (i === 0 || j === 0 ? 1 : 0)));
  for (let i = 1; i <= given.length; i++) for (let j = 1; j <= route.length; j++) d[i][j] = Math.min(d[i - 1][j] + 0.75, d[i][j - 1] + 0.75, d[i - 1][j - 1] + segmentCostInFull(given[i - 1], route[j - 1]));
  return d[given.length][route.length];
}
const split = (path: string) => path.replace(/^\/+|\/+$/g, '').split('/').filter((s, _i, all) => s !== '' || all.length > 1);
function guessInFull(operations: Operation[], method: string, path: string): string | undefined {
  const given = split(decodeURIComponent(path));
  if (given.length === 0) return undefined;
  let best: { op: Operation; cost: number } | undefined;
  for (const op of operations) {
    const route = split(op.path);
    if (!route.some((w) => !w.startsWith('{') && given.some((g) => segmentCostInFull(g, w) <= 0.5))) continue;
    const cost = pathCostInFull(given, route);
    if (cost >= 1) continue;
    const total = cost + (op.method === method ? 0 : 0.5);
    if (!best || total < best.cost) best = { op, cost: total };
  }
  return best && `did you mean ${best.op.method} ${best.op.path}?`;
}

const documents: [string, Operation[]][] = [
  ['the built-in document', buildOperations(readOpenApi())],
  ['the whole-service document', buildOperations(JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'whole-service', 'service.openapi.json'), 'utf8')))],
];

test.each(documents)('the guess over %s is the one the comparison in full makes, for paths near and far from its routes', (_name, operations) => {
  const words = [...new Set(operations.flatMap((op) => split(op.path)).filter((w) => !w.startsWith('{')))];
  const typo = (w: string, at: number, kind: number) => (kind === 0 ? w.slice(0, at) + w.slice(at + 1) : kind === 1 ? w.slice(0, at) + 'q' + w.slice(at) : w.slice(0, at) + 'Z' + w.slice(at + 1));
  const segment = fc.oneof(
    fc.constantFrom(...words),
    fc.tuple(fc.constantFrom(...words), fc.nat(20), fc.nat(2)).map(([w, at, kind]) => typo(w, at % Math.max(1, w.length), kind)),
    // Cut or grown by up to about half: the lengths alone do not decide these.
    fc.tuple(fc.constantFrom(...words), fc.nat(100)).map(([w, k]) => w.slice(0, w.length - (k % Math.ceil(w.length / 2 + 1)))),
    fc.tuple(fc.constantFrom(...words), fc.nat(8)).map(([w, k]) => w + 'e'.repeat(k)),
    fc.constantFrom('sess_demo', 'x', 'file_1', ''),
    fc.nat(60).map((n) => 'x'.repeat(n)),
    fc.string({ maxLength: 12 }).map((s) => s.replace(/[/%]/g, 'y')),
  );
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.array(segment, { minLength: 1, maxLength: 7 }) },
    { weight: 1, arbitrary: fc.array(segment, { minLength: 8, maxLength: 11 }) },
  ).map((segs) => `/${segs.join('/')}`);
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
  const samples = fc.sample(fc.tuple(method, path), { seed: 11, numRuns: 300 });
  const guesses = samples.map(([m, p]) => [m, p, nearMiss(operations, m, p)]);
  expect(guesses).toEqual(samples.map(([m, p]) => [m, p, guessInFull(operations, m, p)]));
  // Both kinds of answer are among the samples, so the comparison is not all "no guess".
  expect(guesses.filter((g) => g[2] !== undefined).length).toBeGreaterThan(30);
  expect(guesses.filter((g) => g[2] === undefined).length).toBeGreaterThan(30);
});
