/**
 * Pydantic v2's lax-mode validation, as the service's FastAPI application applies it. Two input
 * worlds: parameters arrive as strings (path, query, header, form fields), bodies as parsed JSON.
 * Each function returns the validated value or pushes Pydantic errors; `input` is always what the
 * client sent (the raw string, or the parsed JSON value).
 */
import { err, type Loc, type PydanticError } from '../errors/catalogue.js';
import { PyFloat, isPyDict, pyLen, toPlain, type PyDict, type PyValue } from '../python/values.js';
import type { FieldSpec, Spec } from './spec.js';

/** Rust's `str::trim` (Unicode White_Space), which pydantic-core applies before parsing an int. */
const RUST_WS = /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const INT = /^[+-]?[0-9]+(?:_[0-9]+)*$/;
const INT_DOT_ZEROS = /^([+-]?[0-9]+(?:_[0-9]+)*)\.0+$/;
const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);
const invalid = Symbol('invalid');
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
type Out = unknown | typeof invalid;

/** pydantic-core's `str_as_int`: trimmed, optional sign, `_` between digits, `.0…` allowed. */
export function parseIntString(raw: string): bigint | 'size' | null {
  const s = raw.replace(RUST_WS, '');
  if (s.length > 4300) return 'size';
  const m = INT.test(s) ? s : INT_DOT_ZEROS.exec(s)?.[1];
  return m === undefined ? null : BigInt(m.replace(/_/g, ''));
}

/** pydantic-core's `str_as_bool`: case-insensitive spellings, no trimming. */
export function parseBoolString(s: string): boolean | null {
  const l = s.toLowerCase();
  if (TRUE.has(l)) return true;
  if (FALSE.has(l)) return false;
  return null;
}

function checkBounds(value: bigint, spec: Extract<Spec, { kind: 'integer' }>, loc: Loc, input: unknown, errors: PydanticError[]): Out {
  if (spec.minimum !== undefined && value < BigInt(spec.minimum)) return errors.push(err.ge(loc, input, spec.minimum)), invalid;
  if (spec.maximum !== undefined && value > BigInt(spec.maximum)) return errors.push(err.le(loc, input, spec.maximum)), invalid;
  return Number(value);
}

function checkString(s: string, spec: Extract<Spec, { kind: 'string' }>, loc: Loc, errors: PydanticError[]): Out {
  const len = spec.minLength !== undefined || spec.maxLength !== undefined ? pyLen(s) : 0;
  if (spec.minLength !== undefined && len < spec.minLength) return errors.push(err.tooShort(loc, s, spec.minLength)), invalid;
  if (spec.maxLength !== undefined && len > spec.maxLength) return errors.push(err.tooLong(loc, s, spec.maxLength)), invalid;
  if (spec.pattern !== undefined && !new RegExp(spec.pattern, 'u').test(s)) return errors.push(err.pattern(loc, s, spec.pattern)), invalid;
  return s;
}

/** A parameter given as a string (query, path, header, form field). */
export function validateString(raw: string, spec: Spec, loc: Loc, errors: PydanticError[]): Out {
  switch (spec.kind) {
    case 'string':
      return checkString(raw, spec, loc, errors);
    case 'integer': {
      const v = parseIntString(raw);
      if (v === 'size') return errors.push(err.intParsingSize(loc, raw)), invalid;
      if (v === null) return errors.push(err.intParsing(loc, raw)), invalid;
      return checkBounds(v, spec, loc, raw, errors);
    }
    case 'boolean': {
      const v = parseBoolString(raw);
      if (v === null) return errors.push(err.boolParsing(loc, raw)), invalid;
      return v;
    }
    case 'enum':
      if (!spec.values.includes(raw)) return errors.push(err.enum(loc, raw, spec.values)), invalid;
      return raw;
    case 'array':
      return validateString(raw, spec.items, loc, errors) === invalid ? invalid : [raw];
    default:
      return raw;
  }
}

