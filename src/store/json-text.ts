/**
 * JSON text with memory. Stored records are immutable values — deep-frozen; a change replaces
 * the record — so the encoded text of a frozen object never changes and can be kept. Serialising
 * a workspace of 100k records after one of them changed then copies 100k kept byte strings
 * instead of writing and encoding every field again, and a page of session files copies in each
 * file's kept bytes.
 */

/** The UTF-8 JSON text of frozen objects, by identity. One per store, one per app. */
export type TextCache = WeakMap<object, Buffer>;

/** Freezes a plain JSON value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const COMMA = 0x2c;

/** Text pieces and kept byte strings, assembled into one Buffer at the end. */
class Parts {
  readonly #parts: (string | Buffer)[] = [];
  #pending = '';
  #size = 0;

  text(s: string): void {
    this.#pending += s;
  }

  bytes(b: Buffer): void {
    this.#flush();
    this.#parts.push(b);
    this.#size += b.length;
  }

  #flush(): void {
    const p = this.#pending;
    if (!p) return;
    this.#parts.push(p);
    // Between two kept records the pending text is a lone comma, by far the most common piece.
    this.#size += p === ',' ? 1 : Buffer.byteLength(p, 'utf8');
    this.#pending = '';
  }

  toBuffer(): Buffer {
    this.#flush();
    const out = Buffer.allocUnsafe(this.#size);
    let at = 0;
    for (const p of this.#parts) {
      if (typeof p !== 'string') {
        out.set(p, at);
        at += p.length;
      } else if (p === ',') {
        out[at++] = COMMA;
      } else {
        at += out.write(p, at, 'utf8');
      }
    }
    return out;
  }
}

function isSkipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function walk(value: unknown, cache: TextCache, out: Parts): void {
  if (value === null || typeof value !== 'object') {
    out.text(JSON.stringify(value));
    return;
  }
  // A kept record first: the common case, and one WeakMap look-up.
  let bytes = cache.get(value);
  if (bytes !== undefined) {
    out.bytes(bytes);
    return;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    out.text(JSON.stringify(value));
    return;
  }
  if (Object.isFrozen(value)) {
    bytes = Buffer.from(JSON.stringify(value), 'utf8');
    cache.set(value, bytes);
    out.bytes(bytes);
    return;
  }
  if (Array.isArray(value)) {
    out.text('[');
    for (let i = 0; i < value.length; i++) {
      if (i) out.text(',');
      const v = value[i];
      if (isSkipped(v)) out.text('null');
      else walk(v, cache, out);
    }
    out.text(']');
    return;
  }
  out.text('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (isSkipped(v)) continue;
    out.text(`${first ? '' : ','}${JSON.stringify(key)}:`);
    walk(v, cache, out);
    first = false;
  }
  out.text('}');
}

/**
 * `Buffer.from(JSON.stringify(value))` for plain JSON data (objects, arrays, strings, numbers,
 * booleans, null; undefined properties left out and toJSON honoured, as JSON.stringify does),
 * reusing the kept bytes of every frozen object in it. A frozen object must be deeply frozen
 * (see deepFreeze): its text is taken once and trusted from then on.
 */
export function serializeJson(value: unknown, cache: TextCache): Buffer {
  const out = new Parts();
  walk(value, cache, out);
  return out.toBuffer();
}
