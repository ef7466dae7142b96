/** Session files: list, upload, download, delete (CONTRACT §1, §2). */
import mime from 'mime-types';
import { DETAIL, HttpError, notFound } from '../errors/http-error.js';
import { clampInstant, isoTime } from '../primitives/clock.js';
import { deepFreeze } from '../store/json-text.js';
import type { StoredFile, StoredSession } from '../model/records.js';
import type { Workspace } from '../store/workspace.js';
import type { UploadedPart } from '../http/body.js';
import { workspaceOf, type Handler, type OperationDescriptor } from './types.js';

export function fileView(f: StoredFile) {
  return {
    id: f.id,
    session_id: f.session_id,
    filename: f.filename,
    mime_type: f.mime_type,
    size: f.size,
    checksum: f.checksum,
    created_at: isoTime(f.created_at),
    expires_at: isoTime(f.expires_at),
    source: f.source,
  };
}

/** The session, or the service's 404 `Session not found`. */
export function sessionOr404(ws: Workspace, id: string): StoredSession {
  const s = ws.session(id);
  if (!s) throw notFound(DETAIL.sessionNotFound);
  return s;
}

/** A file is expired from its expires_at on; expired files stay stored but are not listed. */
export const isExpired = (f: StoredFile, now: number) => f.expires_at <= now;

/** A file's view, made once per record (records never change) and frozen, so its JSON text is kept too. */
const listedFileView = (f: StoredFile) => deepFreeze(fileView(f));

export const listSessionFiles: Handler<'listSessionFiles'> = async ({ path, query }, ctx) => {
  const ws = workspaceOf(ctx);
  const session = sessionOr404(ws, path.session_id);
  const { source, limit, offset } = query;
  // The workspace keeps the files indexed by source and expiry, so this costs the page, not the session.
  const page = ws.filePage(session, source, ctx.clock.now(), offset, limit);
  return { status: 200, json: { files: page.files.map((f) => ws.derived(f, listedFileView)), total: page.total, limit, offset } };
};

/**
 * The stored name: the client's name reduced to its last path segment (`/` and `\` both
 * separate), control characters removed; empty becomes `upload` (CONTRACT §2).
 */
export function sanitizeFilename(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  const clean = last.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  return clean || 'upload';
}

/**
 * A part's content type is kept only if it can be sent back as a header value (visible ASCII,
 * spaces and tabs): a download answers with it, and `text/plain\x01`, `😀` or `Ā` there would
 * make every download of the file fail. Anything else is treated as if no type had been sent.
 */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

export function mimeTypeFor(partType: string | undefined, filename: string): string {
  const valid = partType !== undefined && HEADER_VALUE.test(partType) ? partType.trim() : undefined;
  const given = valid?.split(';')[0].trim().toLowerCase();
  if (given && given !== 'application/octet-stream') return valid!;
  return mime.lookup(filename) || 'application/octet-stream';
}

/**
 * Stores an uploaded part as a session file, with its record (the store's storeUpload). Shared
 * by the service's upload (user_upload) and the control plane's (session_download).
 */
export async function storeUploadedFile(ws: Workspace, sessionId: string, upload: UploadedPart, source: StoredFile['source'], at: { now: number; ttlMs: number }): Promise<StoredFile> {
  if (upload.blob.tooLarge) throw new HttpError(413, DETAIL.fileTooLarge);
  const filename = sanitizeFilename(upload.filename);
  return ws.storeUpload(upload.blob.temp, (blob) => ({
    // Looked up again after the bytes were committed: the session may have gone meanwhile (an import, a reset).
    session_id: sessionOr404(ws, sessionId).id,
    id: ws.newId('file'),
    filename,
    mime_type: mimeTypeFor(upload.contentType, filename),
    size: upload.blob.size,
    checksum: upload.blob.checksum,
    created_at: at.now,
    // Near the end of year 9999 an expiry would leave what a datetime can hold: it ends there.
    expires_at: clampInstant(at.now + at.ttlMs),
    source,
    blob,
  }));
}

export const uploadSessionFile: Handler<'uploadSessionFile'> = async ({ path, upload }, ctx) => {
  const ws = workspaceOf(ctx);
  sessionOr404(ws, path.session_id);
  const file = await storeUploadedFile(ws, path.session_id, upload, 'user_upload', { now: ctx.clock.now(), ttlMs: ctx.config.fileTtlMs });
  return { status: 201, json: fileView(file) };
};

function fileOr404(ws: Workspace, session: StoredSession, id: string): StoredFile {
  const f = ws.file(session, id);
  if (!f) throw notFound(DETAIL.fileNotFound);
  return f;
}

/** Starlette's FileResponse: `filename="…"` when the name needs no quoting, else RFC 5987 `filename*`. */
export function contentDisposition(filename: string): string {
  const quoted = encodeURIComponent(filename).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return quoted === filename ? `attachment; filename="${filename}"` : `attachment; filename*=utf-8''${quoted}`;
}

export const downloadSessionFile: Handler<'downloadSessionFile'> = async ({ path }, ctx) => {
  const ws = workspaceOf(ctx);
  const file = fileOr404(ws, sessionOr404(ws, path.session_id), path.file_id);
  if (isExpired(file, ctx.clock.now())) throw new HttpError(410, DETAIL.fileExpired);
  // A type stored before it was checked (older data, an imported snapshot) must not break the answer.
  const stored = HEADER_VALUE.test(file.mime_type) ? file.mime_type : 'application/octet-stream';
  // Starlette adds a charset to text/* media types.
  const type = stored.startsWith('text/') && !/charset=/i.test(stored) ? `${stored}; charset=utf-8` : stored;
  const headers = { 'Content-Type': type, 'Content-Length': String(file.size), 'Content-Disposition': contentDisposition(file.filename) };
  // Opened last, once nothing here can throw: from now on the pipeline owns (and closes) it.
  const stream = ws.openFile(file);
  return { status: 200, stream, headers };
};

export const deleteSessionFile: Handler<'deleteSessionFile'> = async ({ path }, ctx) => {
  const ws = workspaceOf(ctx);
  const session = sessionOr404(ws, path.session_id);
  fileOr404(ws, session, path.file_id);
  await ws.deleteFile(session, path.file_id);
  return { status: 204 };
};

export const listSessionFilesDescriptor: OperationDescriptor<'listSessionFiles'> = { prefer: { 404: DETAIL.sessionNotFound } };
export const uploadSessionFileDescriptor: OperationDescriptor<'uploadSessionFile'> = {
  prefer: { 400: DETAIL.invalidMultipart, 404: DETAIL.sessionNotFound, 413: DETAIL.fileTooLarge },
};
export const downloadSessionFileDescriptor: OperationDescriptor<'downloadSessionFile'> = { prefer: { 404: DETAIL.fileNotFound }, download: true };
export const deleteSessionFileDescriptor: OperationDescriptor<'deleteSessionFile'> = { prefer: { 404: DETAIL.fileNotFound } };
