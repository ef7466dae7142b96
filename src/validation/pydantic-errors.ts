/**
 * eov's errors → the 422 body FastAPI writes. Each is decided from its error code (Ajv's keyword),
 * Ajv's params (kept beside eov's error: ajv-errors.ts) and the schema at its location, never from
 * its English text: the constraint values come from the schema, the `input` from what the client
 * sent. eov reports `required` first and adds `anyOf` noise, so the list is filtered to Pydantic's
 * one error per location and sorted into FastAPI's order: path, query, header, body; declaration
 * order within each.
 */
import { err, type Loc, type PydanticError } from '../errors/catalogue.js';
import type { OpenApiDocument, Schema } from '../document/openapi.js';
import { withoutNullBranch } from '../document/openapi.js';
import { isPyDict, type PyValue } from '../python/values.js';
import type { EovError } from './eov.js';
import { constraintText, typeNames } from './constraint-text.js';

const SECTION: Record<string, string> = { params: 'path', query: 'query', headers: 'header', body: 'body' };
const RANK: Record<string, number> = { path: 0, query: 1, header: 2, body: 3 };

/** What the mapper needs to know about the request besides eov's errors. */
export interface ErrorContext {
  doc: OpenApiDocument;
  /** Parameter schemas by section and name, in declaration order. */
  params: { path: Map<string, Schema>; query: Map<string, Schema>; header: Map<string, Schema> };
  /** The body's schema (resolved), if the operation has one. */
  body?: Schema;
  /** What the client sent, for `input`: raw strings for parameters, the parsed body. */
  raw: { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, unknown>; body: PyValue | undefined };
  /** The body arrived as a form: its fields' missing-errors carry no input. */
  form: boolean;
}

/** `/body/a/0` → `['body', 'a', 0]`, with array indexes as numbers. */
export function locOf(path: string, ctx: ErrorContext): Loc {
  const segs = path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const section = SECTION[segs[0]] ?? segs[0];
  const loc: Loc = [section];
  let value: unknown = section === 'body' ? ctx.raw.body : undefined;
  for (const s of segs.slice(1)) {
    if (Array.isArray(value) && /^\d+$/.test(s)) {
      loc.push(Number(s));
      value = value[Number(s)];
    } else {
      loc.push(s);
      value = isPyDict(value as PyValue) ? (value as Map<string, PyValue>).get(s) : undefined;
    }
  }
  return loc;
}

/** The value the client sent at `loc` (undefined when absent). */
function inputAt(loc: Loc, ctx: ErrorContext): unknown {
  const [section, ...rest] = loc as [string, ...(string | number)[]];
  if (section !== 'body') return (ctx.raw as any)[section]?.[rest[0]];
  let v: unknown = ctx.raw.body;
  for (const k of rest) v = Array.isArray(v) ? v[k as number] : isPyDict(v as PyValue) ? (v as Map<string, PyValue>).get(String(k)) : undefined;
  return v;
}

/** The schema at `loc`: properties, items and the non-null branch of an anyOf, followed. */
function schemaAt(loc: Loc, ctx: ErrorContext): Schema {
  const [section, ...rest] = loc as [string, ...(string | number)[]];
  if (section !== 'body') return (ctx.params as any)[section]?.get(String(rest[0])) ?? {};
  let s = withoutNullBranch(ctx.doc, ctx.body);
  for (const k of rest) {
    if (typeof k === 'number') s = s.items ?? s.prefixItems?.[k] ?? {};
    else s = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : {});
    s = withoutNullBranch(ctx.doc, s);
  }
  return s;
}

