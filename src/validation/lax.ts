/**
 * Pydantic v2's lax parsing, the one thing eov's Ajv cannot be told to do: strings parsed as
 * pydantic-core parses them (parameters, form fields), and JSON values of a near type accepted
 * as Pydantic accepts them. Constraints (bounds, lengths, patterns, enums…) are eov's.
 */
import { err, type Loc, type PydanticError } from '../errors/catalogue.js';
import { PyFloat, type PyValue } from '../python/values.js';

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
function parseIntString(raw: string): bigint | 'size' | null {
  const s = raw.replace(RUST_WS, '');
  if (s.length > 4300) return 'size';
  const m = INT.test(s) ? s : INT_DOT_ZEROS.exec(s)?.[1];
  return m === undefined ? null : BigInt(m.replace(/_/g, ''));
}

/** pydantic-core's `str_as_bool`: case-insensitive spellings, no trimming. */
function parseBoolString(s: string): boolean | null {
  const l = s.toLowerCase();
  if (TRUE.has(l)) return true;
  if (FALSE.has(l)) return false;
  return null;
}

/**
 * A parameter or form field arrives as a string; Pydantic parses it by the declared type before
 * any constraint is checked. Integers and booleans are parsed here (eov's Ajv coercion accepts
 * `1e2`, `0x10`, `5.` and rejects `1_0` and `yes`); everything else stays a string for eov.
 */
export function parseStringInput(raw: string, schema: Record<string, any>, loc: Loc, errors: PydanticError[]): Out {
  switch (schema.type) {
    case 'integer': {
      const v = parseIntString(raw);
      if (v === 'size') return errors.push(err.intParsingSize(loc, raw)), invalid;
      if (v === null) return errors.push(err.intParsing(loc, raw)), invalid;
      return Number(v);
    }
    case 'boolean': {
      const v = parseBoolString(raw);
      if (v === null) return errors.push(err.boolParsing(loc, raw)), invalid;
      return v;
    }
    case 'number': {
      const n = parseFloatString(raw);
      if (n === null) return errors.push(err.floatParsing(loc, raw)), invalid;
      return n;
    }
    case 'array':
      // A repeated query parameter would be a list; one value is a list of one.
      return [raw];
    default:
      return raw;
  }
}

function parseFloatString(s: string): number | null {
  return /^\s*[+-]?(\d+(_\d+)*(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(s) ? Number(s.replace(/_/g, '')) : null;
}

/**
 * Pydantic's lax mode for a JSON value of the wrong JSON type: `"true"`/`1` for a boolean, `5.0` or
 * `"5"` for an integer, a numeric string for a number. eov reported a type error at `loc`; this
 * either converts the value (and eov runs again) or names Pydantic's error for it.
 */
export function laxJson(v: PyValue, type: string, loc: Loc): { value: unknown } | PydanticError {
  switch (type) {
    case 'integer': {
      if (typeof v === 'bigint') return { value: Number(v) };
      if (v instanceof PyFloat) {
        if (!Number.isInteger(v.value)) return err.intFromFloat(loc, v);
        if (Math.abs(v.value) >= 2 ** 63) return err.intParsingSize(loc, v);
        return { value: v.value };
      }
      if (typeof v === 'boolean') return { value: v ? 1 : 0 };
      if (typeof v === 'string') {
        const n = parseIntString(v);
        if (n === 'size') return err.intParsingSize(loc, v);
        if (n === null) return err.intParsing(loc, v);
        return { value: Number(n) };
      }
      return err.intType(loc, v);
    }
    case 'boolean': {
      if (typeof v === 'boolean') return { value: v };
      if (typeof v === 'string') {
        const b = parseBoolString(v);
        return b === null ? err.boolParsing(loc, v) : { value: b };
      }
      // Numbers: 0 and 1 (also as 0.0 and 1.0) are accepted; other whole numbers that fit a
      // 64-bit integer cannot be interpreted; anything else (fractions, bigger numbers) is not a
      // boolean at all (CONTRACT §5; pydantic-core's i64 boundary).
      const n = typeof v === 'bigint' ? v : v instanceof PyFloat && Number.isInteger(v.value) && Math.abs(v.value) <= 2 ** 63 && v.value !== 2 ** 63 ? BigInt(v.value) : null;
      if (n !== null && n >= I64_MIN && n <= I64_MAX) return n === 0n || n === 1n ? { value: n === 1n } : err.boolParsing(loc, v);
      return err.boolType(loc, v);
    }
    case 'number': {
      if (typeof v === 'bigint') return { value: Number(v) };
      if (v instanceof PyFloat) return { value: v.value };
      if (typeof v === 'boolean') return { value: v ? 1 : 0 };
      if (typeof v === 'string') {
        const n = parseFloatString(v);
        return n === null ? err.floatParsing(loc, v) : { value: n };
      }
      return err.floatType(loc, v);
    }
    case 'string':
      return err.stringType(loc, v);
    case 'array':
      return err.listType(loc, v);
    default:
      return err.dictType(loc, v);
  }
}

export const INVALID = invalid;
