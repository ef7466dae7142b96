/**
 * Replies, and the one sender that writes them. A handler of either API (the service's
 * operations, the control plane's) returns a Reply and never sees the response; so do the stages
 * around it (pipeline/stages.ts): a 307 with its Location, an error's `{"detail": …}`, a fault's
 * body, a dropped connection are replies too. `sendReply` is the only place their status and
 * headers are written. What is not a reply of either API writes itself: the proxy's verbatim
 * pass-through (proxy/forward.ts) and the connection limits' 503 (http/connection-limits.ts).
 *
 * A reply carries at most one body:
 * - `json`: a value, written by the API's own JSON writer (the service's serializeJson with its
 *   text cache, JSON.stringify for the control plane), as `application/json` with its length;
 * - `jsonText`: JSON already written (an error, a fault's body, /health);
 * - `body`: bytes or text sent as they are, its Content-Type in `headers` (JUnit XML, a page);
 * - `stream`: bytes piped with backpressure, never buffered; an error once the headers are out
 *   destroys the socket;
 * - none: no content.
 * `drop` instead cuts the connection without an answer (a status-0 fault).
 */
import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import type { HttpError } from '../errors/http-error.js';
import { pyDumps } from '../python/values.js';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** A JSON value, serialised by the API's JSON writer (compactly, as FastAPI does). */
  json?: unknown;
  /** JSON text already written. */
  jsonText?: string;
  /** Bytes or text as they are; the Content-Type is the headers'. */
  body?: string | Buffer;
  /** Streamed bytes (a download, a snapshot export). */
  stream?: Readable;
  /** Cut the connection instead of answering. */
  drop?: boolean;
}

/** How an API writes a JSON value. */
export type JsonWriter = (value: unknown) => Buffer;

/** The control plane's (and the mock's own pages') JSON writer. */
export const stringifyJson: JsonWriter = (value) => Buffer.from(JSON.stringify(value), 'utf8');

/** An HttpError as FastAPI writes it: `{"detail": …}` with the error's headers. */
export function errorReply(e: HttpError): Reply {
  return { status: e.status, headers: e.headers, jsonText: pyDumps({ detail: e.detail }) };
}

/** A reply's media type, as its Content-Type will say (undefined when it has no content). */
export function replyType(reply: Reply): string | undefined {
  return reply.json !== undefined || reply.jsonText !== undefined ? 'application/json' : reply.headers?.['Content-Type'];
}

/** Writes one reply. */
export function sendReply(res: ServerResponse, reply: Reply, writeJson: JsonWriter): void {
  if (reply.drop) {
    res.destroy();
    return;
  }
  const stream = reply.stream;
  if (stream) {
    try {
      res.writeHead(reply.status, reply.headers);
    } catch (e) {
      // The stream holds a descriptor from the moment it was made: close it on every way out.
      stream.destroy();
      throw e;
    }
    // pipeline (unlike pipe) destroys the source when the client goes away mid-download, so an
    // abandoned download closes its file instead of keeping it (and a deleted blob) open.
    pipeline(stream, res, (err) => {
      if (err) res.destroy();
    });
    return;
  }
  if (reply.json !== undefined || reply.jsonText !== undefined) {
    const body = reply.json !== undefined ? writeJson(reply.json) : Buffer.from(reply.jsonText!, 'utf8');
    res.writeHead(reply.status, { ...reply.headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    res.end(body);
    return;
  }
  if (reply.body !== undefined) {
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
    res.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(body.length) });
    res.end(body);
    return;
  }
  res.writeHead(reply.status, reply.headers);
  res.end();
}

/** An error answer outside either API's stages (a guard, the last 404): FastAPI's `{"detail": …}`. */
export function sendError(res: ServerResponse, e: HttpError): void {
  sendReply(res, errorReply(e), stringifyJson);
}
