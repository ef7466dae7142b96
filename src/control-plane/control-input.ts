/**
 * Control-plane input checked against what the service can represent (issue 16, item 3): what
 * control-plane.openapi.json can say (minimums, patterns, formats) is said there too, and these
 * small named checks enforce the rest — instants that really parse and fit a datetime, sizes
 * within the upload limit, ids that are unique, fault headers HTTP can send. Input the service
 * cannot represent must be refused here, or it is stored and every later answer is a 500.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { PydanticError } from '../errors/catalogue.js';
import { err } from '../errors/catalogue.js';
import { decodeJsonBytes, JsonDecodeError, pyJsonLoads } from '../python/json-decode.js';
import { fromPlain, type PyValue } from '../python/values.js';
import { isRepresentable } from '../primitives/clock.js';

type Loc = (string | number)[];

/** RFC 3339, which `format: date-time` means; the parts are range-checked below. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number) => new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 1 : 0);

/**
 * The instant an RFC 3339 date-time names, or null when it names none a datetime can hold:
 * `23:59:60` (a leap second), month 13, day 31 of a 30-day month, an offset of `+99:99`, or
 * anything before year 1 or after 9999 once the offset is applied.
 */
export function parseInstant(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return null;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${(m[7] ?? '').slice(0, 4)}${m[8].toUpperCase()}`);
  return isRepresentable(ms) ? ms : null;
}

const instantError = (loc: Loc, input: unknown): PydanticError => ({
  type: 'datetime_from_date_parsing',
  loc,
  msg: 'Input should be a valid datetime from year 1 to 9999',
  input,
});

/** Bytes a base64 text decodes to, from its length (no pass over 140 MB of text). */
const base64Length = (text: string) => Buffer.byteLength(text, 'base64');

/** Dates that do not parse, and sizes outside 0 … the upload limit, as 422 details. */
export function snapshotValueErrors(snapshot: any, maxUploadBytes: number): PydanticError[] {
  const errors: PydanticError[] = [];
  const instant = (loc: Loc, value: unknown, nullable: boolean) => {
    if (value === null && nullable) return;
    if (typeof value !== 'string' || parseInstant(value) === null) errors.push(instantError(loc, value));
  };
  snapshot.sessions.forEach((s: any, i: number) =>
    s.files.forEach((f: any, j: number) => {
      const at: Loc = ['body', 'sessions', i, 'files', j];
      if (f.size > maxUploadBytes) errors.push(err.le([...at, 'size'], f.size, maxUploadBytes));
      instant([...at, 'created_at'], f.created_at, false);
      instant([...at, 'expires_at'], f.expires_at, false);
      if (typeof f.content_base64 === 'string' && base64Length(f.content_base64) > maxUploadBytes) {
        // Never echo the content itself: it may be a hundred megabytes.
        errors.push({ type: 'too_long', loc: [...at, 'content_base64'], msg: `Content should have at most ${maxUploadBytes} bytes (the upload limit)`, input: `<${base64Length(f.content_base64)} bytes>` });
      }
    }),
  );
  snapshot.mailboxes.forEach((m: any, i: number) => {
    if (m.created_at !== undefined) instant(['body', 'mailboxes', i, 'created_at'], m.created_at, true);
    if (m.updated_at !== undefined) instant(['body', 'mailboxes', i, 'updated_at'], m.updated_at, true);
  });
  snapshot.secrets.forEach((s: any, i: number) => {
    instant(['body', 'secrets', i, 'created_at'], s.created_at, false);
    if (s.last_used_at !== undefined) instant(['body', 'secrets', i, 'last_used_at'], s.last_used_at, true);
  });
  return errors;
}

/** The first id that a snapshot repeats where the service needs it unique, as a sentence. */
export function duplicateIdProblem(snapshot: any): string | null {
  const firstRepeat = (keys: string[]) => keys.find((k, i) => keys.indexOf(k) !== i);
  const session = firstRepeat(snapshot.sessions.map((s: any) => s.id));
  if (session !== undefined) return `session id ${session} appears twice`;
  for (const s of snapshot.sessions) {
    const file = firstRepeat(s.files.map((f: any) => f.id));
    if (file !== undefined) return `file id ${file} appears twice in session ${s.id}`;
  }
  const mailbox = firstRepeat(snapshot.mailboxes.map((m: any) => m.id));
  if (mailbox !== undefined) return `mailbox id ${mailbox} appears twice`;
  const secret = firstRepeat(snapshot.secrets.map((s: any) => s.id));
  if (secret !== undefined) return `secret id ${secret} appears twice`;
  const named = firstRepeat(snapshot.secrets.map((s: any) => `${s.namespace}/${s.name}`));
  if (named !== undefined) return `secret ${named.split('/').slice(1).join('/')} appears twice in namespace ${named.split('/')[0]}`;
  return null;
}

/** Headers the server writes itself to frame an answer; a fault setting them breaks the connection. */
const FRAMING_HEADERS = new Set(['connection', 'content-length', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** What makes a fault unanswerable over HTTP, as a sentence, or null. */
export function faultProblem(fault: { status: number; headers?: Record<string, unknown> }): string | null {
  // 1xx are not final answers: Node would send 101 and leave the client waiting for one.
  if (fault.status !== 0 && (fault.status < 200 || fault.status > 599)) return `status must be 0 (drop the connection) or a final HTTP status from 200 to 599, not ${fault.status}`;
  for (const [name, value] of Object.entries(fault.headers ?? {})) {
    try {
      validateHeaderName(name);
    } catch {
      return `headers: ${JSON.stringify(name)} is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only)`;
    }
    if (typeof value !== 'string') return 'headers must map names to strings';
    if (FRAMING_HEADERS.has(name.toLowerCase())) return `headers: ${name} frames the answer and is set by the mock itself; leave it out`;
    try {
      validateHeaderValue(name, value);
    } catch {
      return `headers: the value of ${name} is not a valid header value (no control characters, Latin-1 only)`;
    }
  }
  return null;
}

const yieldToOthers = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Plain UTF-8 decoded 8 MiB at a time, yielding in between (140 MB in one piece blocked the
 * server for ~0.4 s); anything else — a BOM, UTF-16/32, bytes Python decodes with surrogatepass —
 * goes through decodeJsonBytes as a small body does.
 */
async function decodeLargeUtf8(raw: Buffer): Promise<string> {
  if (raw[0] === 0xef || raw[0] === 0xfe || raw[0] === 0xff || raw[0] === 0 || raw[1] === 0) return decodeJsonBytes(raw);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  try {
    for (let at = 0; at < raw.length; at += 8 * 1024 * 1024) {
      text += decoder.decode(raw.subarray(at, at + 8 * 1024 * 1024), { stream: true });
      await yieldToOthers();
    }
    return text + decoder.decode();
  } catch {
    return decodeJsonBytes(raw);
  }
}

/** Past this size Python's scanner is too slow (it holds the text as an array of code points). */
const LARGE_BODY_BYTES = 8 * 1024 * 1024;

/**
 * A control-plane body as Python's `json.loads` reads it. A large body is a snapshot carrying file
 * bytes: Python's scanner would block the event loop for seconds and fails outright past ~100 M
 * characters ("Invalid array length"), so V8's parser reads it instead, rejecting what Python's
 * would (1e400); its error offsets are not Python's, so a malformed large body is reported at 0.
 */
export async function parseControlJson(raw: Buffer): Promise<PyValue> {
  if (raw.length <= LARGE_BODY_BYTES) return pyJsonLoads(decodeJsonBytes(raw));
  const text = await decodeLargeUtf8(raw);
  await yieldToOthers();
  let plain: unknown;
  try {
    plain = JSON.parse(text, (_key, value) => {
      if (typeof value === 'number' && !Number.isFinite(value)) throw new JsonDecodeError('Expecting value', 0);
      return value;
    });
  } catch {
    throw new JsonDecodeError('Expecting value', 0);
  }
  return fromPlain(plain);
}
