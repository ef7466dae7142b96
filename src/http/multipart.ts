/**
 * A streaming multipart/form-data parser that fails where Starlette's (python-multipart) fails,
 * so framing errors get the service's answers (CONTRACT §5): the body must open with the
 * boundary; a part ends at CRLF--boundary; a body without its closing boundary keeps the parts
 * completed before the cut (so a lone unfinished `file` part is "missing"); `filename=""` is still
 * a file. busboy (multer's parser) cannot tell `filename=""` from no filename and treats any
 * application/octet-stream part as a file, which is why this one is ours.
 */
import { PassThrough, Writable } from 'node:stream';

export class MultipartError extends Error {}

export interface PartHeaders {
  name: string | undefined;
  /** undefined: a plain field; a string (possibly empty): a file. */
  filename: string | undefined;
  contentType: string | undefined;
}

export interface MultipartHandlers {
  /** A file part begins: consume `stream` (back-pressure is honoured). */
  onFile(part: PartHeaders, stream: PassThrough): void;
  /** A plain field, complete. */
  onField(part: PartHeaders, value: string): void;
}

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_PARTS = 1000;
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The boundary parameter of a multipart Content-Type, or null. */
export function boundaryOf(contentType: string): string | null {
  const params = parseParams(contentType.split(';').slice(1).join(';'));
  const b = params.get('boundary');
  return b ? b : null;
}

/** `key=value; key="quoted \" value"` parameters, names lower-cased. */
function parseParams(s: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /\s*([^=;\s]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*)))?\s*(?:;|$)/gy;
  let m: RegExpExecArray | null;
  while (re.lastIndex < s.length && (m = re.exec(s))) {
    if (m[0] === '') break;
    const key = m[1].toLowerCase();
    // Python's email.utils.unquote undoes only \\ and \" (a Windows path keeps its backslashes).
    const value = m[2] !== undefined ? m[2].replace(/\\([\\"])/g, '$1') : (m[3] ?? '').trim();
    out.set(key, value);
  }
  return out;
}

function parsePartHeaders(block: Buffer): PartHeaders {
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
  if (star !== undefined) {
    const m = /^([^']*)'[^']*'(.*)$/.exec(star);
    try {
      filename = m ? decodeURIComponent(m[2]) : star;
    } catch {
      filename = m ? m[2] : star;
    }
  }
  return { name: params.get('name'), filename, contentType };
}

type State = 'preamble' | 'headers' | 'data' | 'after-boundary' | 'done';

/** A Writable the request is piped into; `finished` settles with whether the closing boundary came. */
export class MultipartParser extends Writable {
  readonly #delimiter: Buffer; // \r\n--boundary
  readonly #handlers: MultipartHandlers;
  #state: State = 'preamble';
  #buf: Buffer = Buffer.alloc(0);
  #part: PartHeaders | null = null;
  #fileStream: PassThrough | null = null;
  #field: Buffer[] = [];
  #fieldSize = 0;
  #parts = 0;
  complete = false;

  constructor(boundary: string, handlers: MultipartHandlers) {
    super();
    this.#delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.#handlers = handlers;
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    try {
      this.#run(cb);
    } catch (e) {
      cb(e as Error);
    }
  }

  override _final(cb: (err?: Error | null) => void): void {
    // A body cut off before its closing boundary: parts completed so far stand, an unfinished
    // one is dropped (its file stream ends with an error so the consumer discards it).
    if (this.#fileStream) this.#fileStream.destroy(new MultipartError('unterminated part'));
    this.#fileStream = null;
    cb();
  }

  #run(cb: (err?: Error | null) => void): void {
    for (;;) {
      const progressed = this.#step();
      if (progressed === 'wait-drain') {
        this.#fileStream!.once('drain', () => {
          try {
            this.#run(cb);
          } catch (e) {
            cb(e as Error);
          }
        });
        return;
      }
      if (!progressed) return cb();
    }
  }

  /** One parsing step; false when more input is needed. */
  #step(): boolean | 'wait-drain' {
    const buf = this.#buf;
    switch (this.#state) {
      case 'preamble': {
        let i = 0;
        while (i < buf.length && (buf[i] === 13 || buf[i] === 10)) i++;
        const opening = this.#delimiter.subarray(2); // --boundary
        const have = buf.subarray(i, i + opening.length);
        if (!opening.subarray(0, have.length).equals(have)) throw new MultipartError('body does not start with the boundary');
        if (have.length < opening.length) return false;
        this.#buf = buf.subarray(i + opening.length);
        this.#state = 'after-boundary';
        return true;
      }
      case 'after-boundary': {
        if (buf.length < 2) return false;
        if (buf[0] === 45 && buf[1] === 45) {
          this.complete = true;
          this.#state = 'done';
          this.#buf = Buffer.alloc(0);
          return false;
        }
        if (buf[0] === 13 && buf[1] === 10) {
          this.#buf = buf.subarray(2);
          this.#state = 'headers';
          return true;
        }
        throw new MultipartError('unexpected bytes after a boundary');
      }
      case 'headers': {
        const end = buf.indexOf('\r\n\r\n');
        const blank = buf.length >= 2 && buf[0] === 13 && buf[1] === 10;
        if (end < 0 && !blank) {
          if (buf.length > MAX_HEADER_BYTES) throw new MultipartError('part headers too large');
          return false;
        }
        const headerEnd = blank ? 0 : end;
        if (headerEnd > MAX_HEADER_BYTES) throw new MultipartError('part headers too large');
        const part = parsePartHeaders(buf.subarray(0, headerEnd));
        this.#buf = buf.subarray(headerEnd + (blank ? 2 : 4));
        if (++this.#parts > MAX_PARTS) throw new MultipartError('too many parts');
        this.#part = part;
        this.#state = 'data';
        if (part.filename !== undefined) {
          this.#fileStream = new PassThrough();
          this.#handlers.onFile(part, this.#fileStream);
        } else {
          this.#field = [];
          this.#fieldSize = 0;
        }
        return true;
      }
      case 'data': {
        const at = buf.indexOf(this.#delimiter);
        // Bytes that cannot be the start of a delimiter are safe to hand on now.
        const safe = at >= 0 ? at : Math.max(0, buf.length - this.#delimiter.length + 1);
        let needDrain = false;
        if (safe > 0) needDrain = this.#emitData(buf.subarray(0, safe));
        if (at < 0) {
          this.#buf = buf.subarray(safe);
          return needDrain ? 'wait-drain' : false;
        }
        this.#buf = buf.subarray(at + this.#delimiter.length);
        // The part's stream is ended here; its consumer reads what is buffered at its own pace.
        this.#endPart();
        this.#state = 'after-boundary';
        return true;
      }
      case 'done':
        this.#buf = Buffer.alloc(0);
        return false;
    }
  }

  #emitData(data: Buffer): boolean {
    if (this.#fileStream) return !this.#fileStream.write(data);
    this.#fieldSize += data.length;
    if (this.#fieldSize > MAX_FIELD_BYTES) throw new MultipartError('field too large');
    this.#field.push(Buffer.from(data));
    return false;
  }

  #endPart(): void {
    const part = this.#part!;
    // A file part's stream ends normally only here, at its closing boundary.
    if (this.#fileStream) {
      const stream = this.#fileStream;
      this.#fileStream = null;
      stream.end();
    } else {
      this.#handlers.onField(part, utf8.decode(Buffer.concat(this.#field)));
    }
    this.#part = null;
  }
}

