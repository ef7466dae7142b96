/**
 * The typed handle on a running mock's control plane (`/__mock`), over HTTP. startMockServer()
 * returns it for the mock it started and connectMockServer() for one started elsewhere (npx, a
 * Docker sidecar, a Testcontainers container), so a test written against one runs against the
 * other: same methods, same units (seconds or ISO 8601, as the control plane takes them), same
 * errors (the control plane's status and detail).
 */
import type { CoverageReport } from './records/coverage.js';
import type { Fault, FaultSpec } from './records/faults.js';
import type { Pin, PinSpec } from './records/pins.js';
import type { JournalEntry, JournalFilter, JournalId } from './records/journal.js';
import type { WorkspaceExport, WorkspaceImport } from './control-plane/snapshots.js';
import type { Schemas } from './generated/control-plane-api.js';
import type { DriftRecord } from './proxy/drift.js';
import { OWN_PATHS } from './primitives/own-paths.js';

export type { DriftRecord, JournalId, WorkspaceExport, WorkspaceImport };

/**
 * The mock's clock as `GET /__mock/clock` reports it (the control plane's `ClockState`, as in
 * Python): `now`, its current instant in ISO 8601 (`2030-01-01T00:00:00Z`); `offset_seconds`,
 * clock time minus real time; `frozen`.
 */
export type ClockState = Schemas['ClockState'];
/** @deprecated The former name of ClockState. */
export type ClockView = ClockState;

/** Seconds (`691200`) or an ISO-8601 duration (`'P8D'`, `'PT1H30M'`). */
export type Duration = number | string;

/** The journal filter; `since` is an instant (a Date or an ISO-8601 string), `after` an entry's id (`req_N`). */
export interface RequestsFilter extends Omit<JournalFilter, 'since'> {
  since?: Date | string;
}

/** @deprecated The former name of WorkspaceExport (what `workspace()` gives); the import's body is WorkspaceImport. */
export type WorkspaceSnapshot = WorkspaceExport;

/** What a test can do to a running mock. */
export interface MockControl {
  /** Base URL of the mock, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /**
   * Without a principal: the clock back to its state at start, every workspace back to the
   * scenario, journal, faults, coverage and the pins added at run time cleared. With one: only
   * that principal's workspace.
   */
  reset(principal?: string): Promise<void>;
  clock: {
    now(): Promise<ClockState>;
    /** Freezes the clock at an instant. */
    set(instant: Date | string): Promise<ClockState>;
    /** Moves the clock by seconds or an ISO-8601 duration (`'P8D'`). */
    advance(by: Duration): Promise<ClockState>;
    /** Back to real time. */
    reset(): Promise<ClockState>;
  };
  faults: {
    /** `{ operationId (or '*'), status (0 drops the connection), times?, body?, headers?, delay_ms?, probability?, principal? }` */
    add(spec: FaultSpec): Promise<Fault>;
    list(): Promise<Fault[]>;
    /** Throws a MockControlError with status 404 for an unknown id. */
    remove(id: string): Promise<void>;
    clear(): Promise<void>;
  };
  /** Fixed answers for the operations a `--spec` document adds (the built-in ones have state and faults). */
  pins: {
    /**
     * `{ operationId, status, body?, headers?, path_params?, principal?, times? }`; a body the
     * operation's schema refuses for that status, an unknown or a built-in operation: MockControlError 422.
     */
    add(spec: PinSpec): Promise<Pin>;
    /** Every pin in the order they are tried: those added at run time newest first, then the scenario's. */
    list(): Promise<Pin[]>;
    /** Throws a MockControlError with status 404 for an unknown id; a scenario's pin is back after a reset. */
    remove(id: string): Promise<void>;
    /** Removes the pins added at run time; the scenario's stay. */
    clear(): Promise<void>;
  };
  /** The request journal, newest first, optionally filtered. */
  requests(filter?: RequestsFilter): Promise<JournalEntry[]>;
  /** A principal's full snapshot: sessions with actions and files, mailboxes, secrets with their values. */
  workspace(principal: string): Promise<WorkspaceExport>;
  coverage(): Promise<CoverageReport>;
  /** Where the `--upstream` proxy saw the real service (or the client) leave openapi.json (`GET /__mock/drift`); empty without it. */
  drift(): Promise<DriftRecord[]>;
  /** The principal a token authenticates as (`user:<owner>` or `key:<24 hex>`), to reset only it. */
  principalOf(token: string): Promise<string>;
}

