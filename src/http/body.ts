/**
 * Reading a request body the way the service's stack does, before authentication (CONTRACT §8):
 * JSON as FastAPI decides it is JSON (our Python JSON decoder), forms as Starlette parses them,
 * multipart by multer with file parts streamed straight to temporary blobs. Framing problems become the service's 400, 413
 * and 422 answers here.
 */
import type { IncomingMessage } from 'node:http';
import { DETAIL, HttpError, validationError } from '../errors/http-error.js';
import { err } from '../errors/catalogue.js';
import type { BodyKind } from '../document/openapi.js';
import { JsonDecodeError, JsonUndecodableError, decodeJsonBytes, pyJsonLoads } from '../python/json-decode.js';
import { pyParseQsl } from '../python/url.js';
import type { PyValue } from '../python/values.js';
import type { BlobStore, WrittenBlob } from '../store/blobs.js';
import type { Readable, Writable } from 'node:stream';
import type { Options, StorageEngine } from 'multer';
import { MultipartError, PartHeaderCorrector, boundaryOf } from './part-headers.js';

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
async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
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
  /** Cap of a JSON body (MAX_FORM_BODY unless said). */
  maxJson?: number;
  /** A JSON reader of its own (the control plane's, which keeps large snapshots off the event loop). */
  parseJson?: (raw: Buffer) => Promise<PyValue>;
}

export async function readBody(req: IncomingMessage, kind: BodyKind, opts: ReadBodyOptions): Promise<ParsedBody> {
  const contentType = req.headers['content-type'];
  if (kind === 'json') {
    const raw = await readRaw(req, opts.maxJson ?? MAX_FORM_BODY);
    if (raw.length === 0 || !isJsonType(contentType)) return decodeJsonBody(raw, contentType);
    return { kind: 'json', value: await decodeJson(raw, opts.parseJson) };
  }
  if (mediaType(contentType) === 'multipart/form-data') return readMultipart(req, contentType!, opts);
  // Starlette's request.form() with a type neither multipart nor urlencoded is an empty form.
  return decodeFormBody(await readRaw(req, MAX_FORM_BODY), contentType, MAX_FORM_FIELDS);
}

/**
 * The decoders of a JSON operation's body bytes, shared by readBody and the proxy (which parses a
 * kept copy of what it forwards): empty is no body, a non-JSON type is raw text for Pydantic,
 * JSON is Python's json.loads — throwing JsonDecodeError (JsonUndecodableError when the bytes are
 * no UTF encoding) for the caller to answer or note.
 */
export function decodeJsonBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  if (raw.length === 0) return { kind: 'none' };
  if (!isJsonType(contentType)) return { kind: 'raw', text: utf8.decode(raw) };
  return { kind: 'json', value: pyJsonLoads(decodeJsonBytes(raw)) };
}

/** A urlencoded form's bytes as Starlette parses them; any other non-multipart type, an empty form. Past `maxFields` fields, a 413. */
export function decodeFormBody(raw: Buffer, contentType: string | undefined, maxFields = Infinity): ParsedBody {
  const fields = new Map<string, FormValue>();
  if (mediaType(contentType) === 'application/x-www-form-urlencoded') {
    const pairs = pyParseQsl(raw.toString('latin1'));
    if (pairs.length > maxFields) throw tooLarge();
    for (const [k, v] of pairs) fields.set(k, { type: 'field', value: v });
  }
  return { kind: 'form', fields, discarded: [] };
}

/** Python's json.loads of a JSON body (or the caller's reader), its failures as FastAPI's 422 and 400. */
async function decodeJson(raw: Buffer, parse?: (raw: Buffer) => Promise<PyValue>): Promise<PyValue> {
  try {
    return parse ? await parse(raw) : pyJsonLoads(decodeJsonBytes(raw));
  } catch (e) {
    if (e instanceof JsonDecodeError) throw validationError([err.jsonInvalid(e.pos, e.msg)]);
    if (e instanceof JsonUndecodableError) throw new HttpError(400, DETAIL.bodyParseError);
    throw e;
  }
}

/** Removes the temporary blobs of a body: all of them, or once committed the parts not stored. */
export async function discardBody(body: ParsedBody, blobs: BlobStore, committed = false) {
  if (body.kind !== 'form') return;
  if (!committed) for (const f of body.fields.values()) if (f.type === 'file') await blobs.discard(f.upload.blob.temp);
  for (const b of body.discarded) await blobs.discard(b.temp);
}

/** Non-file fields of one form, together (chosen; see docs/guarantees.md, Limits): past either, a 413. */
export const MAX_FORM_FIELDS = 1000;
export const MAX_FORM_FIELD_BYTES = 1024 * 1024;
/** Parts of one multipart body, and bytes of one field: past either, the 400 of a bad body. */
const MAX_PARTS = 1000;
const MAX_FIELD_BYTES = 1024 * 1024;

class FieldsTooLarge extends Error {}

/**
 * multer, loaded on first use (or at warm-up): start-up does not pay for it. A dynamic import, so
 * that the CLI's bundle keeps it in a chunk of its own, read only then.
 */
