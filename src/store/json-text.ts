/**
 * JSON text with memory. Stored records are immutable values — deep-frozen; a change replaces
 * the record — so the text of a frozen object never changes and can be kept. Serialising a
 * workspace of 100k records after one of them changed then joins 100k kept strings instead of
 * writing every field again, and a page of session files splices in each file's kept text.
 */

/** The JSON text of frozen objects, by identity. One per store, one per app; never shared with mutable data. */
export type TextCache = WeakMap<object, string>;

/** Freezes a plain JSON value and everything in it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * `JSON.stringify(value)` for plain JSON data (objects, arrays, strings, numbers, booleans,
 * null; undefined properties left out and toJSON honoured, as JSON.stringify does), reusing the cached text of every
 * frozen object in it. A frozen object must be deeply frozen (see deepFreeze): its text is taken
 * once and trusted from then on.
 */
export function stringifyCached(value: unknown, cache: TextCache): string {
  if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value);
  if (Object.isFrozen(value)) {
    let text = cache.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      cache.set(value, text);
    }
    return text;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i) out += ',';
      const v = value[i];
      out += v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : stringifyCached(v, cache);
    }
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${stringifyCached(v, cache)}`;
    first = false;
  }
  return `${out}}`;
}
