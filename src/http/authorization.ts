/**
 * The Authorization header as FastAPI's OAuth2PasswordBearer reads it, for the service's tokens
 * and the control plane's admin token alike, and the admin token compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The token of a `Bearer` header, or null when the header is absent or names another scheme.
 * `get_authorization_scheme_param`: the scheme before the first space (any case), the rest stripped.
 */
export function bearerParam(header: string | undefined): string | null {
  if (!header) return null;
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') return null;
  return space < 0 ? '' : header.slice(space + 1).trim();
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Whether `given` is `secret`, taking as long whatever it is: both are hashed first, so the
 * comparison is of equal-length digests and reveals neither a matching prefix nor the length.
 */
export function isSecret(given: string, secret: string): boolean {
  return timingSafeEqual(digest(given), digest(secret));
}
