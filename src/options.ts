/**
 * Options of createApp (MockOptions) and startMockServer (ServerOptions), which the CLI fills,
 * with their defaults. Every duration is in milliseconds and named `…Ms`.
 */
import { deprecate } from 'node:util';
import { DEFAULT_TOKEN_TTL_MS, type AuthMode } from './operations/auth.js';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_SIZE } from './records/journal.js';
import type { Clock } from './primitives/clock.js';
import type { TestHooks } from './store/test-hooks.js';

export interface MockOptions {
  /**
   * An OpenAPI 3.0 or 3.1 document (JSON or YAML, at most 32 MiB; relative to `cwd`) whose
   * operations are served besides the built-in fifteen, answered from their examples and schemas
   * (docs/whole-service.md). The mock's own paths and the fifteen win where both have a route.
   */
  spec?: string;
  /** Built-in scenario name or path to a scenario file. Default `default`. */
  scenario?: string;
  /** Seeds fake values and generated ids. Default 1. */
  seed?: number;
  /** Data directory for a file-backed store. Without it (or with inMemory) state is in memory. */
  dataDir?: string;
  /** Keep JSON state in memory and blobs in a temporary directory removed on close. */
  inMemory?: boolean;
  /** Discard what the data directory holds and start from the scenario. */
  resetData?: boolean;
  /** `open` (default): any non-empty bearer token; `strict`: issued tokens and scenario API keys only. */
  auth?: AuthMode;
  /** How long files uploaded while running are kept, in ms on the mock's clock. Default 7 days. */
  fileTtlMs?: number;
  /** How long tokens from `POST /token` live, in ms on the mock's clock. Default 30 days. */
  tokenTtlMs?: number;
  /** @deprecated Use `fileTtlMs` (milliseconds); still read, with a deprecation warning. */
  fileTtlSeconds?: number;
  /** @deprecated Use `tokenTtlMs` (milliseconds); still read, with a deprecation warning. */
  tokenTtlSeconds?: number;
  /** Upload limit in bytes. Default 100 MiB. */
  maxUploadBytes?: number;
  /** Validate every response against openapi.json, and /__mock answers against control-plane.openapi.json (a mismatch becomes a 500 and is logged). */
  validateResponses?: boolean;
  /** pino level: fatal, error, warn, info (default), debug, trace, silent. */
  logLevel?: string;
  /**
   * Origins whose pages may call the mock from a browser (`['*']` for any). Default none: then
   * OPTIONS answers 405 as the service does.
   */
  cors?: string[];
  /**
   * Host names the mock answers besides localhost, loopback addresses and its own address
   * (`.example.com` also allows subdomains; `['*']` any name, as the Docker image does).
   */
  allowedHosts?: string[];
  /** Where log lines go; default stdout, as JSON. */
  logDestination?: NodeJS.WritableStream;
  /** How many service requests the journal keeps (a ring buffer). Default 1,000. */
  journalSize?: number;
  /** What the journal's entries may weigh together (bytes of their JSON text). Default 8 MiB. */
  journalMaxBytes?: number;
  /**
   * Workspaces kept in memory besides those in use; past it the least recently used are let go
   * (loaded again from disk when next used). Default 64. In memory, written ones always stay.
   */
  workspacesInMemory?: number;
  /** When set, /__mock requires `Authorization: Bearer <adminToken>`. */
  adminToken?: string;
  /** The clock; tests pass one to move time. */
  clock?: Clock;
  /** Directory relative scenario paths resolve against. Default process.cwd(). */
  cwd?: string;
  /**
   * startMockServer and the CLI: a request body that sends nothing for this long is answered 408
   * and its connection closed (ms; 0 turns it off). Default 30 s. It is not a total deadline.
   */
  bodyIdleTimeoutMs?: number;
  /**
   * startMockServer and the CLI: connections over this many at once have their requests answered
   * 503 with Retry-After as soon as their headers are in, and are closed within about a second.
   * Default: half of the descriptor limit less 64 (see http/connection-limits.ts). The hard ceiling, past
   * which connections are dropped at accept, is the descriptor limit less 64.
   */
  maxConnections?: number;
  /**
   * The real service's base URL (http or https). Service requests are then forwarded to it and
   * its answers checked for drift against openapi.json; the local store is not used.
   */
  upstream?: string;
  /** How long the upstream may stay silent (connecting, answering, or mid-body), in ms. Default 30 s. */
  upstreamTimeoutMs?: number;
  /** @deprecated Use `upstreamTimeoutMs` (milliseconds); still read, with a deprecation warning. */
  upstreamTimeoutSeconds?: number;
  /** With `upstream`: a scenario file kept up to date with what the real service answered. */
  record?: string;
  /** With `record`: keep secret values read through getSecret (default: placeholders). */
  recordSecretValues?: boolean;
  /**
   * Run a young-generation collection every 8 MiB of an upload, which keeps a 100 MiB upload's
   * peak memory near 12 MiB instead of 35. It sets V8's `--expose-gc` for the whole process, so
   * it is off unless asked for; the CLI, which owns its process, turns it on.
   */
  gcDuringUploads?: boolean;
  /**
   * @internal Under test only: the store's named crash instants and compaction threshold
   * (src/store/test-hooks.ts). The command sets it from `CBM_TEST_*` under `NODE_ENV=test`; the
   * library never reads the environment for it.
   */
  testHooks?: TestHooks;
}