/** A control-plane request the mock refused: its HTTP status and its `detail`. */
export class MockControlError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    request: string,
  ) {
    super(`${request} → ${status}: ${describe(detail)}`);
    this.name = 'MockControlError';
  }
}

/** A Pydantic-style list of errors as one line: `body.status: Input should be a valid integer`. */
function describe(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((e) => `${(e?.loc ?? []).join('.')}: ${e?.msg ?? JSON.stringify(e)}`).join('; ');
  return JSON.stringify(detail);
}

export interface ControlOptions {
  /** The mock's `--admin-token`, sent as `Authorization: Bearer …` on every control-plane call. */
  adminToken?: string;
}

/** The handle, without checking that the mock is up (connectMockServer waits for it). */
export function controlClient(url: string, options: ControlOptions = {}): MockControl {
  const base = url.replace(/\/+$/, '');
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.adminToken !== undefined) headers.Authorization = `Bearer ${options.adminToken}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${base}${OWN_PATHS.controlPlane}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) {
      let detail: unknown = text;
      try {
        detail = JSON.parse(text).detail ?? text;
      } catch {
        // not JSON: the text is the detail
      }
      throw new MockControlError(res.status, detail, `${method} ${OWN_PATHS.controlPlane}${path.split('?')[0]}`);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
  const query = (params: Record<string, unknown>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : '';
  };
  const enc = encodeURIComponent;
  return {
    url: base,
    reset: (principal) => call('POST', `/reset${query({ principal })}`),
    clock: {
      now: () => call('GET', '/clock'),
      set: (instant) => call('POST', '/clock', { set: instant instanceof Date ? instant.toISOString() : instant }),
      advance: (by) => call('POST', '/clock', { advance: by }),
      reset: () => call('POST', '/clock/reset'),
    },
    faults: {
      add: (spec) => call('POST', '/faults', spec),
      list: async () => (await call<{ items: Fault[] }>('GET', '/faults')).items,
      remove: (id) => call('DELETE', `/faults/${enc(id)}`),
      clear: () => call('DELETE', '/faults'),
    },
    pins: {
      add: (spec) => call('POST', '/pins', spec),
      list: async () => (await call<{ items: Pin[] }>('GET', '/pins')).items,
      remove: (id) => call('DELETE', `/pins/${enc(id)}`),
      clear: () => call('DELETE', '/pins'),
    },
    requests: async (filter = {}) => {
      const since = filter.since instanceof Date ? filter.since.toISOString() : filter.since;
      return (await call<{ items: JournalEntry[] }>('GET', `/requests${query({ ...filter, since })}`)).items;
    },
    workspace: (principal) => call('GET', `/workspaces/${enc(principal)}`),
    coverage: () => call('GET', '/coverage'),
    drift: async () => (await call<{ items: DriftRecord[] }>('GET', '/drift')).items,
    principalOf: async (token) => (await call<{ principal: string }>('POST', '/principal', { token })).principal,
  };
}

/**
 * Connects to a mock started elsewhere (npx, Docker, Testcontainers): resolves once its `/health`
 * answers 200, or rejects after `timeoutMs` (default 30 s) naming the URL.
 *
 * @example
 * ```ts
 * const mock = await connectMockServer('http://127.0.0.1:8000', { adminToken: process.env.CBM_ADMIN_TOKEN });
 * await mock.faults.add({ operationId: 'listSessionFiles', status: 503, times: 1 });
 * await mock.clock.advance('P8D');
 * ```
 */
export async function connectMockServer(url: string, options: ControlOptions & { timeoutMs?: number } = {}): Promise<MockControl> {
  const client = controlClient(url, options);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last = 'no answer';
  for (;;) {
    try {
      const res = await fetch(`${client.url}${OWN_PATHS.health}`);
      await res.arrayBuffer();
      if (res.ok) return client;
      last = `status ${res.status}`;
    } catch (e) {
      last = ((e as Error).cause as Error | undefined)?.message ?? (e as Error).message;
    }
    if (Date.now() >= deadline) throw new Error(`cloud-browser-mock at ${client.url}: ${OWN_PATHS.health} did not answer 200 (${last})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