type Multer = typeof import('multer');
let multerModule: Promise<Multer> | undefined;
export function loadMulter(): Promise<Multer> {
  return (multerModule ??= import('multer').then((m) => ((m as { default?: Multer }).default ?? m) as Multer));
}

/** The cut-off body errors of busboy: the parts completed before the cut stand, as in Starlette. */
const CUT = new Set(['Unexpected end of form', 'Unexpected end of file', 'Malformed part header']);

type MulterFile = { fieldname: string; stream: Readable };

/**
 * multer reads the body; its StorageEngine streams each file part into the blob store (hashed
 * and metered there, no multer size limit: the upload's 413 is the operation's). Part headers
 * are corrected on the way in (part-headers.ts), fields are taken from busboy as they come.
 */
export interface MultipartPart {
  seq: number;
  /** undefined: a part without a name (Starlette ignores it). */
  name: string | undefined;
  value: FormValue;
}

/** Every complete part of a multipart body, in arrival order (files written to temporary blobs). */
export async function readMultipartParts(req: IncomingMessage, contentType: string, opts: ReadBodyOptions): Promise<MultipartPart[]> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new HttpError(400, DETAIL.missingBoundary);
  const corrector = new PartHeaderCorrector(boundary);
  // Completed parts in arrival order; a file part completes when its blob is written.
  const completed: MultipartPart[] = [];
  const writes: Promise<unknown>[] = [];
  const seqOf = new Map<Readable, number>();
  let seq = 0;
  let fieldBytes = 0;
  let writeFailure: HttpError | undefined;
  const storage: StorageEngine = {
    _handleFile(_req, file, cb) {
      const f = file as unknown as MulterFile;
      const part = corrector.parts[Number(f.fieldname.slice(1))];
      const at = seqOf.get(f.stream) ?? seq++;
      const write = opts.blobs.writeTemp(f.stream, opts.maxUpload).then((blob) => {
        completed.push({ seq: at, name: part.name, value: { type: 'file', upload: { filename: part.filename ?? '', contentType: part.contentType, blob } } });
      });
      writes.push(write);
      write.then(
        () => cb(null, {}),
        (e: Error) => {
          // A failed write (a full disk: 507) is the answer, whatever busboy reports after it.
          if (e instanceof HttpError) writeFailure ??= e;
          cb(e);
        },
      );
    },
    // Nothing is removed behind our back: which blobs stay is decided once multer is done.
    _removeFile: (_req, _file, cb) => cb(null),
  };
  const upload = (await loadMulter())({
    storage,
    preservePath: true,
    defParamCharset: 'utf8',
    limits: { parts: MAX_PARTS, fieldSize: MAX_FIELD_BYTES, fields: MAX_FORM_FIELDS },
    streamHandler(request: IncomingMessage, busboy: Writable & { on(e: string, l: (...a: any[]) => void): unknown }) {
      busboy.on('file', (_name: string, stream: Readable) => seqOf.set(stream, seq++));
      busboy.on('field', (name: string, value: string) => {
        fieldBytes += Buffer.byteLength(value);
        if (fieldBytes > MAX_FORM_FIELD_BYTES) return void busboy.destroy(new FieldsTooLarge());
        completed.push({ seq: seq++, name: corrector.parts[Number(name.slice(1))]?.name, value: { type: 'field', value } });
      });
      corrector.on('error', (e) => busboy.destroy(e));
      request.pipe(corrector).pipe(busboy);
    },
  } as Options).any();
  const error = await new Promise<unknown>((resolve) => {
    upload(req as any, {} as any, resolve);
  });
  await Promise.allSettled(writes);
  const discardAll = () => Promise.all(completed.map((c) => (c.value.type === 'file' ? opts.blobs.discard(c.value.upload.blob.temp) : undefined)));
  const failed = writeFailure ?? error;
  if (failed && !(failed instanceof Error && CUT.has(failed.message) && !writeFailure)) {
    const error = failed;
    await discardAll();
    req.resume();
    if (error instanceof FieldsTooLarge || (error as { code?: string }).code === 'LIMIT_FIELD_COUNT') throw tooLarge();
    if (error instanceof MultipartError || (error as { code?: string }).code?.startsWith('LIMIT_')) throw new HttpError(400, DETAIL.invalidMultipart, { Connection: 'close' });
    // A write that failed (a full disk: 507): the rest of the body is dropped, the connection after.
    if (error instanceof HttpError) throw new HttpError(error.status, error.detail, { ...error.headers, Connection: 'close' });
    throw error;
  }
  return completed.sort((a, b) => a.seq - b.seq);
}

async function readMultipart(req: IncomingMessage, contentType: string, opts: ReadBodyOptions): Promise<ParsedBody> {
  const completed = await readMultipartParts(req, contentType, opts);
  // A repeated name: the last part wins, as Starlette's FormData.get; the others' blobs go.
  const fields = new Map<string, FormValue>();
  const discarded: WrittenBlob[] = [];
  for (const c of completed) {
    if (c.name === undefined) {
      if (c.value.type === 'file') discarded.push(c.value.upload.blob);
      continue;
    }
    const previous = fields.get(c.name);
    if (previous?.type === 'file') discarded.push(previous.upload.blob);
    fields.set(c.name, c.value);
  }
  return { kind: 'form', fields, discarded };
}