/** Sort key: section, then declaration order (or index) at each level. */
function orderOf(loc: Loc, ctx: ErrorContext): number[] {
  const [section, ...rest] = loc as [string, ...(string | number)[]];
  const key = [RANK[section] ?? 9];
  if (section !== 'body') {
    key.push([...((ctx.params as any)[section]?.keys() ?? [])].indexOf(String(rest[0])));
    return key;
  }
  let s = withoutNullBranch(ctx.doc, ctx.body);
  for (const k of rest) {
    if (typeof k === 'number') {
      key.push(k);
      s = withoutNullBranch(ctx.doc, s.items ?? {});
    } else {
      const names = Object.keys(s.properties ?? {});
      const i = names.indexOf(k);
      key.push(i < 0 ? names.length : i);
      s = withoutNullBranch(ctx.doc, s.properties?.[k] ?? {});
    }
  }
  return key;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Which error Pydantic would report first at one location (it stops at the first failure). */
const PRIORITY = ['required', 'type', 'x-eov-type', 'x-eov-serdes', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems'];

function typeError(kind: string, schema: Schema, loc: Loc, input: unknown): PydanticError | null {
  if (kind === 'null') return null;
  if (Array.isArray(schema.enum)) return err.enum(loc, input, schema.enum.map(String));
  if (kind === 'object') return schema.properties ? err.modelType(loc, input) : err.dictType(loc, input);
  if (kind === 'array') return err.listType(loc, input);
  if (kind === 'string') return err.stringType(loc, input);
  if (kind === 'boolean') return err.boolType(loc, input);
  if (kind === 'integer') return err.intType(loc, input);
  return err.floatType(loc, input);
}

/** A key of a mapping that breaks `propertyNames` (eov drops which key: found again here). */
function keyError(loc: Loc, input: unknown, pattern: string): PydanticError {
  const keys = isPyDict(input as PyValue) ? [...(input as Map<string, PyValue>).keys()] : [];
  const key = keys.find((k) => !new RegExp(pattern, 'u').test(k)) ?? '';
  const field = String(loc[loc.length - 1]).replace(/s$/, '');
  return { type: 'value_error', loc: [...loc, key], msg: `Value error, ${JSON.stringify(key)} is not a valid ${field} name (it must match ${pattern})`, input: key, ctx: { error: {} } };
}

/** Ajv's keyword, from eov's error code (`type.openapi.validation` → `type`). */
export function keywordOf(e: EovError): string {
  return e.errorCode.replace(/\.openapi\.validation$/, '');
}

/**
 * The one type a type error expected, or undefined: Ajv's `type` keyword and eov's `x-eov-type`
 * (JSON Type Definition's, raised for its serdes formats) name it in `params.type`; a list of
 * several types, or JTD's nullable one, is no single type (answered as a value error naming them).
 */
export function expectedType(e: EovError): string | undefined {
  const keyword = keywordOf(e);
  const { type, nullable } = e.ajv.params;
  if ((keyword !== 'type' && keyword !== 'x-eov-type') || type === undefined) return undefined;
  const one = typeNames(type);
  return /^\w+$/.test(one) && !nullable ? one : undefined;
}

/** One eov error as Pydantic's, or null for noise (an anyOf summary, a null branch). */
function toPydantic(e: EovError, ctx: ErrorContext): PydanticError | null {
  const keyword = keywordOf(e);
  const loc = locOf(e.path, ctx);
  const schema = schemaAt(loc, ctx);
  const input = inputAt(loc, ctx);
  const kind = expectedType(e);
  if (kind) return typeError(kind, schema, loc, input);
  switch (keyword) {
    case 'required': {
      // Pydantic's missing field carries the object it was missing from (JSON bodies only).
      const parent = loc[0] === 'body' && loc.length > 1 && !ctx.form ? inputAt(loc.slice(0, -1), ctx) : null;
      return err.missing(loc, parent ?? null);
    }
    case 'enum':
      return err.enum(loc, input, (schema.enum ?? []).map(String));
    case 'minLength':
      return err.tooShort(loc, input, schema.minLength);
    case 'maxLength':
      return err.tooLong(loc, input, schema.maxLength);
    case 'pattern':
      if (schema.pattern === undefined && schema.propertyNames?.pattern !== undefined) return keyError(loc, input, schema.propertyNames.pattern);
      return err.pattern(loc, input, schema.pattern);
    case 'propertyNames':
      // Its detail is the `pattern` error at the same location (keyError).
      return null;
    case 'minimum':
      return err.ge(loc, input, schema.minimum);
    case 'maximum':
      return err.le(loc, input, schema.maximum);
    case 'exclusiveMinimum':
      return { type: 'greater_than', loc, msg: `Input should be greater than ${schema.exclusiveMinimum}`, input, ctx: { gt: schema.exclusiveMinimum } };
    case 'exclusiveMaximum':
      return { type: 'less_than', loc, msg: `Input should be less than ${schema.exclusiveMaximum}`, input, ctx: { lt: schema.exclusiveMaximum } };
    case 'minItems':
    case 'maxItems': {
      const n = Array.isArray(input) ? input.length : 0;
      const min = keyword === 'minItems';
      const bound = min ? schema.minItems : schema.maxItems;
      const items = `${bound} item${bound === 1 ? '' : 's'}`;
      return { type: min ? 'too_short' : 'too_long', loc, msg: `List should have at ${min ? 'least' : 'most'} ${items} after validation, not ${n}`, input, ctx: { field_type: 'List', [min ? 'min_length' : 'max_length']: bound, actual_length: n } };
    }
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
      return { type: 'value_error', loc, msg: `Value error, ${constraintText(e.ajv)}`, input, ctx: { error: {} }, noise: true } as PydanticError;
    default:
      // A keyword Pydantic has no exact counterpart for: still a 422 naming the constraint.
      return { type: 'value_error', loc, msg: `Value error, ${constraintText(e.ajv)}`, input, ctx: { error: {} } };
  }
}

/** FastAPI's 422 list for eov's errors plus the ones our own parsing found (`own` wins a location). */
export function pydanticErrors(eovErrors: EovError[], own: PydanticError[], ctx: ErrorContext): PydanticError[] {
  const mapped: { e: PydanticError; p: number }[] = own.map((e) => ({ e, p: -1 }));
  for (const x of eovErrors) {
    const e = toPydantic(x, ctx);
    if (!e) continue;
    const keyword = keywordOf(x);
    mapped.push({ e, p: PRIORITY.indexOf(keyword) < 0 ? PRIORITY.length : PRIORITY.indexOf(keyword) });
  }
  const key = (l: Loc) => JSON.stringify(l);
  // A location failing its type has no inner errors; an anyOf summary only stands alone.
  const byLoc = new Map<string, { e: PydanticError; p: number }>();
  for (const m of mapped) {
    const k = key(m.e.loc);
    const prev = byLoc.get(k);
    if (!prev || m.p < prev.p || ((prev.e as any).noise && !(m.e as any).noise)) byLoc.set(k, m);
  }
  const kept = [...byLoc.values()].filter(({ e }) => {
    const isNoise = (e as any).noise;
    for (const other of byLoc.values()) {
      if (other.e === e) continue;
      const ol = other.e.loc;
      const inside = ol.length > e.loc.length && e.loc.every((s, i) => ol[i] === s);
      if (isNoise && inside) return false;
      const outside = ol.length < e.loc.length && ol.every((s, i) => e.loc[i] === s);
      if (outside && !(other.e as any).noise) return false;
    }
    return true;
  });
  for (const { e } of kept) delete (e as any).noise;
  return kept.map(({ e }) => ({ e, o: orderOf(e.loc, ctx) })).sort((a, b) => compare(a.o, b.o)).map(({ e }) => e);
}
