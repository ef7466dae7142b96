/**
 * Holds one answer back until it is complete, so that it can be checked against its document
 * before anything leaves: the control plane's handlers write their answers themselves (JSON,
 * XML, streamed exports), so response validation there sees the bytes, not a value. Used only
 * with --validate-responses (the test suite), where buffering a whole answer is affordable.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Throws when the answer leaves its document; the answer is then a 500 naming why. */
export type AnswerCheck = (status: number, contentType: string | undefined, body: Buffer | undefined) => void;

type Callback = (error?: Error | null) => void;

export function holdAnswerForCheck(res: ServerResponse, check: AnswerCheck, onMismatch: (e: Error) => void): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const chunks: Buffer[] = [];
  let head: unknown[] | undefined;
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);

  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    head = args;
    return this;
  } as ServerResponse['writeHead'];
  res.write = function (chunk: unknown, encoding?: unknown, cb?: unknown) {
    chunks.push(toBuffer(chunk, encoding));
    const done = (typeof encoding === 'function' ? encoding : cb) as Callback | undefined;
    if (done) process.nextTick(done);
    return true;
  } as ServerResponse['write'];
  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, cb?: unknown) {
    if (typeof chunk === 'function') [cb, chunk] = [chunk, undefined];
    else if (typeof encoding === 'function') [cb, encoding] = [encoding, undefined];
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    Object.assign(res, original);
    // writeHead's headers, as Node would apply them, decide the status and media type checked.
    const status = typeof head?.[0] === 'number' ? head[0] : res.statusCode;
    const headers = (head?.find((a) => a !== null && typeof a === 'object') ?? {}) as OutgoingHttpHeaders;
    const typeHeader = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? res.getHeader('content-type');
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    try {
      if (status < 500) check(status, typeHeader === undefined ? undefined : String(typeHeader), body);
    } catch (e) {
      onMismatch(e as Error);
      const text = Buffer.from(JSON.stringify({ detail: (e as Error).message }), 'utf8');
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': String(text.length) });
      return res.end(text, cb as Callback | undefined);
    }
    if (head) res.writeHead(...(head as Parameters<ServerResponse['writeHead']>));
    return body ? res.end(body, cb as Callback | undefined) : res.end(cb as Callback | undefined);
  } as ServerResponse['end'];
}
