/**
 * JSON values as Python's `json` module sees them. The service is a FastAPI application, and a
 * 422 echoes the caller's parsed body back as `input`; to echo it byte for byte we must keep what
 * JavaScript's JSON.parse loses: integers of any size, the difference between `1` and `1.0`, and
 * the insertion order of object keys (JavaScript moves integer-like keys first).
 */
export class PyFloat {
  constructor(readonly value: number) {}
}

export type PyValue = null | boolean | string | bigint | PyFloat | PyValue[] | PyDict;
export type PyDict = Map<string, PyValue>;

export function isPyDict(v: PyValue): v is PyDict {
  return v instanceof Map;
}

/** Python's `repr(float)`: shortest round-trip digits, exponent form outside 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = Math.abs(x).toExponential().split('e');
  const exp = Number(expText);
  const digits = mantissa.replace('.', '');
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}.${frac || '0'}`;
}

/**
 * `json.dumps(v, ensure_ascii=False, separators=(",", ":"))`, which is how FastAPI's JSONResponse
 * writes a body. Plain JavaScript values are accepted too (numbers are written as Python would
 * write an int when integral, else a float).
 */
export function pyDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloatRepr(v);
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(',')}]`;
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, val] of v) parts.push(`${JSON.stringify(k)}:${pyDumps(val)}`);
    return `{${parts.join(',')}}`;
  }
  if (typeof v === 'object') {
    const parts: string[] = [];
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      if (val !== undefined) parts.push(`${JSON.stringify(k)}:${pyDumps(val)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(String(v));
}

/** A PyValue as a plain JavaScript value, for handlers (floats and big integers become numbers). */
export function toPlain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Map) {
    const o: Record<string, unknown> = Object.create(null);
    for (const [k, val] of v) o[k] = toPlain(val);
    return o;
  }
  return v;
}

/** A plain JavaScript value (from JSON.parse or a handler) as a PyValue. */
export function fromPlain(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string' || typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : new PyFloat(v);
  if (Array.isArray(v)) return v.map(fromPlain);
  const m: PyDict = new Map();
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) m.set(k, fromPlain(val));
  return m;
}

/** `len(s)` in Python: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
