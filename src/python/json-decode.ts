/**
 * `json.loads(body_bytes)` as CPython 3.11's C scanner does it, because FastAPI answers a body it
 * cannot decode with `json_invalid` carrying Python's message and its offset in code points.
 * V8's JSON.parse reports different messages and UTF-16 offsets, so we cannot translate its errors.
 */
import { JsonUndecodableError } from './json-bytes.js';
import { PyFloat, type PyDict, type PyValue } from './values.js';

// The bytes → text half of json.loads lives in json-bytes.ts; its callers take both from here.
export { decodeJsonBytes, JsonUndecodableError } from './json-bytes.js';

export class JsonDecodeError extends Error {
  constructor(readonly msg: string, readonly pos: number) {
    super(`${msg}: char ${pos}`);
  }
}

const MAX_DEPTH = 1000;

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /^(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/;
const HEX = /^[0-9a-fA-F]{4}$/;
/** Where a string's plain run ends: its closing quote, an escape, or a control character. */
const STRING_STOP = /["\\\u0000-\u001f]/g;
const SURROGATE = /[\ud800-\udfff]/;

/** Parses decoded text; throws JsonDecodeError with Python's message and code-point offset. */
export function pyJsonLoads(text: string): PyValue {
  // Python's offsets count code points. Without surrogates a UTF-16 index is one, and the text is
  // scanned as it is; with them it is split into code points first (an array of one-character
  // strings: ~20× the memory and several times slower, so only where it changes the offsets).
  const s: string | string[] = SURROGATE.test(text) ? Array.from(text) : text;
  const n = s.length;
  const sub = (from: number, to?: number): string => (typeof s === 'string' ? s.slice(from, to) : s.slice(from, to).join(''));
  /** The first quote, backslash or control character at or after `i` (n if none). */
  const stringStop = (i: number): number => {
    if (typeof s === 'string') {
      STRING_STOP.lastIndex = i;
      return STRING_STOP.exec(s)?.index ?? n;
    }
    let j = i;
    while (j < n && s[j] !== '"' && s[j] !== '\\' && s[j].codePointAt(0)! >= 0x20) j++;
    return j;
  };
  const skipWs = (i: number) => {
    while (i < n && WS.has(s[i])) i++;
    return i;
  };
  // A StopIteration in Python's scanner: "Expecting value" at that index.
  class Stop {
    constructor(readonly idx: number) {}
  }

  function scanString(begin: number): [string, number] {
    // begin is the index just after the opening quote
    let out = '';
    let i = begin;
    for (;;) {
      const j = stringStop(i);
      if (j >= n) throw new JsonDecodeError('Unterminated string starting at', begin - 1);
      if (s[j] !== '"' && s[j] !== '\\') throw new JsonDecodeError('Invalid control character at', j);
      out += sub(i, j);
      if (s[j] === '"') return [out, j + 1];
      // backslash
      let next = j + 1;
      if (next >= n) throw new JsonDecodeError('Unterminated string starting at', begin - 1);
      const c = s[next];
      if (c !== 'u') {
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (!(c in simple)) throw new JsonDecodeError('Invalid \\escape', next - 1);
        out += simple[c];
        i = next + 1;
        continue;
      }
      next++;
      let end = next + 4;
      if (end >= n) throw new JsonDecodeError('Invalid \\uXXXX escape', next - 1);
      const hex = sub(next, end);
      if (!HEX.test(hex)) throw new JsonDecodeError('Invalid \\uXXXX escape', end - 5);
      let code = parseInt(hex, 16);
      next = end;
      if (code >= 0xd800 && code <= 0xdbff && end + 6 < n && s[next] === '\\' && s[next + 1] === 'u') {
        const hex2 = sub(next + 2, next + 6);
        if (!HEX.test(hex2)) throw new JsonDecodeError('Invalid \\uXXXX escape', end + 1);
        const code2 = parseInt(hex2, 16);
        if (code2 >= 0xdc00 && code2 <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (code2 - 0xdc00);
          end += 6;
        }
      }
      out += String.fromCodePoint(code);
      i = end;
    }
  }

  function scanOnce(idx: number, depth: number): [PyValue, number] {
    if (idx >= n) throw new Stop(idx);
    const c = s[idx];
    if (c === '"') return scanString(idx + 1);
    if (c === '{') return scanObject(idx + 1, depth + 1);
    if (c === '[') return scanArray(idx + 1, depth + 1);
    if (c === 'n' && sub(idx, idx + 4) === 'null') return [null, idx + 4];
    if (c === 't' && sub(idx, idx + 4) === 'true') return [true, idx + 4];
    if (c === 'f' && sub(idx, idx + 5) === 'false') return [false, idx + 5];
    // Python would accept NaN, Infinity and -Infinity here and then fail with a 500 when the
    // response is encoded; we deliberately report them as "Expecting value" (CONTRACT §5).
    const rest = sub(idx, idx + 400);
    const m = NUMBER.exec(rest);
    if (m) {
      let len = m[0].length;
      if (len === rest.length && idx + len < n) {
        // a number longer than the window: extend it
        const full = NUMBER.exec(sub(idx))!;
        len = full[0].length;
        return [toNumber(full, idx), idx + len];
      }
      return [toNumber(m, idx), idx + len];
    }
    throw new Stop(idx);
  }

  function toNumber(m: RegExpExecArray, idx: number): PyValue {
    if (m[2] === undefined && m[3] === undefined) return BigInt(m[1]);
    const f = Number(m[0]);
    if (!Number.isFinite(f)) throw new Stop(idx);
    return new PyFloat(f);
  }

  function checkDepth(depth: number) {
    if (depth > MAX_DEPTH) throw new JsonUndecodableError('maximum recursion depth exceeded');
  }

  function scanObject(idx: number, depth: number): [PyValue, number] {
    checkDepth(depth);
    const obj: PyDict = new Map();
    let i = skipWs(idx);
    if (s[i] !== '"') {
      if (s[i] === '}') return [obj, i + 1];
      throw new JsonDecodeError('Expecting property name enclosed in double quotes', i);
    }
    for (;;) {
      const [key, afterKey] = scanString(i + 1);
      i = skipWs(afterKey);
      if (s[i] !== ':') throw new JsonDecodeError("Expecting ':' delimiter", i);
      i = skipWs(i + 1);
      let value: PyValue;
      try {
        [value, i] = scanOnce(i, depth);
      } catch (e) {
        if (e instanceof Stop) throw new JsonDecodeError('Expecting value', e.idx);
        throw e;
      }
      obj.set(key, value);
      i = skipWs(i);
      if (s[i] === '}') return [obj, i + 1];
      if (s[i] !== ',') throw new JsonDecodeError("Expecting ',' delimiter", i);
      i = skipWs(i + 1);
      if (s[i] !== '"') throw new JsonDecodeError('Expecting property name enclosed in double quotes', i);
    }
  }

  function scanArray(idx: number, depth: number): [PyValue, number] {
    checkDepth(depth);
    const arr: PyValue[] = [];
    let i = skipWs(idx);
    if (s[i] === ']') return [arr, i + 1];
    for (;;) {
      let value: PyValue;
      try {
        [value, i] = scanOnce(i, depth);
      } catch (e) {
        if (e instanceof Stop) throw new JsonDecodeError('Expecting value', e.idx);
        throw e;
      }
      arr.push(value);
      i = skipWs(i);
      if (s[i] === ']') return [arr, i + 1];
      if (s[i] !== ',') throw new JsonDecodeError("Expecting ',' delimiter", i);
      i = skipWs(i + 1);
    }
  }

  const start = skipWs(0);
  let value: PyValue;
  let end: number;
  try {
    [value, end] = scanOnce(start, 0);
  } catch (e) {
    if (e instanceof Stop) throw new JsonDecodeError('Expecting value', e.idx);
    throw e;
  }
  end = skipWs(end);
  if (end !== n) throw new JsonDecodeError('Extra data', end);
  return value;
}
