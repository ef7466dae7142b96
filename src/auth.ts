/**
 * Authentication and tenancy (CONTRACT §3). The header is read the way FastAPI's
 * OAuth2PasswordBearer reads it; tokens from createToken are HMAC-signed with the data
 * directory's key so they survive restarts; a scenario's API key is its owner's principal;
 * every principal gets its own workspace.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DETAIL, unauthorized } from './errors/http-error.js';

export type AuthMode = 'open' | 'strict';

/** `get_authorization_scheme_param`: scheme before the first space, the rest stripped. */
function bearerToken(header: string | undefined): string {
  if (!header) throw unauthorized(DETAIL.notAuthenticated);
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  const param = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme.toLowerCase() !== 'bearer') throw unauthorized(DETAIL.notAuthenticated);
  return param;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const JWT_HEADER = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** A signed access token for a scenario user: a compact HS256 JWT whose `sub` is the user. */
export function issueToken(username: string, key: Buffer, nowMs: number): string {
  const payload = b64url(JSON.stringify({ sub: username, iat: Math.floor(nowMs / 1000) }));
  const sig = createHmac('sha256', key).update(`${JWT_HEADER}.${payload}`).digest('base64url');
  return `${JWT_HEADER}.${payload}.${sig}`;
}

/** The user a token was issued to, or null when it is not one of ours. */
export function verifyToken(token: string, key: Buffer): string | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== JWT_HEADER) return null;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const sub = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')).sub;
    return typeof sub === 'string' ? sub : null;
  } catch {
    return null;
  }
}

/**
 * The principal of any other token: never the raw token, which must not appear anywhere. 24 hex
 * digits (96 bits) of its SHA-256: with 48 bits, two distinct tokens were found sharing a
 * workspace after about 2^25 tries; 96 bits puts such a collision out of reach (CONTRACT §3).
 */
export function keyPrincipal(token: string): string {
  return `key:${createHash('sha256').update(token).digest('hex').slice(0, 24)}`;
}

export interface AuthContext {
  mode: AuthMode;
  signingKey: Buffer;
  users: Map<string, string>;
  /** The scenario's API keys → the user each belongs to (CONTRACT §3). */
  apiKeys: Map<string, string>;
  /** Principals of API-key tokens already seen: a hash per request showed in the profile. */
  keyPrincipals?: Map<string, string>;
}

/** Test suites use a handful of tokens; past this many the memo starts over rather than grow. */
const KEY_PRINCIPALS_KEPT = 4096;

/** The principal id for a request, or a 401 HttpError. */
export function authenticate(header: string | undefined, ctx: AuthContext): string {
  const token = bearerToken(header);
  if (!token) throw unauthorized(DETAIL.invalidCredentials);
  const user = verifyToken(token, ctx.signingKey);
  if (user !== null && ctx.users.has(user)) return `user:${user}`;
  // A scenario's key is its owner's, as a real account's key is: one workspace for both.
  const owner = ctx.apiKeys.get(token);
  if (owner !== undefined) return `user:${owner}`;
  if (ctx.mode === 'strict') throw unauthorized(DETAIL.invalidCredentials);
  const memo = ctx.keyPrincipals;
  let principal = memo?.get(token);
  if (principal === undefined) {
    principal = keyPrincipal(token);
    if (memo) {
      if (memo.size >= KEY_PRINCIPALS_KEPT) memo.clear();
      memo.set(token, principal);
    }
  }
  return principal;
}