/** startMockServer's options: createApp's plus what a listening server needs. */
export interface ServerOptions extends MockOptions {
  /**
   * Load and compile the validators right after listen (the CLI does); else on first use. Off
   * in tests: loading blocks the event loop for a moment, and a test's short headers timeout
   * could fire on a request that arrived meanwhile.
   */
  warm?: boolean;
  /** Port to listen on; 0 (the default here) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** How long a client may take to send its request headers (ms); default 10 s. */
  headersTimeoutMs?: number;
  /** How long close() waits for in-flight requests before cutting them off (ms); default 8 s. */
  shutdownGraceMs?: number;
  /** How long an idle keep-alive connection stays open (ms); default Node's 5 s. */
  keepAliveTimeoutMs?: number;
}

/**
 * Every default, in one table (issue 32): the options (createApp, startMockServer), the server,
 * the store and the CLI and its --help read them here. Most are one value for all; where the
 * library and the command differ on purpose, both stand side by side: a test wants a free port,
 * nothing on disk and nothing done behind its back; a person at a terminal wants a known port,
 * state kept between runs, the validators ready and uploads kept small (the CLI owns its
 * process, so it may set V8's --expose-gc).
 */
const BOTH = {
  scenario: 'default',
  seed: 1,
  auth: 'open' as AuthMode,
  fileTtlMs: 7 * 24 * 3600 * 1000,
  tokenTtlMs: DEFAULT_TOKEN_TTL_MS,
  maxUploadBytes: 100 * 1024 * 1024,
  logLevel: 'info',
  /** Loopback only: the Docker image sets 0.0.0.0 itself (CBM_HOST). */
  host: '127.0.0.1',
  journalSize: DEFAULT_JOURNAL_SIZE,
  journalMaxBytes: DEFAULT_JOURNAL_BYTES,
  bodyIdleTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  shutdownGraceMs: 8_000,
  upstreamTimeoutMs: 30_000,
};

/** Where they differ on purpose: the library's value and the CLI's, side by side. */
const DIFFERING = {
  /** 0 picks a free port. */
  port: { library: 0, cli: 8000 },
  /** undefined: in memory (the library), else this directory under the working directory (the CLI). */
  dataDir: { library: undefined, cli: '.cloud-browser-mock' },
  /** Validators loaded and compiled right after listen, or on first use. */
  warm: { library: false, cli: true },
  /** A young-generation collection every 8 MiB of an upload (sets --expose-gc process-wide). */
  gcDuringUploads: { library: false, cli: true },
} as const;

/** The library's defaults: createApp, startMockServer, createStore. */
export const DEFAULTS = Object.freeze({
  ...BOTH,
  port: DIFFERING.port.library as number,
  dataDir: DIFFERING.dataDir.library as string | undefined,
  warm: DIFFERING.warm.library as boolean,
  gcDuringUploads: DIFFERING.gcDuringUploads.library as boolean,
});

/** The command's defaults (cli/): the library's, but for those above. */
export const CLI_DEFAULTS = Object.freeze({
  ...BOTH,
  port: DIFFERING.port.cli as number,
  dataDir: DIFFERING.dataDir.cli as string,
  warm: DIFFERING.warm.cli as boolean,
  gcDuringUploads: DIFFERING.gcDuringUploads.cli as boolean,
});

/** A rule between options that the given ones break: the option, by its flag's name, and what it needs. */
export interface BrokenRule {
  flag: string;
  needs: string;
}

/**
 * The rules between options, checked here once: createApp throws them as a StartupError naming
 * the flag, the CLI as its one-line usage error (exit 2) naming where the option came from.
 */
export function brokenRule(options: MockOptions): BrokenRule | undefined {
  // A recording is made of the real service's answers: it needs the proxy.
  if (options.record && !options.upstream) return { flag: 'record', needs: 'needs --upstream: a recording is made of what the real service answers' };
  if (options.recordSecretValues && !options.record) return { flag: 'record-secret-values', needs: 'needs --record' };
  return undefined;
}

/** The options' durations, each in ms: the `…Ms` option, else its deprecated `…Seconds` one, else the default. */
export interface Durations {
  fileTtlMs: number;
  tokenTtlMs: number;
  upstreamTimeoutMs: number;
}

/** The `…Seconds` options the `…Ms` ones replaced (0.3); read still, behind one deprecation warning. */
const DEPRECATED_SECONDS = { fileTtlSeconds: 'fileTtlMs', tokenTtlSeconds: 'tokenTtlMs', upstreamTimeoutSeconds: 'upstreamTimeoutMs' } as const;

export const SECONDS_DEPRECATION =
  'cloud-browser-mock: the options fileTtlSeconds, tokenTtlSeconds and upstreamTimeoutSeconds are deprecated: use fileTtlMs, tokenTtlMs and upstreamTimeoutMs (milliseconds)';
/** Node prints a deprecation once per process for its code, so a suite creating many apps sees one line. */
const warnSeconds = deprecate(() => {}, SECONDS_DEPRECATION, 'CBM_DEP_SECONDS');

export function durations(options: MockOptions): Durations {
  const given = (Object.keys(DEPRECATED_SECONDS) as (keyof typeof DEPRECATED_SECONDS)[]).filter((name) => options[name] !== undefined);
  if (given.length) warnSeconds();
  const ms = (name: keyof typeof DEPRECATED_SECONDS, fallback: number) => options[DEPRECATED_SECONDS[name]] ?? (options[name] !== undefined ? options[name] * 1000 : fallback);
  return {
    fileTtlMs: ms('fileTtlSeconds', DEFAULTS.fileTtlMs),
    tokenTtlMs: ms('tokenTtlSeconds', DEFAULTS.tokenTtlMs),
    upstreamTimeoutMs: ms('upstreamTimeoutSeconds', DEFAULTS.upstreamTimeoutMs),
  };
}
