/**
 * The request log: one pino line per service request (and per unmatched request, with a near-miss
 * `hint`) with the top-level fields of CONTRACT §7 (method, url, operationId, principal, status,
 * duration_ms). JSON wherever a program reads it
 * (a pipe, a file, a container log); pino-pretty in a terminal, still one line per request.
 * The line is built from those fields only: never a header, a body or a secret.
 */

import { pino } from 'pino';

/**
 * The JSON log's destination when stdout is not a terminal: stdout through an asynchronous
 * sonic-boom. A line is handed to the kernel as soon as the previous write returns, so lines that
 * pile up meanwhile (a busy server) go out in one write instead of one blocking write each (the
 * synchronous write was ~18% of a listing's CPU). pino flushes what is left synchronously when the
 * process exits (a crash included); the server's close() waits for it. Only a hard kill (SIGKILL,
 * the machine going down) can lose the last lines, never data (docs/guarantees.md).
 * `minLength: 1` writes each line at once, as 0 does, but makes flush(cb) wait for the writes.
 */
export function jsonDestination(): NodeJS.WritableStream {
  return pino.destination({ dest: 1, sync: false, minLength: 1 }) as unknown as NodeJS.WritableStream;
}

/** The fields of one request line. */
export const REQUEST_FIELDS = ['method', 'url', 'operationId', 'principal', 'status', 'duration_ms'] as const;
/** Only on a request no operation matched, for a 404 or 405: `did you mean GET /mailboxes?`. */
const HINT_FIELD = 'hint';

/** A human-readable destination for a terminal: `12:00:01.234 INFO  GET /mailboxes → 200 in 1.2 ms (listMailboxes, key:…)`. */
export async function prettyDestination(options: { colorize?: boolean; destination?: NodeJS.WritableStream | number } = {}): Promise<NodeJS.WritableStream> {
  // Loaded only for a terminal, so JSON runs (CI, containers) never pay for it.
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    colorize: options.colorize ?? true,
    destination: options.destination ?? 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', ...REQUEST_FIELDS, HINT_FIELD].join(','),
    messageFormat: (log: Record<string, unknown>, messageKey: string) => {
      const msg = String(log[messageKey] ?? '');
      if (log.method === undefined) return msg;
      const where = `${log.method} ${log.url}`;
      if (log.status === undefined) return `${msg}: ${where}`;
      const ms = typeof log.duration_ms === 'number' ? log.duration_ms.toFixed(1) : '?';
      const hint = typeof log[HINT_FIELD] === 'string' ? ` — ${log[HINT_FIELD]}` : '';
      return `${where} → ${log.status} in ${ms} ms (${log.operationId ?? '-'}, ${log.principal ?? '-'})${hint}`;
    },
  });
}
