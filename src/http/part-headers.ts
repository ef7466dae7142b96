/**
 * The one place multipart framing is corrected before busboy (multer's parser) sees it: a
 * Transform given to multer as its `streamHandler` stream. It passes every byte of part content
 * through untouched and rewrites only part header blocks, so busboy decides what python-multipart
 * (FastAPI's) decides:
 * - the body must open with the boundary (busboy skips a preamble; Starlette answers 400);
 * - `filename=""` is a file (busboy and multer treat it as a plain field);
 * - only `filename*=` is a plain field (busboy makes it a file);
 * - an `application/octet-stream` part without a filename is a plain field (busboy: a file);
 * - names and filenames are kept as sent (multer decodes `%22`, `%0A`, `%0D`; append-field nests
 *   `a[b]`): busboy sees `name="p<n>"` and the original headers are kept here by part number.
 */
import { Transform, type TransformCallback } from 'node:stream';

export class MultipartError extends Error {}

export interface PartInfo {
  /** undefined: a part without a name, which Starlette ignores. */
  name: string | undefined;
  /** undefined: a plain field; a string (possibly empty): a file. */
  filename: string | undefined;
  contentType: string | undefined;
}

const MAX_HEADER_BYTES = 16 * 1024;
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The boundary parameter of a multipart Content-Type, or null. */
export function boundaryOf(contentType: string): string | null {
  const b = parseParams(contentType.split(';').slice(1).join(';')).get('boundary');
  return b ? b : null;
}

/** `key=value; key="quoted \" value"` parameters, names lower-cased. */
function parseParams(s: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /\s*([^=;\s]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*)))?\s*(?:;|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < s.length && (m = re.exec(s))) {
    if (m[0] === '') break;
    // Python's email.utils.unquote undoes only \\ and \" (a Windows path keeps its backslashes).
    out.set(m[1].toLowerCase(), m[2] !== undefined ? m[2].replace(/\\([\\"])/g, '$1') : (m[3] ?? '').trim());
  }
  return out;
}

/** What Starlette reads from one part's header block. */
function readPartHeaders(block: Buffer): PartInfo {
  let disposition: string | undefined;
  let contentType: string | undefined;
  for (const line of utf8.decode(block).split('\r\n')) {
    if (!line) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('part header without a colon');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') disposition = value;
    else if (name === 'content-type') contentType = value;
  }
  const params = parseParams((disposition ?? '').split(';').slice(1).join(';'));
  let filename = params.get('filename');
  const star = params.get('filename*');
  if (star !== undefined && filename !== undefined) {
    const m = /^([^']*)'[^']*'(.*)$/.exec(star);
    try {
      filename = m ? decodeURIComponent(m[2]) : star;
    } catch {
      filename = m ? m[2] : star;
    }
  }
  return { name: params.get('name'), filename, contentType };
}

type State = 'opening' | 'after-boundary' | 'headers' | 'data' | 'done';

/** The request body with part headers replaced; `parts[n]` is what part `p<n>` really said. */
export class PartHeaderCorrector extends Transform {
  readonly parts: PartInfo[] = [];
  readonly #delimiter: Buffer;
  #state: State = 'opening';
  #buf: Buffer = Buffer.alloc(0);

  constructor(boundary: string) {
    super();
    this.#delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
      while (this.#step());
      cb();
    } catch (e) {
      cb(e as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    // A body cut short goes on as it is: busboy reports the cut, and the parts completed before
    // it stand (readMultipart).
    if (this.#buf.length) this.push(this.#buf);
    cb();
  }

  #step(): boolean {
    const buf = this.#buf;
    const d = this.#delimiter;
    switch (this.#state) {
      case 'opening': {
        let i = 0;
        while (i < buf.length && (buf[i] === 13 || buf[i] === 10)) i++;
        const opening = d.subarray(2);
        const have = buf.subarray(i, i + opening.length);
        if (!opening.subarray(0, have.length).equals(have)) throw new MultipartError('body does not start with the boundary');
        if (have.length < opening.length) return false;
        this.push(buf.subarray(i, i + opening.length));
        return this.#rest(i + opening.length, 'after-boundary');
      }
      case 'after-boundary': {
        if (buf.length < 2) return false;
        if (buf[0] === 45 && buf[1] === 45) {
          this.push(buf);
          return this.#rest(buf.length, 'done');
        }
        if (buf[0] !== 13 || buf[1] !== 10) throw new MultipartError('unexpected bytes after a boundary');
        this.push(buf.subarray(0, 2));
        return this.#rest(2, 'headers');
      }
      case 'headers': {
        const blank = buf.length >= 2 && buf[0] === 13 && buf[1] === 10;
        const end = blank ? 0 : buf.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buf.length > MAX_HEADER_BYTES) throw new MultipartError('part headers too large');
          return false;
        }
        if (end > MAX_HEADER_BYTES) throw new MultipartError('part headers too large');
        const info = readPartHeaders(buf.subarray(0, end));
        const n = this.parts.push(info) - 1;
        // busboy sees a plain name, a filename exactly when Starlette sees a file, and no content
        // type (it would make an octet-stream field a file; the real one is kept in `parts`).
        let header = `Content-Disposition: form-data; name="p${n}"`;
        if (info.filename !== undefined) header += `; filename="p${n}"`;
        this.push(Buffer.from(`${header}\r\n\r\n`, 'latin1'));
        return this.#rest(end + (blank ? 2 : 4), 'data');
      }
      case 'data': {
        const at = buf.indexOf(d);
        if (at < 0) {
          // Bytes that cannot be the start of a delimiter are safe to hand on now.
          const safe = Math.max(0, buf.length - d.length + 1);
          if (safe > 0) this.push(buf.subarray(0, safe));
          this.#buf = buf.subarray(safe);
          return false;
        }
        this.push(buf.subarray(0, at + d.length));
        return this.#rest(at + d.length, 'after-boundary');
      }
      case 'done':
        if (buf.length) this.push(buf);
        this.#buf = Buffer.alloc(0);
        return false;
    }
  }

  #rest(from: number, next: State): boolean {
    this.#buf = this.#buf.subarray(from);
    this.#state = next;
    return this.#buf.length > 0;
  }
}
