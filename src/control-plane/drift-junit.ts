/**
 * `GET /__mock/drift?format=junit` (`--upstream`): where the real service (or the client) left
 * openapi.json, as JUnit XML for CI to gate on — one testcase per operation, failing where drift
 * was seen.
 */
import type { Operation } from '../document/openapi.js';
import { escapeMarkup, junitCase, junitDocument } from '../primitives/markup.js';
import type { DriftRecord } from '../proxy/drift.js';

export function driftJunit(operations: Operation[], records: DriftRecord[]): string {
  let failures = 0;
  const cases = operations.map((op) => {
    const mine = records.filter((r) => r.operationId === op.id);
    if (!mine.length) return junitCase(`${op.method} ${op.path}`, op.id);
    failures++;
    const text = mine.flatMap((r) => r.problems.map((p) => `${r.source} ${r.status} ${p.where}: ${p.what} (expected ${p.expected}, got ${p.got}) x${r.count}`)).join('\n');
    return junitCase(`${op.method} ${op.path}`, op.id, `<failure message="${escapeMarkup(`${mine.length} drift record${mine.length === 1 ? '' : 's'}`)}">${escapeMarkup(text)}</failure>`);
  });
  const n = operations.length;
  return junitDocument({ name: 'cloud-browser-mock drift', tests: n, failures }, { name: 'drift against openapi.json', tests: n, failures, errors: 0, skipped: 0 }, cases);
}
