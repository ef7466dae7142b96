/**
 * The Host allow-list (issue 16): the mock answers only requests addressed to it by a name the
 * developer chose. Without it, DNS rebinding lets a web page on a name the attacker controls
 * (rebound to 127.0.0.1) read workspace exports and, with the public demo key, the workspace
 * itself — the browser thinks it is talking to the attacker's own origin. Allowed: the address
 * the mock listens on and the one the connection arrived at, `localhost` (and `*.localhost`,
 * which browsers resolve to loopback themselves), any loopback address, and `--allowed-hosts`.
 * `/health` is exempt: probes address containers by whatever name the platform uses.
 */
import { BlockList, isIP } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError } from '../errors/http-error.js';
import { sendError } from '../http/reply.js';
import { isUrlOf, OWN_PATHS } from '../primitives/own-paths.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Checks and normalises `--allowed-hosts`: `*`, or names (`.example.com` also allows its subdomains). */
export function parseAllowedHosts(text: string): string[] | null {
  const items = text.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (items.length === 0) return null;
  for (const item of items) {
    if (item === '*' || isIP(item)) continue;
    if (!/^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(item)) return null;
  }
  return items.map((i) => i.replace(/(?<=.)\.$/, ''));
}

/** The name in a Host header: without the port, brackets or a trailing dot, lowercased. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  const name = h.startsWith('[') ? h.slice(1, h.indexOf(']') < 0 ? undefined : h.indexOf(']')) : h.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

const unmapped = (address: string | undefined) => (address ?? '').toLowerCase().replace(/^::ffff:(?=\d+\.)/, '');

/** Answers for the few names a run sees (BlockList.check was ~2% of a listing's CPU); bounded, as Host is the client's. */
const loopbackMemo = new Map<string, boolean>();

function isLoopback(name: string): boolean {
  let loopback = loopbackMemo.get(name);
  if (loopback === undefined) {
    const family = isIP(name);
    loopback = family !== 0 && LOOPBACK.check(unmapped(name), family === 6 && !name.startsWith('::ffff:') ? 'ipv6' : 'ipv4');
    if (loopbackMemo.size >= 256) loopbackMemo.clear();
    loopbackMemo.set(name, loopback);
  }
  return loopback;
}

/** Allowed whatever address the connection arrived at: localhost, loopback, `--allowed-hosts`. */
function isAllowedName(name: string, allowed: readonly string[]): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || isLoopback(name)) return true;
  return allowed.some((a) => a === '*' || a === name || (a.startsWith('.') && (name.endsWith(a) || name === a.slice(1))));
}

export function allowedHostsGuard(allowed: readonly string[], listenHost: string | undefined): RequestHandler {
  const any = allowed.includes('*');
  const listenName = listenHost ? hostName(listenHost) : undefined;
  // Host header values whose name is allowed on every connection: a run sends one or two
  // (`127.0.0.1:8000`), so a request costs one lookup. Bounded, as Host is the client's.
  const allowedHosts = new Set<string>();
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    // No Host at all is HTTP/1.0 from a tool, never a browser; /health answers every prober.
    if (host === undefined || any || allowedHosts.has(host) || isUrlOf(req.url, OWN_PATHS.health)) return next();
    const name = hostName(host);
    if (isAllowedName(name, allowed)) {
      if (allowedHosts.size >= 256) allowedHosts.clear();
      allowedHosts.add(host);
      return next();
    }
    // The mock's own addresses: the one the connection arrived at, and the one it listens on.
    if (name === unmapped(req.socket.localAddress) || name === listenName) return next();
    sendError(res, new HttpError(403, `Host ${JSON.stringify(host)} is not allowed: the mock answers localhost, loopback addresses and its own address; start it with --allowed-hosts ${name} to answer this name`));
  };
}
