/**
 * The one error type handlers and pipeline stages throw. The error middleware writes it as the
 * service would: a FastAPI `{"detail": ...}` body, compact JSON, `content-type: application/json`.
 */
import type { PydanticError } from './catalogue.js';

/** Detail texts of the service's non-422 errors (CONTRACT §3, §4, §5). Tests import these. */
export const DETAIL = {
  notFound: 'Not Found',
  methodNotAllowed: 'Method Not Allowed',
  notAuthenticated: 'Not authenticated',
  invalidCredentials: 'Could not validate credentials',
  badLogin: 'Incorrect username or password',
  sessionNotFound: 'Session not found',
  fileNotFound: 'File not found',
  mailboxNotFound: 'Mailbox not found',
  secretNotFound: 'Secret not found',
  fileExpired: 'File expired',
  fileTooLarge: 'File too large',
  bodyTooLarge: 'Request body too large',
  missingBoundary: 'Missing boundary in multipart.',
  invalidMultipart: 'Invalid multipart data.',
  bodyParseError: 'There was an error parsing the body',
} as const;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | PydanticError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `${detail.length} validation error(s)`);
  }
}

export const notFound = (detail: string) => new HttpError(404, detail);
export const validationError = (errors: PydanticError[]) => new HttpError(422, errors);
export const unauthorized = (detail: string) => new HttpError(401, detail, { 'WWW-Authenticate': 'Bearer' });
