/**
 * Authentication and tenancy (CONTRACT §3). The header is read the way FastAPI's
 * OAuth2PasswordBearer reads it; tokens from createToken are HMAC-signed with the data
 * directory's key so they survive restarts; a scenario's API key is its owner's principal;
 * every principal gets its own workspace.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DETAIL, unauthorized } from '../errors/http-error.js';
import { bearerParam } from '../http/authorization.js';

export type AuthMode = 'open' | 'strict';

/** The bearer token, or the 401 of OAuth2PasswordBearer for no header or another scheme. */
function bearerToken(header: string | undefined): string {
  const token = bearerParam(header);
  if (token === null) throw unauthorized(DETAIL.notAuthenticated);
  return token;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');
const JWT_HEADER = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/** A signed access token for a scenario user: a compact HS256 JWT whose `sub` is the user. */
export function issueToken(username: string, key: Buffer, nowMs: number, ttlMs: number = DEFAULT_TOKEN_TTL_MS): string {
  const iat = Math.floor(nowMs / 1000);
  const payload = b64url(JSON.stringify({ sub: username, iat, exp: iat + Math.ceil(ttlMs / 1000) }));
  const sig = createHmac('sha256', key).update(`${JWT_HEADER}.${payload}`).digest('base64url');
  return `${JWT_HEADER}.${payload}.${sig}`;
}

/** Issued tokens live 30 days on the mock's clock unless --token-ttl says otherwise. */
export const DEFAULT_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

/**
 * Base64url as we write it and nothing else: no padding, and unused low bits zero. Node's
 * decoder forgives `=`, the `+`/`/` alphabet and stray bits, so several strings decode to one
 * signature; only the one we issued may be accepted.
 */
function isCanonicalBase64url(part: string): boolean {
  return /^[A-Za-z0-9_-]*$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part;
}

/** What verifyToken says of a token: ours and valid (the user), ours but expired, or not ours. */
export type TokenCheck = { user: string } | 'expired' | null;

/**
 * Checks a token we may have issued. `nowMs` is the mock's clock: a token whose `exp` (or, for
 * tokens issued before expiries existed, `iat` + ttl) has passed is 'expired'.
 */
function verifyToken(token: string, key: Buffer, nowMs?: number, ttlMs: number = DEFAULT_TOKEN_TTL_MS): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== JWT_HEADER || !isCanonicalBase64url(parts[1]) || !isCanonicalBase64url(parts[2])) return null;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: { sub?: unknown; iat?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof claims?.sub !== 'string') return null;
  if (nowMs !== undefined) {
    const exp = typeof claims.exp === 'number' ? claims.exp : typeof claims.iat === 'number' ? claims.iat + ttlMs / 1000 : -Infinity;
    if (nowMs / 1000 >= exp) return 'expired';
  }
  return { user: claims.sub };
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
  /** The mock's clock now (ms): issued tokens expire on it. Without it expiry is not checked. */
  now?: number;
  /** How long an issued token lives (ms); default 30 days. */
  tokenTtlMs?: number;
  /** Principals of API-key tokens already seen: a hash per request showed in the profile. */
  keyPrincipals?: Map<string, string>;
}

/** Test suites use a handful of tokens; past this many the memo starts over rather than grow. */
const KEY_PRINCIPALS_KEPT = 4096;

/** The principal id for a request, or a 401 HttpError. */
export function authenticate(header: string | undefined, ctx: AuthContext): string {
  const token = bearerToken(header);
  const principal = token ? tokenPrincipal(token, ctx) : REFUSED;
  if (principal === EXPIRED || principal === REFUSED) throw unauthorized(DETAIL.invalidCredentials);
  return principal;
}

const EXPIRED = 'expired';
const REFUSED = 'refused';

/** A non-empty token's principal, or why it has none: one of ours that expired, or refused (strict mode). */
function tokenPrincipal(token: string, ctx: AuthContext): string | typeof EXPIRED | typeof REFUSED {
  const issued = verifyToken(token, ctx.signingKey, ctx.now, ctx.tokenTtlMs);
  // An expired token of ours is refused in every mode: in open mode it must not quietly become
  // an API key with a workspace of its own.
  if (issued === 'expired') return EXPIRED;
  if (issued !== null && ctx.users.has(issued.user)) return `user:${issued.user}`;
  // A scenario's key is its owner's, as a real account's key is: one workspace for both.
  const owner = ctx.apiKeys.get(token);
  if (owner !== undefined) return `user:${owner}`;
  if (ctx.mode === 'strict') return REFUSED;
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

/** Where the keys live: the data directory's signing key and the active scenario's users and keys (the Store). */
export interface AuthKeys {
  readonly signingKey: Buffer;
  readonly scenario: { readonly users: Map<string, string>; readonly apiKeys: Map<string, string> };
}

export interface AuthSettings {
  mode: AuthMode;
  /** How long an issued token lives on `clock` (ms). */
  tokenTtlMs: number;
  clock: { now(): number };
  /** Read at every check: a scenario switch changes the users and keys. */
  keys: AuthKeys;
}

/** What `POST /__mock/principal` learns of a token: its principal, or why the service refuses it. */
export type TokenStanding = { principal: string } | { refused: typeof EXPIRED | 'strict' };

/**
 * The one auth configuration of a running mock (clock, token lifetime, keys, mode), built once:
 * the service's authenticate and fault stages and the control plane's `POST /__mock/principal`
 * all read it, so they cannot disagree about a token.
 */
export class Auth {
  readonly mode: AuthMode;
  readonly tokenTtlMs: number;
  readonly #clock: { now(): number };
  readonly #keys: AuthKeys;
  readonly #keyPrincipals = new Map<string, string>();

  constructor({ mode, tokenTtlMs, clock, keys }: AuthSettings) {
    this.mode = mode;
    this.tokenTtlMs = tokenTtlMs;
    this.#clock = clock;
    this.#keys = keys;
  }

  /** The configuration as it stands now (the clock's instant, the active scenario's users and keys). */
  context(): AuthContext {
    const keys = this.#keys;
    return { mode: this.mode, signingKey: keys.signingKey, users: keys.scenario.users, apiKeys: keys.scenario.apiKeys, now: this.#clock.now(), tokenTtlMs: this.tokenTtlMs, keyPrincipals: this.#keyPrincipals };
  }

  /** What the service would take `token` (as sent after "Bearer ") for, without a request. */
  standing(token: string): TokenStanding {
    const bare = bearerParam(`Bearer ${token}`);
    const principal = bare ? tokenPrincipal(bare, this.context()) : REFUSED;
    if (principal === EXPIRED) return { refused: EXPIRED };
    if (principal === REFUSED) return { refused: 'strict' };
    return { principal };
  }
}
