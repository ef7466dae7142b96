/**
 * Reading a request body the way the service's stack does, before authentication (CONTRACT §8):
 * JSON as FastAPI decides it is JSON, forms as Starlette parses them, multipart streamed with
 * file parts going straight to temporary blobs. Framing problems become the service's 400, 413
 * and 422 answers here.
 */
import type { IncomingMessage } from 'node:http';
import { DETAIL, HttpError, validationError } from '../errors/http-error.js';
import { err } from '../errors/catalogue.js';
import type { BodyKind } from '../openapi.js';
import { JsonDecodeError, JsonUndecodableError, decodeJsonBytes, pyJsonLoads } from '../python/json-decode.js';
import { pyParseQsl } from '../python/url.js';
import type { PyValue } from '../python/values.js';
import type { BlobStore, WrittenBlob } from '../store/blobs.js';
import { MultipartError, MultipartParser, boundaryOf } from './multipart.js';

/** JSON and urlencoded bodies larger than this are refused (chosen; FastAPI sets no limit). */
export const MAX_FORM_BODY = 1024 * 1024;

export interface UploadedPart {
  filename: string;
  contentType: string | undefined;
  blob: WrittenBlob;
}

export type FormValue = { type: 'field'; value: string } | { type: 'file'; upload: UploadedPart };

export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; value: PyValue }
  /** A body sent with a non-JSON content type to a JSON operation: Pydantic sees the raw text. */
  | { kind: 'raw'; text: string }
  /** Form fields (urlencoded or multipart); for a repeated name the last wins, as Starlette's FormData.get. */
  | { kind: 'form'; fields: Map<string, FormValue>; discarded: WrittenBlob[] };

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** FastAPI parses a body as JSON when its type is application/json or application/*+json. */
export function isJsonType(contentType: string | undefined): boolean {
  const mt = mediaType(contentType);
  const [main, sub] = mt.split('/');
  return main === 'application' && sub !== undefined && (sub === 'json' || sub.endsWith('+json'));
}

/** Reads the whole body up to `limit` bytes; past it, a 413 (the connection is then closed). */
export async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge() {
  return new HttpError(413, DETAIL.bodyTooLarge, { Connection: 'close' });
}

export interface ReadBodyOptions {
  blobs: BlobStore;
  maxUpload: number;
}

export async function readBody(req: IncomingMessage, kind: BodyKind, opts: ReadBodyOptions): Promise<ParsedBody> {
  const contentType = req.headers['content-type'];
  const mt = mediaType(contentType);
  if (kind === 'json') {
    const raw = await readRaw(req, MAX_FORM_BODY);
    if (raw.length === 0) return { kind: 'none' };
    if (!isJsonType(contentType)) return { kind: 'raw', text: utf8.decode(raw) };
    return { kind: 'json', value: decodeJson(raw) };
  }
  if (mt === 'multipart/form-data') return readMultipart(req, contentType!, opts);
  if (mt === 'application/x-www-form-urlencoded') {
    const raw = await readRaw(req, MAX_FORM_BODY);
    const fields = new Map<string, FormValue>();
    for (const [k, v] of pyParseQsl(raw.toString('latin1'))) fields.set(k, { type: 'field', value: v });
    return { kind: 'form', fields, discarded: [] };
  }
  // Starlette's request.form() with any other content type is an empty form.
  await readRaw(req, MAX_FORM_BODY);
  return { kind: 'form', fields: new Map(), discarded: [] };
}

function decodeJson(raw: Buffer): PyValue {
  try {
    return pyJsonLoads(decodeJsonBytes(raw));
  } catch (e) {
    if (e instanceof JsonDecodeError) throw validationError([err.jsonInvalid(e.pos, e.msg)]);
    if (e instanceof JsonUndecodableError) throw new HttpError(400, DETAIL.bodyParseError);
    throw e;
  }
}

async function readMultipart(req: IncomingMessage, contentType: string, opts: ReadBodyOptions): Promise<ParsedBody> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new HttpError(400, DETAIL.missingBoundary);
  // Completed parts in arrival order; a file part completes when its blob is written.
  const completed: { seq: number; name: string; value: FormValue }[] = [];
  const writes: Promise<void>[] = [];
  let seq = 0;
  const parser = new MultipartParser(boundary, {
    onFile(part, stream) {
      if (part.name === undefined) {
        stream.resume();
        return;
      }
      const entry = { seq: seq++, name: part.name };
      // Only a part that reached its closing boundary counts; an unfinished one rejects here.
      writes.push(
        opts.blobs.writeTemp(stream, opts.maxUpload).then(
          (blob) => {
            completed.push({ ...entry, value: { type: 'file', upload: { filename: part.filename ?? '', contentType: part.contentType, blob } } });
          },
          // A write that failed (a full disk: 507) ends the body at once; the parser would
          // otherwise wait for a drain from a stream that is gone.
          // (An unfinished part, cut off by the body's end, just does not count.)
          (e) => {
            if (!(e instanceof HttpError)) return;
            failure ??= e;
            fail(e);
          },
        ),
      );
    },
    onField(part, value) {
      if (part.name !== undefined) completed.push({ seq: seq++, name: part.name, value: { type: 'field', value } });
    },
  });
  let fail: (e: unknown) => void = () => undefined;
  let failure: unknown = null;
  const discardAll = () => Promise.all(completed.map((c) => (c.value.type === 'file' ? opts.blobs.discard(c.value.upload.blob.temp) : undefined)));
  try {
    await new Promise<void>((resolve, reject) => {
      fail = reject;
      parser.on('finish', resolve);
      parser.on('error', reject);
      req.on('error', reject);
      req.on('aborted', () => reject(new Error('request aborted')));
      req.pipe(parser);
    });
    await Promise.all(writes);
    if (failure) throw failure;
  } catch (e) {
    req.unpipe(parser);
    await Promise.allSettled(writes);
    await discardAll();
    if (e instanceof MultipartError) {
      req.resume();
      throw new HttpError(400, DETAIL.invalidMultipart, { Connection: 'close' });
    }
    if (e instanceof HttpError) {
      // The rest of the body is read and dropped; the answer goes now, and the connection after.
      req.resume();
      throw new HttpError(e.status, e.detail, { ...e.headers, Connection: 'close' });
    }
    throw e;
  }
  // A repeated name: the last part wins, as Starlette's FormData.get; the others' blobs go.
  completed.sort((a, b) => a.seq - b.seq);
  const fields = new Map<string, FormValue>();
  const discarded: WrittenBlob[] = [];
  for (const c of completed) {
    const previous = fields.get(c.name);
    if (previous?.type === 'file') discarded.push(previous.upload.blob);
    fields.set(c.name, c.value);
  }
  return { kind: 'form', fields, discarded };
}
