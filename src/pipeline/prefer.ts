/**
 * Prism's `Prefer` header: `Prefer: code=404` answers with that documented status and a body
 * valid for it; `Prefer: delay=250` waits first. Both apply once authentication and validation
 * have passed, so a client still has to send a correct request.
 */
import { DETAIL, HttpError } from '../errors/http-error.js';
import type { Operation } from '../document/openapi.js';
import { descriptorOf } from '../operations/descriptors.js';

export interface Preference {
  code?: number;
  delayMs?: number;
}

/** What a request without a Prefer header asks for: nothing. */
const NO_PREFERENCE: Preference = Object.freeze({});

export function parsePrefer(header: string | string[] | undefined): Preference {
  // Nearly every request has no Prefer header: no split, no regex, nothing allocated for it.
  if (header === undefined) return NO_PREFERENCE;
  const text = Array.isArray(header) ? header.join(',') : header;
  const out: Preference = {};
  for (const part of text.split(/[,;]/)) {
    const m = /^\s*(code|delay)\s*=\s*"?(\d{1,7})"?\s*$/i.exec(part);
    if (!m) continue;
    if (m[1].toLowerCase() === 'code') out.code = Number(m[2]);
    else out.delayMs = Number(m[2]);
  }
  return out;
}

/**
 * The error a `Prefer: code=` asks for, as the service would send it. A code that is the
 * operation's success status, or that it does not document, yields undefined: the operation
 * runs normally (RFC 7240 lets a server ignore a preference; the caller is told why in a
 * `X-Mock-Warning` header rather than getting an answer the contract does not allow).
 */
export function preferredError(op: Operation, code: number): HttpError | undefined {
  const success = op.statuses.find((s) => s.startsWith('2'));
  if (String(code) === success || !op.statuses.includes(String(code))) return undefined;
  const applied = { 'Preference-Applied': `code=${code}` };
  const e = preferred(op, code);
  return new HttpError(e.status, e.detail, { ...e.headers, ...applied });
}

export function preferenceWarning(op: Operation, code: number): string | undefined {
  return op.statuses.includes(String(code)) ? undefined : `Prefer code=${code} ignored: not a documented response of ${op.id} (documented: ${op.statuses.join(', ')})`;
}

function preferred(op: Operation, code: number): HttpError {
  // The operation's own detail for a 400, 404 or 413 (its descriptor), else the framework's.
  const own = descriptorOf(op.id)?.prefer;
  switch (code) {
    case 400:
      return new HttpError(400, own?.[400] ?? DETAIL.bodyParseError);
    case 401:
      return new HttpError(401, DETAIL.notAuthenticated, { 'WWW-Authenticate': 'Bearer' });
    case 404:
      return new HttpError(404, own?.[404] ?? DETAIL.sessionNotFound);
    case 410:
      return new HttpError(410, DETAIL.fileExpired);
    case 413:
      return new HttpError(413, own?.[413] ?? DETAIL.bodyTooLarge);
    case 422: {
      const query = op.params.find((p) => p.in === 'query');
      const loc = op.body ? ['body'] : query ? ['query', query.name] : ['header', 'x-service-request-origin'];
      return new HttpError(422, [{ type: 'missing', loc, msg: 'Field required', input: null }]);
    }
    default:
      return new HttpError(code, 'Preferred response');
  }
}
