/**
 * The request journal (after WireMock's): the last N service requests and unmatched requests
 * (operationId null, with a near-miss hint), newest first, with their bodies redacted — a
 * secret's value, a password and upload bytes never enter it. It is bounded twice, by entries
 * and by bytes, and each body is kept as a small summary (see body-summary.ts), so no request,
 * however large or however many, can make it outgrow its budget.
 */
import type { Schemas } from '../generated/control-plane-api.js';
import type { ParsedBody } from '../http/body.js';
import type { Operation } from '../document/openapi.js';
import { descriptorOf } from '../operations/descriptors.js';
import { isoTime } from '../primitives/clock.js';
import { summarizeBody } from './body-summary.js';

/** A journal entry's id: `req_` and its number, which grows for the life of the process. */
export type JournalId = `req_${number}`;

/** One journal entry, as control-plane.openapi.json describes it (generated), its id typed as one. */
export type JournalEntry = Omit<Schemas['JournalEntry'], 'id'> & { id: JournalId };

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
  /** Only entries recorded after the one with this id (an entry's `id`): a poller's cursor. */
  after?: JournalId;
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
  /** The last entry's instant and its ISO text: a busy run records many requests per millisecond. */
  #timeAt = NaN;
  #time = '';

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
    if (at !== this.#timeAt) {
      this.#time = isoTime(at);
      this.#timeAt = at;
    }
    const kept: Kept = { id: `req_${seq}`, time: this.#time, at, seq, ...entry, bytes: 0 };
    kept.bytes = jsonBytes(kept);
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
    const after = f.after === undefined ? undefined : Number(f.after.slice('req_'.length));
    for (let i = this.#entries.length - 1; i >= this.#head && out.length < (f.limit ?? Infinity); i--) {
      const e = this.#entries[i];
      // Newest first: everything from here on is older than the cursor, so a poll costs only what is new.
      if (after !== undefined && e.seq <= after) break;
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

/** JSON text that needs no escaping: its bytes are its characters and two quotes. */
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Exactly `Buffer.byteLength(JSON.stringify(value))` for an entry (an object of strings, numbers,
 * null and small plain objects), counted from its parts: a listing's entry is mostly short ASCII
 * strings and numbers, whose JSON length needs no text built. Nested objects (the query, the body
 * summary) are small and stringified as they are.
 */
export function jsonBytes(value: Record<string, unknown>): number {
  let n = 1; // {
  let first = true;
  for (const key in value) {
    const v = value[key];
    let bytes: number;
    if (v === null) bytes = 4;
    else if (typeof v === 'string') bytes = PLAIN_STRING.test(v) ? v.length + 2 : Buffer.byteLength(JSON.stringify(v));
    else if (typeof v === 'number') bytes = Number.isFinite(v) ? String(v).length : 4;
    else if (typeof v === 'boolean') bytes = v ? 4 : 5;
    else if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    else {
      const text = JSON.stringify(v);
      if (text === undefined) continue;
      bytes = Buffer.byteLength(text);
    }
    n += (first ? 0 : 1) + (PLAIN_STRING.test(key) ? key.length + 2 : Buffer.byteLength(JSON.stringify(key))) + 1 + bytes;
    first = false;
  }
  return n + 1; // }
}

export const REDACTED = '***';

/**
 * What a stage parsed of a request body, handed to the journal, which keeps only a redacted
 * summary of it (see journalBody). Besides a parsed body, the proxy may say it kept only a count:
 * bytes it could not parse, or bytes it streamed on without keeping them.
 */
export type BodyRecord = ParsedBody | { kind: 'unparsed'; bytes: number } | { kind: 'streamed'; bytes: number };

/** The body of a request to an operation, as the pipeline or the proxy parsed it. */
export interface ParsedRequest {
  operationId: string;
  body: BodyRecord;
  /** An added operation's body fields whose schema is `format: password` or `writeOnly`: "***" at any depth. */
  secretFields?: ReadonlySet<string>;
}

/**
 * What the journal records of a body: a bounded summary of it (never the parsed graph), redacted
 * by the operation's descriptor; uploads as name, size and checksum; null when there was none
 * (or it was not read: a request that failed authentication leaves no body).
 */
export function journalBody(parsed: ParsedRequest | undefined): unknown {
  if (!parsed) return null;
  const { operationId, body, secretFields } = parsed;
  switch (body.kind) {
    case 'none':
      return null;
    case 'json':
      return redactFields(redactBody(operationId, summarizeBody(body.value)), secretFields);
    case 'raw':
      // Unparsed text could hold anything, a secret included: only its size is kept.
      return { unparsed_bytes: Buffer.byteLength(body.text) };
    case 'unparsed':
      return { unparsed_bytes: body.bytes };
    case 'streamed':
      return { streamed_bytes: body.bytes };
    case 'form': {
      const out: Record<string, unknown> = Object.create(null);
      for (const [k, v] of body.fields) {
        out[k] = v.type === 'field' ? v.value : { filename: v.upload.filename, size: v.upload.blob.size, checksum: v.upload.blob.checksum };
      }
      return redactFields(redactBody(operationId, summarizeBody(out)), secretFields);
    }
  }
}

/** Every value under one of `names`, at any depth, replaced by "***" (a copy; the summary is small). */
function redactFields(body: unknown, names: ReadonlySet<string> | undefined): unknown {
  if (!names?.size || body === null || typeof body !== 'object') return body;
  if (Array.isArray(body)) return body.map((v) => redactFields(v, names));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) out[k] = names.has(k) ? REDACTED : redactFields(v, names);
  return out;
}

/**
 * Redaction is by operation (its descriptor's `secretBody`) and by allow-list: anything in a
 * secret-bearing body but the shown fields as strings — the secret field, an unknown key, a value
 * of an unexpected type, a body that is not an object at all (`[{"name":"A","value":"S"}]`, a
 * bare `"S"`) — is replaced by "***", because a client that sends a secret in the wrong shape has
 * still sent a secret.
 */
export function redactBody(operationId: string, body: unknown): unknown {
  const rule = descriptorOf(operationId)?.secretBody;
  if (!rule || body === null || body === undefined) return body;
  if (typeof body !== 'object' || Array.isArray(body)) return REDACTED;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    copy[key] = rule.shown.includes(key) && typeof value === 'string' ? value : REDACTED;
  }
  return copy;
}

/**
 * Which requests' query strings could hold a password, so that every value is redacted: those
 * of a secret-bearing operation, and, for a request that matched no operation (a 405), those to
 * the path of one (given `/token` or `/token/`).
 */
export function queryRedaction(operations: readonly Operation[]): (operationId: string | null, path: string, query: [string, string][]) => [string, string][] {
  const secretBearing = secretQueries(operations);
  return (operationId, path, query) => (secretBearing(operationId, path) ? query.map(([k]) => [k, REDACTED]) : query);
}

/** Whether a request's query values are all redacted (see queryRedaction), decided without the query. */
export function secretQueries(operations: readonly Operation[]): (operationId: string | null, path: string) => boolean {
  const paths = new Set(operations.filter((op) => descriptorOf(op.id)?.secretBody).map((op) => op.path));
  return (operationId, path) => (operationId !== null ? descriptorOf(operationId)?.secretBody !== undefined : paths.has(path.replace(/\/+$/, '')));
}
