/**
 * The CLI's flags, one entry each: placeholder, help line, environment fallback, and how its
 * value goes into ServerOptions (or what is wrong with it). cli-args.ts reads argv and the
 * environment against this table. The defaults --help names are CLI_DEFAULTS' (options.ts).
 */
import { parseCorsOrigins } from '../web/cors.js';
import { parseAllowedHosts } from '../guards/allowed-hosts.js';
import { CLI_DEFAULTS as D, type ServerOptions } from '../options.js';
import { parseDuration, parseSize } from '../primitives/units.js';
import { BUILT_IN_SCENARIOS } from '../scenarios/scenario.js';
import { OWN_PATHS } from '../primitives/own-paths.js';

export interface FlagSpec {
  /** The value's placeholder in --help; a flag without one is a switch (alone, =true or =false). */
  value?: string;
  help: string;
  /** A variable read when neither the flag nor its CBM_ variable is given (PORT, HOST). */
  fallback?: string;
  /** Only on the command line (--help, --version). */
  noEnv?: boolean;
  /** Puts the value into the options, or returns what it must be ("must be …") when it is bad. */
  set?(options: ServerOptions, value: string | boolean): string | void;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const nonEmpty = (text: string) => (text === '' ? 'must not be empty' : undefined);

/** A default duration as --help shows it, in its largest whole unit (7d, 30s): the way a flag takes it. */
function shownDuration(ms: number): string {
  const seconds = ms / 1000;
  const [unit, size] = ([['d', 86400], ['h', 3600], ['m', 60]] as const).find(([, n]) => seconds >= n && seconds % n === 0) ?? ['s', 1];
  return `${seconds / size}${unit}`;
}

/** A default size as --help shows it (100MiB). */
function shownSize(bytes: number): string {
  const [unit, size] = ([['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const).find(([, n]) => bytes >= n && bytes % n === 0) ?? ['', 1];
  return `${bytes / size}${unit}`;
}

export const FLAGS: Record<string, FlagSpec> = {
  port: {
    value: 'N',
    help: `port to listen on; 0 picks a free one (default ${D.port})`,
    fallback: 'PORT',
    set: (o, v) => (/^\d+$/.test(String(v)) && Number(v) <= 65535 ? void (o.port = Number(v)) : 'must be a port number from 0 to 65535'),
  },
  host: {
    value: 'ADDR',
    help: `interface to bind (default ${D.host}; 0.0.0.0 for all)`,
    fallback: 'HOST',
    set: (o, v) => nonEmpty(String(v)) ?? void (o.host = String(v)),
  },
  scenario: {
    value: 'NAME|PATH',
    help: `built-in scenario (${BUILT_IN_SCENARIOS.join(', ')}) or a scenario file (default ${D.scenario})`,
    set: (o, v) => nonEmpty(String(v)) ?? void (o.scenario = String(v)),
  },
  spec: {
    value: 'PATH',
    help: "serve an OpenAPI 3.0/3.1 document's operations too (JSON or YAML, up to 32 MiB): the fifteen keep their state, the others are answered from examples and schemas (default off)",
    set: (o, v) => (v === '' ? 'must name a file' : void (o.spec = String(v))),
  },
  seed: {
    value: 'N',
    help: `seeds the ids the mock makes while running (uploads, secrets, sessions) and which probabilistic faults fire; the scenario's own data and ids are the file's (default ${D.seed})`,
    set: (o, v) => (/^-?\d+$/.test(String(v)) && Number.isSafeInteger(Number(v)) ? void (o.seed = Number(v)) : 'must be an integer'),
  },
  'data-dir': {
    value: 'DIR',
    help: `where state is kept; created if missing (default ${D.dataDir}/ in the working directory)`,
    set: (o, v) => (v === '' ? 'must name a directory' : void (o.dataDir = String(v))),
  },
  'in-memory': { help: 'keep state in memory only; nothing is written to disk', set: (o, v) => void (o.inMemory = v === true) },
  'reset-data': { help: 'discard what the data directory holds and start from the scenario', set: (o, v) => void (o.resetData = v === true) },
  auth: {
    value: 'open|strict',
    help: `open: any bearer token; strict: issued tokens and scenario API keys only (default ${D.auth})`,
    set: (o, v) => (v === 'open' || v === 'strict' ? void (o.auth = v) : 'must be open or strict'),
  },
  'file-ttl': {
    value: 'DURATION',
    help: `how long files uploaded while running are kept: seconds or 90s, 24h, 7d, P7D (default ${shownDuration(D.fileTtlMs)}); the scenario's files keep the expiry the scenario gives them`,
    set: (o, v) => {
      const seconds = parseDuration(String(v));
      if (seconds === null || seconds <= 0) return 'must be a positive duration such as 3600, 90s, 24h, 7d or P7D';
      o.fileTtlMs = seconds * 1000;
    },
  },
  'token-ttl': {
    value: 'DURATION',
    help: `how long tokens from POST /token live on the mock's clock: seconds or 90s, 24h, 30d, P30D (default ${shownDuration(D.tokenTtlMs)})`,
    set: (o, v) => {
      const seconds = parseDuration(String(v));
      // Tokens carry their expiry as a number; a century keeps it far from any precision limit.
      if (seconds === null || seconds <= 0 || seconds > 100 * 365 * 86400) return 'must be a positive duration up to 100 years such as 3600, 24h, 30d or P30D';
      o.tokenTtlMs = seconds * 1000;
    },
  },
  'max-upload': {
    value: 'SIZE',
    help: `upload limit: bytes or 100MiB, 10MB, 512KiB (default ${shownSize(D.maxUploadBytes)})`,
    set: (o, v) => {
      const bytes = parseSize(String(v));
      if (bytes === null || bytes <= 0) return 'must be a positive size such as 1048576, 100MiB or 10MB';
      o.maxUploadBytes = bytes;
    },
  },
  'journal-size': {
    value: 'N',
    help: `how many requests ${OWN_PATHS.controlPlane}/requests keeps, service and unmatched ones (default ${D.journalSize})`,
    set: (o, v) => (/^\d+$/.test(String(v)) ? void (o.journalSize = Number(v)) : 'must be a whole number of requests'),
  },
  'body-idle-timeout': {
    value: 'TIME',
    help: `a request body that sends nothing this long gets 408: seconds or 30s, 2m; 0 = never; not a total deadline (default ${shownDuration(D.bodyIdleTimeoutMs)})`,
    set: (o, v) => {
      const seconds = parseDuration(String(v));
      if (seconds === null) return 'must be a duration such as 30, 30s or 2m (0 = never)';
      o.bodyIdleTimeoutMs = seconds * 1000;
    },
  },
  'max-connections': {
    value: 'N',
    help: 'connections over this many at once get 503 with Retry-After and are closed within ~1 s (default: half of the open-files limit less 64)',
    set: (o, v) => (/^\d+$/.test(String(v)) && Number(v) >= 1 ? void (o.maxConnections = Number(v)) : 'must be a whole number of connections, 1 or more'),
  },
  'admin-token': {
    value: 'TOKEN',
    help: `require Authorization: Bearer TOKEN on ${OWN_PATHS.controlPlane} (default: open)`,
    set: (o, v) => nonEmpty(String(v)) ?? void (o.adminToken = String(v)),
  },
  cors: {
    value: 'ORIGINS',
    help: 'let browser pages on these origins call the mock: comma-separated, or * for any (default off)',
    set: (o, v) => {
      const origins = parseCorsOrigins(String(v));
      if (!origins) return 'must be * or comma-separated origins such as http://localhost:5173';
      o.cors = origins;
    },
  },
  'allowed-hosts': {
    value: 'NAMES',
    help: 'host names to answer besides localhost, loopback and the listen address: comma-separated, .example.com for subdomains, * for any (default none)',
    set: (o, v) => {
      const names = parseAllowedHosts(String(v));
      if (!names) return 'must be * or comma-separated host names such as mock.internal or .example.com';
      o.allowedHosts = names;
    },
  },
  'log-level': {
    value: 'LEVEL',
    help: `${LOG_LEVELS.slice(0, -1).join(', ')} or ${LOG_LEVELS.at(-1)} (default ${D.logLevel})`,
    set: (o, v) => (LOG_LEVELS.includes(String(v)) ? void (o.logLevel = String(v)) : `must be one of ${LOG_LEVELS.join(', ')}`),
  },
  'validate-responses': {
    help: 'check every response against openapi.json (control-plane answers against control-plane.openapi.json; slower; on in the test suite)',
    set: (o, v) => void (o.validateResponses = v === true),
  },
  upstream: {
    value: 'URL',
    help: `forward service requests to the real service at URL and report drift at ${OWN_PATHS.controlPlane}/drift (default off)`,
    set: (o, v) => (/^https?:\/\/[^/?#]/i.test(String(v)) && URL.canParse(String(v)) ? void (o.upstream = String(v)) : 'must be an http:// or https:// URL'),
  },
  'upstream-timeout': {
    value: 'DURATION',
    help: `how long the upstream may stay silent before a 504: seconds or 90s, 2m (default ${shownDuration(D.upstreamTimeoutMs)})`,
    set: (o, v) => {
      const seconds = parseDuration(String(v));
      if (seconds === null || seconds <= 0) return 'must be a positive duration such as 30, 90s or 2m';
      o.upstreamTimeoutMs = seconds * 1000;
    },
  },
  record: {
    value: 'FILE',
    help: 'with --upstream: keep what the real service answered in a scenario file (default off)',
    set: (o, v) => (v === '' ? 'must name a file' : void (o.record = String(v))),
  },
  'record-secret-values': {
    help: 'with --record: keep secret values read through getSecret (default: placeholders)',
    set: (o, v) => void (o.recordSecretValues = v === true),
  },
  help: { help: 'show this help', noEnv: true },
  version: { help: 'print the version', noEnv: true },
};
