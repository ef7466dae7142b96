/**
 * One drift problem and the type names it uses, apart from drift.ts so that the proxy stage (on
 * every request path) does not load Ajv at start-up: drift.ts is imported only with --upstream.
 */

export interface DriftProblem {
  /** `status`, `content-type`, or a body location such as `body.items[].healthy`. */
  where: string;
  what: string;
  expected: string;
  got: string;
}

/** The JSON type of a value, which is all a problem may say about it. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}
