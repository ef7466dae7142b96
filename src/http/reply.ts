/**
 * The reply writers every layer above shares: a JSON body with exact bytes and length, and an
 * HttpError as FastAPI writes it (`{"detail": …}` with the error's headers).
 */
import type { ServerResponse } from 'node:http';
import type { HttpError } from '../errors/http-error.js';
import { pyDumps } from '../python/values.js';

export function sendJsonText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  sendJsonBytes(res, status, Buffer.from(text, 'utf8'), headers);
}

export function sendJsonBytes(res: ServerResponse, status: number, body: Buffer, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
  res.end(body);
}

export function sendError(res: ServerResponse, e: HttpError) {
  sendJsonText(res, e.status, pyDumps({ detail: e.detail }), e.headers);
}
