/**
 * The first half of `json.loads(body_bytes)`: Python's encoding detection and strict decoding of
 * the bytes (UTF-8, UTF-16 and UTF-32 with `surrogatepass`), whose failures FastAPI reports its
 * own way. json-decode.ts parses the text.
 */

/** Bytes that are not valid in the detected encoding, or nesting past Python's recursion limit. */
export class JsonUndecodableError extends Error {}

/** Python's `json.detect_encoding` followed by `bytes.decode(...)`. */
export function decodeJsonBytes(b: Uint8Array): string {
  const starts = (...sig: number[]) => sig.every((x, i) => b[i] === x);
  let enc: string;
  let skip = 0;
  if (starts(0x00, 0x00, 0xfe, 0xff)) [enc, skip] = ['utf-32be', 4];
  else if (starts(0xff, 0xfe, 0x00, 0x00)) [enc, skip] = ['utf-32le', 4];
  else if (starts(0xfe, 0xff)) [enc, skip] = ['utf-16be', 2];
  else if (starts(0xff, 0xfe)) [enc, skip] = ['utf-16le', 2];
  else if (starts(0xef, 0xbb, 0xbf)) [enc, skip] = ['utf-8', 3];
  else if (b.length >= 4) {
    if (!b[0]) enc = b[1] ? 'utf-16be' : 'utf-32be';
    else if (!b[1]) enc = b[2] || b[3] ? 'utf-16le' : 'utf-32le';
    else enc = 'utf-8';
  } else if (b.length === 2 && !b[0]) enc = 'utf-16be';
  else if (b.length === 2 && !b[1]) enc = 'utf-16le';
  else enc = 'utf-8';
  const body = b.subarray(skip);
  if (enc.startsWith('utf-32')) return decodeUtf32(body, enc === 'utf-32be');
  if (enc.startsWith('utf-16')) return decodeUtf16(body, enc === 'utf-16be');
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return decodeUtf8SurrogatePass(body);
  }
}

const undecodable = (what: string) => new JsonUndecodableError(`body is not valid ${what}`);

/** UTF-16 with Python's `surrogatepass`: lone surrogates are kept, an odd byte is an error. */
function decodeUtf16(b: Uint8Array, bigEndian: boolean): string {
  if (b.length % 2) throw undecodable('utf-16 (truncated)');
  let out = '';
  for (let i = 0; i < b.length; i += 2) out += String.fromCharCode(bigEndian ? (b[i] << 8) | b[i + 1] : b[i] | (b[i + 1] << 8));
  return out;
}

/**
 * UTF-8 as Python decodes it with `surrogatepass`: strict (no overlong forms, nothing past
 * U+10FFFF), except that encoded surrogates (ED A0..BF xx) are accepted as lone surrogates.
 * Only reached when the strict decoder refused the body.
 */
function decodeUtf8SurrogatePass(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    let cp: number;
    let n: number;
    if (c < 0x80) [cp, n] = [c, 1];
    else if (c >= 0xc2 && c <= 0xdf) [cp, n] = [c & 0x1f, 2];
    else if (c >= 0xe0 && c <= 0xef) [cp, n] = [c & 0x0f, 3];
    else if (c >= 0xf0 && c <= 0xf4) [cp, n] = [c & 0x07, 4];
    else throw undecodable('utf-8');
    if (i + n > b.length) throw undecodable('utf-8');
    for (let k = 1; k < n; k++) {
      if ((b[i + k] & 0xc0) !== 0x80) throw undecodable('utf-8');
      cp = (cp << 6) | (b[i + k] & 0x3f);
    }
    if ((n === 3 && cp < 0x800) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff))) throw undecodable('utf-8');
    out += cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
    i += n;
  }
  return out;
}

function decodeUtf32(b: Uint8Array, bigEndian: boolean): string {
  if (b.length % 4) throw undecodable('utf-32 (truncated)');
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let out = '';
  for (let i = 0; i < b.length; i += 4) {
    const cp = view.getUint32(i, !bigEndian);
    if (cp > 0x10ffff) throw undecodable('utf-32');
    out += cp > 0xffff ? String.fromCodePoint(cp) : String.fromCharCode(cp);
  }
  return out;
}
