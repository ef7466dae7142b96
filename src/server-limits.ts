/**
 * What keeps slow or numerous clients from exhausting the process (issue 14, item 4): an idle
 * timeout between the chunks of a request body, and a cap on concurrent connections answered
 * with 503 and Retry-After. A total deadline would cut off honest slow 100 MiB uploads; a
 * client that keeps sending is never cut off, one that stops for the idle timeout is.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Descriptors kept back from connections: data files, blobs being written, logs, the listener. */
const RESERVED_FDS = 64;
/** Where the descriptor limit cannot be read (not Linux), the cap is this. */
const FALLBACK_MAX_CONNECTIONS = 1000;

/** The soft limit on open files from /proc/self/limits (Node has no getrlimit), or null. */
function openFilesLimit(limitsText?: string): number | null {
  let text = limitsText;
  try {
    text ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
}

/**
 * The default cap: half of what the descriptor limit leaves after a reserve, because a connection
 * may hold two (its socket, and the file an upload or a download streams).
 */
export function defaultMaxConnections(limit = openFilesLimit()): number {
  if (limit === null) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(8, Math.floor((limit - RESERVED_FDS) / 2));
}

function sendSimple(res: ServerResponse, status: number, detail: string, headers: Record<string, string>) {
  const body = Buffer.from(JSON.stringify({ detail }));
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length), Connection: 'close' });
  res.end(body);
}

const overCap = Symbol('overCap');

/**
 * Wraps the request listener: counts connections, marks those accepted over `maxConnections`
 * (their requests are answered 503 with Retry-After, then the connection closes), and watches
 * each request body for `idleMs` without a byte (answered 408, then the connection closes).
 */
export function limitConnections(server: Server, app: RequestListener, opts: { maxConnections: number; idleMs: number }): RequestListener {
  let open = 0;
  server.on('connection', (socket: Socket & { [overCap]?: boolean }) => {
    open++;
    if (open > opts.maxConnections) socket[overCap] = true;
    socket.once('close', () => open--);
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if ((req.socket as Socket & { [overCap]?: boolean })[overCap]) {
      // Answered once the body is in: closing with unread bytes would reset the connection and
      // the client would never see the 503. A body that stalls meets the idle timeout instead.
      if (opts.idleMs > 0 && !req.complete) watchBody(req, res, opts.idleMs);
      req.once('end', () => {
        if (!res.headersSent) sendSimple(res, 503, 'Too many connections', { 'Retry-After': '1' });
      });
      req.resume();
      return;
    }
    if (opts.idleMs > 0 && !req.complete) watchBody(req, res, opts.idleMs);
    app(req, res);
  };
}

function watchBody(req: IncomingMessage, res: ServerResponse, idleMs: number) {
  const socket = req.socket;
  let fired = false;
  // A socket timeout restarts with every byte read: exactly "idle between chunks". Node emits it
  // on the request while the body is incomplete, else on the response (and, with no listener,
  // would destroy the socket): both are heard here.
  const onTimeout = () => {
    if (fired) return;
    // The whole body is in, only not read yet (a fault's delay, say): the client is not idle.
    if (req.complete) return void socket.setTimeout(0);
    // Our side not reading (the upload's disk is slower than the client) is not the client idling.
    if (req.readableLength >= req.readableHighWaterMark) return void socket.setTimeout(idleMs);
    fired = true;
    if (!res.headersSent) sendSimple(res, 408, 'Request body timed out', {});
    else socket.destroy();
  };
  req.setTimeout(idleMs, onTimeout);
  res.on('timeout', onTimeout);
  res.once('finish', () => res.off('timeout', onTimeout));
  req.once('end', () => {
    req.off('timeout', onTimeout);
    // Once the response is out, Node owns the socket's timeout (keep-alive); before, nothing should.
    if (!res.writableFinished) socket.setTimeout(0);
  });
}
