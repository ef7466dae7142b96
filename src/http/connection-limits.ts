/**
 * What keeps slow or numerous clients from exhausting the process (issues 14 and 24): an idle
 * timeout between the chunks of a request body; a cap on concurrent connections, over which a
 * connection is answered 503 with Retry-After and closed within about a second whatever its body
 * does; and a hard ceiling a little under the descriptor limit, past which Node drops
 * connections at accept. A total deadline would cut off honest slow 100 MiB uploads; a client
 * under the cap that keeps sending is never cut off, one that stops for the idle timeout is.
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

/**
 * The hard ceiling on open connections: what the descriptor limit allows after the same reserve.
 * Past it Node closes a connection as soon as it is accepted (`'drop'`), so a burst of connects
 * arriving faster than over-cap ones are answered and closed cannot take the last descriptors —
 * the listener's accept, the data files and blobs keep theirs. Null where the limit is unknown.
 */
function connectionCeiling(limit = openFilesLimit()): number | null {
  return limit === null ? null : Math.max(16, limit - RESERVED_FDS);
}

/** How long an over-cap connection may live: its answer, then discarding what the client still sends. */
const OVER_CAP_LIFETIME_MS = 1000;
/** Once the process holds this close to the ceiling, the oldest over-cap connections are closed early. */
const SHED_MARGIN = 32;

const TOO_MANY = JSON.stringify({ detail: 'Too many connections' });
/** The 503 written straight to a socket whose request headers never came in before its time ran out. */
const RAW_TOO_MANY = `HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\nContent-Length: ${TOO_MANY.length}\r\nConnection: close\r\n\r\n${TOO_MANY}`;

type OverCapSocket = Socket & { destroySoon?: () => void };

/**
 * Connections over the cap, each costing a descriptor for about a second rather than for its
 * body's lifetime: answered 503 as soon as its headers are in, half-closed, what the client still
 * sends read and discarded (so that it reads the answer rather than a reset), then destroyed.
 * Oldest first, they are closed early when the process nears its ceiling.
 */
class OverCapConnections {
  private readonly sockets = new Map<Socket, { answered: boolean; timer: NodeJS.Timeout }>();

  constructor(private readonly lifetimeMs: number) {}

  get size() {
    return this.sockets.size;
  }

  has(socket: Socket) {
    return this.sockets.has(socket);
  }

  add(socket: OverCapSocket) {
    const timer = setTimeout(() => this.expire(socket), this.lifetimeMs);
    timer.unref();
    this.sockets.set(socket, { answered: false, timer });
    socket.once('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
    });
    // Node ends a `Connection: close` answer with destroySoon(): FIN, then destroy once written,
    // which resets a client still sending its body before it reads the 503. Half-close instead,
    // and let the lifetime (or the client's own FIN) end the connection.
    socket.destroySoon = () => {
      socket.end();
      socket.once('end', () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy())));
    };
  }

  /** Marks the socket answered; false when it was already (a pipelined second request). */
  answer(socket: Socket): boolean {
    const entry = this.sockets.get(socket);
    if (!entry || entry.answered) return false;
    entry.answered = true;
    return true;
  }

  /** Closes the oldest until `count` are gone; returns those it closed. */
  shed(count: number): Socket[] {
    const closed = [...this.sockets.keys()].slice(0, Math.max(0, count));
    for (const socket of closed) this.close(socket);
    return closed;
  }

  private expire(socket: Socket) {
    const entry = this.sockets.get(socket);
    if (!entry) return;
    // Its headers never completed: the answer goes out raw, and the socket soon after.
    if (!entry.answered && socket.writable) {
      entry.answered = true;
      socket.end(RAW_TOO_MANY);
      entry.timer = setTimeout(() => socket.destroy(), this.lifetimeMs / 4).unref();
      return;
    }
    socket.destroy();
  }

  private close(socket: Socket) {
    const entry = this.sockets.get(socket);
    if (entry) clearTimeout(entry.timer);
    this.sockets.delete(socket);
    socket.destroy();
  }
}

/**
 * Wraps the request listener: counts connections, answers those accepted over `maxConnections`
 * 503 with Retry-After (see OverCapConnections), sets the server's hard ceiling, and watches each
 * request body for `idleMs` without a byte (answered 408, then the connection closes).
 */
export function limitConnections(
  server: Server,
  app: RequestListener,
  opts: { maxConnections: number; idleMs: number; ceiling?: number | null; overCapLifetimeMs?: number },
): RequestListener {
  const ceiling = opts.ceiling === undefined ? connectionCeiling() : opts.ceiling;
  if (ceiling !== null) server.maxConnections = ceiling;
  const overCap = new OverCapConnections(opts.overCapLifetimeMs ?? OVER_CAP_LIFETIME_MS);
  // Connections open, less those closed here and not yet heard of as closed.
  const counted = new WeakSet<Socket>();
  let open = 0;
  const uncount = (socket: Socket) => counted.delete(socket) && open--;
  server.on('connection', (socket: Socket) => {
    open++;
    counted.add(socket);
    socket.once('close', () => uncount(socket));
    if (open <= opts.maxConnections) return;
    overCap.add(socket);
    // Near the ceiling, room for new connections (a health probe among them) comes from the
    // oldest over-cap ones, most of which have had their answer by now.
    if (ceiling !== null && open > ceiling - SHED_MARGIN) for (const s of overCap.shed(open - (ceiling - SHED_MARGIN))) uncount(s);
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (overCap.has(req.socket)) {
      req.resume();
      if (overCap.answer(req.socket)) sendSimple(res, 503, 'Too many connections', { 'Retry-After': '1' });
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
