/**
 * Forwarding one request to the real service with node:http/https (not fetch: fetch decompresses
 * and rewrites Content-Encoding and Content-Length, and a streamed request body needs `duplex`).
 * Bodies stream both ways; hop-by-hop headers are dropped in both directions (RFC 9110 §7.6.1).
 * An upstream that cannot be reached, fails TLS, or stays silent past the idle timeout becomes a
 * 502/504 `{"detail": "…"}` naming the problem, never a crash or a hung client.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pyDumps } from '../python/values.js';
import { StartupError } from '../store/store.js';

export interface Upstream {
  url: URL;
  /** scheme://host[:port] — what logs and error details name; never userinfo. */
  origin: string;
  timeoutMs: number;
}

export class UpstreamUrlError extends Error {}

/** A start-up problem with what --upstream or --record names (the CLI exits 2 for it). */
export class ProxySetupError extends StartupError {}

/** Checks an upstream base URL: http or https, no query or fragment. */
export function parseUpstream(text: string, timeoutMs: number): Upstream {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UpstreamUrlError(`upstream must be an http:// or https:// URL, not ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamUrlError(`upstream must be an http:// or https:// URL, not ${JSON.stringify(text)}`);
  if (url.search || url.hash) throw new UpstreamUrlError(`upstream ${url.origin} must be a base URL without query or fragment`);
  if (!(timeoutMs > 0)) throw new UpstreamUrlError(`upstream timeout must be a positive duration, not ${timeoutMs} ms`);
  return { url, origin: url.origin, timeoutMs: Math.round(timeoutMs) };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The end-to-end headers: hop-by-hop ones and those a Connection header names are dropped. */
function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean));
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/** Codes Node gives to certificate and handshake failures. */
const TLS_CODE = /^(CERT_|ERR_TLS_|ERR_SSL_|EPROTO$|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_|HOSTNAME_MISMATCH$|ERR_OSSL_)/;

class UpstreamTimeout extends Error {
  readonly code = 'UPSTREAM_TIMEOUT';
}

/** The status and one-line detail an upstream failure is answered with. */
function upstreamFailure(upstream: Upstream, error: NodeJS.ErrnoException): { status: 502 | 504; detail: string } {
  if (error instanceof UpstreamTimeout) return { status: 504, detail: `upstream ${upstream.origin} sent nothing for ${upstream.timeoutMs / 1000} s (--upstream-timeout)` };
  const code = error.code ?? 'ERROR';
  if (code.startsWith('HPE_')) return { status: 502, detail: `upstream ${upstream.origin} sent an answer that is not valid HTTP: ${code}` };
  if (code === 'INVALID_ANSWER') return { status: 502, detail: `upstream ${upstream.origin} sent an answer that cannot be passed on: ${error.message.split('\n')[0]}` };
  if (TLS_CODE.test(code)) return { status: 502, detail: `TLS with upstream ${upstream.origin} failed: ${code} (${error.message.split('\n')[0]})` };
  return { status: 502, detail: `upstream ${upstream.origin} unreachable: ${code}` };
}

export interface ForwardHooks {
  /** Every request body chunk, as it passes (the proxy keeps a bounded copy to validate). */
  onRequestChunk?(chunk: Buffer): void;
  /** The upstream's status and headers, before any of its body is sent on. */
  onResponse?(res: IncomingMessage): void;
  /** Every response body chunk, as it passes. */
  onResponseChunk?(chunk: Buffer): void;
  /** The exchange ended: `complete` when the whole answer reached the client. */
  onEnd(outcome: { complete: boolean; failure?: { status: 502 | 504; detail: string } }): void;
}

/**
 * Sends `req` (method, path and query, end-to-end headers, streamed body) to the upstream and
 * streams its answer to `res`, unchanged but for hop-by-hop headers.
 */
export function forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream, hooks: ForwardHooks): void {
  const base = upstream.url.pathname.replace(/\/+$/, '');
  const headers = endToEndHeaders(req.headers);
  headers.host = upstream.url.host;
  // Node already answered the client's `Expect: 100-continue`; the expectation ends here.
  delete headers.expect;
  const send = upstream.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const upReq = send({
    protocol: upstream.url.protocol,
    hostname: upstream.url.hostname.replace(/^\[|\]$/g, ''),
    port: upstream.url.port || undefined,
    method: req.method,
    path: `${base}${req.url ?? '/'}`,
    headers,
    // Request bodies pass through as they came; Node adds chunked framing when no length was sent.
  });
  let ended = false;
  const end = (outcome: Parameters<ForwardHooks['onEnd']>[0]) => {
    if (ended) return;
    ended = true;
    hooks.onEnd(outcome);
  };
  // An idle timeout, not a deadline: a slow but flowing answer is never cut.
  upReq.setTimeout(upstream.timeoutMs, () => upReq.destroy(new UpstreamTimeout()));
  upReq.on('error', (error: NodeJS.ErrnoException) => {
    req.unpipe(upReq);
    if (res.headersSent) {
      // Mid-answer: the status is already out, so the only honest signal is a cut connection.
      res.destroy();
      return end({ complete: false, failure: upstreamFailure(upstream, error) });
    }
    const failure = upstreamFailure(upstream, error);
    const body = Buffer.from(pyDumps({ detail: failure.detail }), 'utf8');
    // The request body may be unread: close the connection rather than read it for nothing.
    res.shouldKeepAlive = false;
    res.writeHead(failure.status, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), Connection: 'close' });
    res.end(body);
    req.resume();
    end({ complete: false, failure });
  });
  upReq.on('response', (upRes) => {
    hooks.onResponse?.(upRes);
    try {
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, endToEndHeaders(upRes.headers));
    } catch (e) {
      // A header Node refuses to send on (an invalid character, say): a 502, not a crash.
      return void upReq.destroy(Object.assign(new Error((e as Error).message), { code: 'INVALID_ANSWER' }));
    }
    upRes.on('data', (chunk: Buffer) => hooks.onResponseChunk?.(chunk));
    upRes.pipe(res);
    upRes.on('aborted', () => res.destroy());
    upRes.on('error', () => res.destroy());
  });
  res.once('finish', () => end({ complete: true }));
  // The client went away: stop the upstream exchange too.
  res.on('close', () => {
    if (!res.writableFinished) {
      upReq.destroy();
      end({ complete: false });
    }
  });
  req.on('data', (chunk: Buffer) => hooks.onRequestChunk?.(chunk));
  req.pipe(upReq);
}
