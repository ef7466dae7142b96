/**
 * The shape of a recorded scrape result: what a model for it must accept. Every element of a
 * list is looked at, so `[{"a": 1}, {"a": 2.5, "b": null}]` gives items with `a: float` and an
 * optional `b`.
 */
export type Shape =
  /** `empty`: no evidence yet (the items of `[]`); `null`: only null was seen. */
  | { kind: 'str' | 'int' | 'float' | 'bool' | 'any' | 'null' | 'empty' }
  | { kind: 'optional'; of: Shape }
  | { kind: 'list'; of: Shape }
  | { kind: 'object'; keys: Map<string, Shape> };

export type ObjectShape = Extract<Shape, { kind: 'object' }>;

const EMPTY: Shape = { kind: 'empty' };
const NULL: Shape = { kind: 'null' };
const ANY: Shape = { kind: 'any' };

function optional(of: Shape): Shape {
  return of.kind === 'optional' || of.kind === 'null' ? of : { kind: 'optional', of };
}

export function shapeOf(v: unknown): Shape {
  if (v === null || v === undefined) return NULL;
  if (typeof v === 'boolean') return { kind: 'bool' };
  // Beyond 2**53 a JSON integer is no longer exact here, and Pydantic refuses an `int` from a
  // float that large, so it is typed as a float.
  if (typeof v === 'number') return { kind: Number.isSafeInteger(v) ? 'int' : 'float' };
  if (typeof v === 'string') return { kind: 'str' };
  if (Array.isArray(v)) return { kind: 'list', of: v.map(shapeOf).reduce(merge, EMPTY) };
  if (typeof v === 'object') return { kind: 'object', keys: new Map(Object.entries(v).map(([k, x]) => [k, shapeOf(x)])) };
  return ANY;
}

/** The least shape that accepts what both accept (with `any` where they have nothing in common). */
function merge(a: Shape, b: Shape): Shape {
  if (a.kind === 'empty') return b;
  if (b.kind === 'empty') return a;
  if (a.kind === 'null') return optional(b);
  if (b.kind === 'null') return optional(a);
  if (a.kind === 'optional' || b.kind === 'optional') {
    return optional(merge(a.kind === 'optional' ? a.of : a, b.kind === 'optional' ? b.of : b));
  }
  if (a.kind === 'list' && b.kind === 'list') return { kind: 'list', of: merge(a.of, b.of) };
  if (a.kind === 'object' && b.kind === 'object') {
    const keys = new Map<string, Shape>();
    for (const [k, s] of a.keys) keys.set(k, b.keys.has(k) ? merge(s, b.keys.get(k)!) : optional(s));
    for (const [k, s] of b.keys) if (!a.keys.has(k)) keys.set(k, optional(s));
    return { kind: 'object', keys };
  }
  if (a.kind === b.kind && a.kind !== 'list' && a.kind !== 'object') return a;
  if ((a.kind === 'int' && b.kind === 'float') || (a.kind === 'float' && b.kind === 'int')) return { kind: 'float' };
  return ANY;
}