/** A value from a parsed JSON body. */
export function validateJson(v: PyValue, spec: Spec, loc: Loc, errors: PydanticError[]): Out {
  if (v === null && spec.nullable) return null;
  switch (spec.kind) {
    case 'string':
      if (typeof v !== 'string') return errors.push(err.stringType(loc, v)), invalid;
      return checkString(v, spec, loc, errors);
    case 'integer': {
      if (typeof v === 'bigint') return checkBounds(v, spec, loc, v, errors);
      if (v instanceof PyFloat) {
        if (!Number.isInteger(v.value)) return errors.push(err.intFromFloat(loc, v)), invalid;
        if (Math.abs(v.value) >= 2 ** 63) return errors.push(err.intParsingSize(loc, v)), invalid;
        return checkBounds(BigInt(v.value), spec, loc, v, errors);
      }
      if (typeof v === 'boolean') return checkBounds(BigInt(v ? 1 : 0), spec, loc, v, errors);
      if (typeof v === 'string') {
        const n = parseIntString(v);
        if (n === 'size') return errors.push(err.intParsingSize(loc, v)), invalid;
        if (n === null) return errors.push(err.intParsing(loc, v)), invalid;
        return checkBounds(n, spec, loc, v, errors);
      }
      return errors.push(err.intType(loc, v)), invalid;
    }
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        const b = parseBoolString(v);
        if (b === null) return errors.push(err.boolParsing(loc, v)), invalid;
        return b;
      }
      // Numbers: 0 and 1 (also as 0.0 and 1.0) are accepted; other whole numbers that fit a
      // 64-bit integer cannot be interpreted; anything else (fractions, bigger numbers) is not a
      // boolean at all (CONTRACT §5; pydantic-core's i64 boundary).
      const n = typeof v === 'bigint' ? v : v instanceof PyFloat && Number.isInteger(v.value) && Math.abs(v.value) <= 2 ** 63 && v.value !== 2 ** 63 ? BigInt(v.value) : null;
      if (n !== null && n >= I64_MIN && n <= I64_MAX) {
        if (n === 0n || n === 1n) return n === 1n;
        return errors.push(err.boolParsing(loc, v)), invalid;
      }
      return errors.push(err.boolType(loc, v)), invalid;
    }
    case 'enum':
      if (typeof v !== 'string' || !spec.values.includes(v)) return errors.push(err.enum(loc, v, spec.values)), invalid;
      return v;
    case 'array': {
      if (!Array.isArray(v)) return errors.push(err.listType(loc, v)), invalid;
      const out: unknown[] = [];
      let ok = true;
      v.forEach((item, i) => {
        const r = validateJson(item, spec.items, [...loc, i], errors);
        if (r === invalid) ok = false;
        else out.push(r);
      });
      return ok ? out : invalid;
    }
    case 'number': {
      // Pydantic's lax float: ints, floats, and strings that parse as numbers.
      let n: number | null = null;
      if (typeof v === 'bigint') n = Number(v);
      else if (v instanceof PyFloat) n = v.value;
      else if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (typeof v === 'string' && /^\s*[+-]?(\d+(_\d+)*(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) n = Number(v.replace(/_/g, ''));
      if (n === null) return errors.push(typeof v === 'string' ? err.floatParsing(loc, v) : err.floatType(loc, v)), invalid;
      if (spec.minimum !== undefined && n < spec.minimum) return errors.push(err.ge(loc, v, spec.minimum)), invalid;
      if (spec.maximum !== undefined && n > spec.maximum) return errors.push(err.le(loc, v, spec.maximum)), invalid;
      return n;
    }
    case 'dict': {
      if (!isPyDict(v)) return errors.push(err.dictType(loc, v)), invalid;
      if (!spec.values) return toPlain(v);
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const [k, item] of v) {
        const r = validateJson(item, spec.values, [...loc, k], errors);
        if (r === invalid) ok = false;
        else out[k] = r;
      }
      return ok ? out : invalid;
    }
    case 'object':
      if (!isPyDict(v)) return errors.push(err.modelType(loc, v)), invalid;
      return validateModel(v, spec.fields, loc, errors);
    default:
      return toPlain(v);
  }
}

/** A Pydantic model: fields checked in declaration order, unknown keys ignored. */
export function validateModel(obj: PyDict, fields: FieldSpec[], loc: Loc, errors: PydanticError[]): Out {
  const out: Record<string, unknown> = {};
  let ok = true;
  for (const f of fields) {
    if (!obj.has(f.name)) {
      if (f.required) {
        errors.push(err.missing([...loc, f.name], obj));
        ok = false;
      } else out[f.name] = f.spec.default;
      continue;
    }
    const r = validateJson(obj.get(f.name)!, f.spec, [...loc, f.name], errors);
    if (r === invalid) ok = false;
    else out[f.name] = r;
  }
  return ok ? out : invalid;
}

export const INVALID = invalid;
