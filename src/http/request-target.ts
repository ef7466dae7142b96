/**
 * What a request names, read one way everywhere: its target split into the raw path and the raw
 * query, and the host it was addressed to.
 */
import type { IncomingMessage } from 'node:http';

/** The target split at its first `?`; `query` is undefined when there is none (`/a?` gives ''). */
export function splitTarget(target: string): { path: string; query: string | undefined } {
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: undefined } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** The Host the client addressed; an HTTP/1.0 request may send none, so the socket's own address. */
export function requestHost(req: IncomingMessage): string {
  return req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
}
