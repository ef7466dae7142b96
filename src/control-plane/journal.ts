/**
 * The request journal (after WireMock's): the last N service requests and unmatched requests
 * (operationId null, with a near-miss hint), newest first, with their bodies redacted — a
 * secret's value, a password and upload bytes never enter it. It is bounded twice, by entries
 * and by bytes, and each body is kept as a small summary (see body-summary.ts), so no request,
 * however large or however many, can make it outgrow its budget.
 */
import type { Schemas } from '../generated/control-plane-api.js';
import { isoTime } from '../primitives/clock.js';

/** One journal entry, as control-plane.openapi.json describes it (generated). */
export type JournalEntry = Schemas['JournalEntry'];

export interface JournalFilter {
  operationId?: string;
  method?: string;
  path?: string;
  status?: number;
  principal?: string;
  /** Only entries at or after this instant (epoch ms). */
  since?: number;
  /** true: only requests no operation matched (operationId null); false: only the others. */
  unmatched?: boolean;
  /** Only entries recorded after the one numbered so (req_N): a poller's cursor. */
  after?: number;
  limit?: number;
}

export const DEFAULT_JOURNAL_SIZE = 1000;
/** What the entries may weigh together, as the bytes of their JSON text. */
export const DEFAULT_JOURNAL_BYTES = 8 * 1024 * 1024;

type Kept = JournalEntry & { at: number; seq: number; bytes: number };

export class Journal {
  #entries: Kept[] = [];
  /** Index of the oldest kept entry: dropping from the front is a move of this, not a splice. */
  #head = 0;
  #bytes = 0;
  #next = 1;

  constructor(
    readonly size: number = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes: number = DEFAULT_JOURNAL_BYTES,
  ) {}

  /** The bytes of JSON text the kept entries add up to. */
  get bytes(): number {
    return this.#bytes;
  }

  record(entry: Omit<JournalEntry, 'id' | 'time'>, at: number): void {
    if (this.size <= 0) return;
    const seq = this.#next++;
    const kept: Kept = { id: `req_${seq}`, time: isoTime(at), at, seq, ...entry, bytes: 0 };
    kept.bytes = Buffer.byteLength(JSON.stringify(kept));
    // An entry heavier than the whole budget (a huge path) is kept without its body and query.
    if (kept.bytes > this.maxBytes) {
      Object.assign(kept, { query: {}, body: null, path: kept.path.slice(0, 256) });
      kept.bytes = Buffer.byteLength(JSON.stringify(kept));
    }
    this.#entries.push(kept);
    this.#bytes += kept.bytes;
    while (this.#entries.length - this.#head > this.size || (this.#bytes > this.maxBytes && this.#entries.length - this.#head > 1)) {
      this.#bytes -= this.#entries[this.#head].bytes;
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
  }

  list(f: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = this.#entries.length - 1; i >= this.#head && out.length < (f.limit ?? Infinity); i--) {
      const e = this.#entries[i];
      // Newest first: everything from here on is older than the cursor, so a poll costs only what is new.
      if (f.after !== undefined && e.seq <= f.after) break;
      if (f.operationId !== undefined && e.operationId !== f.operationId) continue;
      if (f.method !== undefined && e.method !== f.method.toUpperCase()) continue;
      if (f.path !== undefined && e.path !== f.path) continue;
      if (f.status !== undefined && e.status !== f.status) continue;
      if (f.principal !== undefined && e.principal !== f.principal) continue;
      if (f.since !== undefined && e.at < f.since) continue;
      if (f.unmatched !== undefined && (e.operationId === null) !== f.unmatched) continue;
      const { at: _at, seq: _seq, bytes: _bytes, ...visible } = e;
      out.push(visible);
    }
    return out;
  }

  clear(): void {
    this.#entries = [];
    this.#head = 0;
    this.#bytes = 0;
  }
}

/**
 * Operations whose requests carry secrets, with the body fields that are NOT secret and the type
 * they must have to be shown. Redaction is by operation and by allow-list: anything else in the
 * body — the secret field, an unknown key, a value of an unexpected type, a body that is not an
 * object at all (`[{"name":"A","value":"S"}]`, a bare `"S"`) — is replaced by "***", because a
 * client that sends a secret in the wrong shape has still sent a secret.
 */
export const SECRET_BEARING: Record<string, { shown: string[] }> = {
  storeSecret: { shown: ['name', 'namespace'] },
  createToken: { shown: ['grant_type', 'username', 'scope', 'client_id'] },
};

/** Paths of the secret-bearing operations, for requests that matched no operation (a 405). */
const SECRET_BEARING_PATHS = new Set(['/token', '/secrets']);

export const REDACTED = '***';

function isSecretBearing(operationId: string | null, path: string): boolean {
  if (operationId !== null) return operationId in SECRET_BEARING;
  return SECRET_BEARING_PATHS.has(path.replace(/\/+$/, ''));
}

export function redactBody(operationId: string, body: unknown): unknown {
  const rule = SECRET_BEARING[operationId];
  if (!rule || body === null || body === undefined) return body;
  if (typeof body !== 'object' || Array.isArray(body)) return REDACTED;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    copy[key] = rule.shown.includes(key) && typeof value === 'string' ? value : REDACTED;
  }
  return copy;
}

/** A secret-bearing request's query string could hold a password: every value is redacted. */
export function redactQuery(operationId: string | null, path: string, query: [string, string][]): [string, string][] {
  return isSecretBearing(operationId, path) ? query.map(([k]) => [k, REDACTED]) : query;
}
