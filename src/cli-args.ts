/**
 * Command-line flags and their environment variables (CONTRACT §7): `CBM_` + the flag in upper
 * snake case; PORT and HOST are honoured as fallbacks. A bad flag is one line naming it.
 */
import { parseArgs } from 'node:util';
import { parseCorsOrigins } from './cors.js';
import { parseAllowedHosts } from './guards/allowed-hosts.js';
import { BUILT_IN_SCENARIOS } from './scenarios/scenario.js';
import { DEFAULTS } from './options.js';
import type { ServerOptions } from './server.js';

export class UsageError extends Error {}

interface FlagSpec {
  type: 'string' | 'boolean';
  value?: string;
  help: string;
}

export const FLAGS: Record<string, FlagSpec> = {
  port: { type: 'string', value: 'N', help: `port to listen on; 0 picks a free one (default ${DEFAULTS.port})` },
  host: { type: 'string', value: 'ADDR', help: `interface to bind (default ${DEFAULTS.host}; 0.0.0.0 for all)` },
  scenario: { type: 'string', value: 'NAME|PATH', help: `built-in scenario (${BUILT_IN_SCENARIOS.join(', ')}) or a scenario file (default ${DEFAULTS.scenario})` },
  seed: { type: 'string', value: 'N', help: `seed for generated ids and fake values (default ${DEFAULTS.seed})` },
  'data-dir': { type: 'string', value: 'DIR', help: `where state is kept (default ${DEFAULTS.dataDir}/ in the working directory)` },
  'in-memory': { type: 'boolean', help: 'keep state in memory only; nothing is written to disk' },
  'reset-data': { type: 'boolean', help: 'discard what the data directory holds and start from the scenario' },
  auth: { type: 'string', value: 'open|strict', help: 'open: any bearer token; strict: issued tokens and scenario API keys only (default open)' },
  'file-ttl': { type: 'string', value: 'DURATION', help: 'file retention: seconds or 90s, 24h, 7d, P7D (default 7d)' },
  'token-ttl': { type: 'string', value: 'DURATION', help: 'how long tokens from POST /token live on the mock\'s clock: seconds or 90s, 24h, 30d, P30D (default 30d)' },
  'max-upload': { type: 'string', value: 'SIZE', help: 'upload limit: bytes or 100MiB, 10MB, 512KiB (default 100MiB)' },
  'journal-size': { type: 'string', value: 'N', help: 'how many service requests /__mock/requests keeps (default 1000)' },
  'admin-token': { type: 'string', value: 'TOKEN', help: 'require Authorization: Bearer TOKEN on /__mock (default: open)' },
  cors: { type: 'string', value: 'ORIGINS', help: 'let browser pages on these origins call the mock: comma-separated, or * for any (default off)' },
  'allowed-hosts': { type: 'string', value: 'NAMES', help: 'host names to answer besides localhost, loopback and the listen address: comma-separated, .example.com for subdomains, * for any (default none)' },
  'log-level': { type: 'string', value: 'LEVEL', help: 'fatal, error, warn, info, debug, trace or silent (default info)' },
  'validate-responses': { type: 'boolean', help: 'check every response against openapi.json (slower; on in the test suite)' },
  help: { type: 'boolean', help: 'show this help' },
  version: { type: 'boolean', help: 'print the version' },
};

export const envName = (flag: string) => `CBM_${flag.replace(/-/g, '_').toUpperCase()}`;

export function helpText(): string {
  const rows = Object.entries(FLAGS).map(([name, f]) => {
    const left = `  --${name}${f.value ? ` ${f.value}` : ''}`;
    const env = name === 'help' || name === 'version' ? '' : `  [${envName(name)}]`;
    return `${left.padEnd(30)}${f.help}${env}`;
  });
  return [
    'Usage: cloud-browser-mock [options]',
    '',
    'A local mock of the cloud browser automation service (session files, workflow code,',
    'mailboxes, secrets, OAuth2 token). Every option can also be set by the environment',
    'variable in brackets; PORT and HOST are read as fallbacks.',
    '',
    ...rows,
    '',
  ].join('\n');
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Seconds from `3600`, `90s`, `15m`, `24h`, `7d`, `1w` or ISO-8601 `P7D`, `PT1H30M`. */
export function parseDuration(text: string): number | null {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const simple = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(t);
  if (simple) return Number(simple[1]) * UNITS[simple[2].toLowerCase()];
  const iso = /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(t);
  if (iso && t.length > 1 && !/T$/i.test(t)) {
    const [, w, d, h, m, s] = iso.map((x) => Number(x ?? 0));
    return w * 604800 + d * 86400 + h * 3600 + m * 60 + s;
  }
  return null;
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Bytes from `1048576`, `100MiB`, `10MB`, `512KiB`. */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!m) return null;
  const unit = m[2].toLowerCase() || 'b';
  if (!(unit in SIZE_UNITS)) return null;
  return Math.floor(Number(m[1]) * SIZE_UNITS[unit]);
}

/** Tokens carry their expiry as a number; a century keeps it far from any precision limit. */
const MAX_TOKEN_TTL_SECONDS = 100 * 365 * 86400;

export interface CliResult {
  options: ServerOptions;
  help?: boolean;
  version?: boolean;
}

/** Parses argv and the environment; throws UsageError with a one-line message. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliResult {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(FLAGS).map(([k, f]) => [k, { type: f.type }])),
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>;
  } catch (e) {
    const msg = (e as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(msg);
    if (unknown) throw new UsageError(`unknown option ${unknown[1]} (see --help)`);
    const missing = /Option '([^']+?)(?: <value>)?' argument missing/.exec(msg) ?? /Option '(?:-\w, )?(--[\w-]+)/.exec(msg);
    if (missing) throw new UsageError(`option ${missing[1].replace(/^(-\w, )/, '')} needs a value (see --help)`);
    const positional = /Unexpected argument '([^']+)'/.exec(msg);
    if (positional) throw new UsageError(`unexpected argument ${positional[1]} (options start with --; see --help)`);
    throw new UsageError(msg.split('\n')[0]);
  }
  if (values.help) return { options: {}, help: true };
  if (values.version) return { options: {}, version: true };

  const get = (flag: string, fallback?: string): { value: string | undefined; from: string } => {
    if (values[flag] !== undefined) return { value: String(values[flag]), from: `--${flag}` };
    const e = env[envName(flag)];
    if (e !== undefined && e !== '') return { value: e, from: envName(flag) };
    if (fallback && env[fallback] !== undefined && env[fallback] !== '') return { value: env[fallback], from: fallback };
    return { value: undefined, from: `--${flag}` };
  };
  const bool = (flag: string): boolean => {
    if (values[flag] === true) return true;
    const e = env[envName(flag)];
    if (e === undefined || e === '') return false;
    if (/^(1|true|yes|on)$/i.test(e)) return true;
    if (/^(0|false|no|off)$/i.test(e)) return false;
    throw new UsageError(`${envName(flag)} must be true or false, not ${JSON.stringify(e)}`);
  };
  const options: ServerOptions = {};

  const port = get('port', 'PORT');
  if (port.value !== undefined) {
    if (!/^\d+$/.test(port.value) || Number(port.value) > 65535) throw new UsageError(`${port.from} must be a port number from 0 to 65535, not ${JSON.stringify(port.value)}`);
    options.port = Number(port.value);
  } else options.port = DEFAULTS.port;

  const host = get('host', 'HOST');
  options.host = host.value ?? DEFAULTS.host;

  const scenario = get('scenario');
  if (scenario.value !== undefined) options.scenario = scenario.value;

  const seed = get('seed');
  if (seed.value !== undefined) {
    if (!/^-?\d+$/.test(seed.value) || !Number.isSafeInteger(Number(seed.value))) throw new UsageError(`${seed.from} must be an integer, not ${JSON.stringify(seed.value)}`);
    options.seed = Number(seed.value);
  }

  let inMemory = bool('in-memory');
  const dataDir = get('data-dir');
  if (inMemory && dataDir.value !== undefined) {
    // A flag overrides the environment (the Docker image sets CBM_DATA_DIR, and
    // `docker run … --in-memory` must still work); the same level naming both is a mistake.
    const memoryByFlag = values['in-memory'] === true;
    const dirByFlag = dataDir.from === '--data-dir';
    if (memoryByFlag === dirByFlag) throw new UsageError(`${memoryByFlag ? '--data-dir' : dataDir.from} and ${memoryByFlag ? '--in-memory' : envName('in-memory')} exclude each other`);
    if (dirByFlag) inMemory = false;
  }
  options.inMemory = inMemory;
  if (!inMemory) options.dataDir = dataDir.value ?? DEFAULTS.dataDir;
  options.resetData = bool('reset-data');

  const auth = get('auth');
  if (auth.value !== undefined) {
    if (auth.value !== 'open' && auth.value !== 'strict') throw new UsageError(`${auth.from} must be open or strict, not ${JSON.stringify(auth.value)}`);
    options.auth = auth.value;
  }

  const ttl = get('file-ttl');
  if (ttl.value !== undefined) {
    const seconds = parseDuration(ttl.value);
    if (seconds === null || seconds <= 0) throw new UsageError(`${ttl.from} must be a positive duration such as 3600, 90s, 24h, 7d or P7D, not ${JSON.stringify(ttl.value)}`);
    options.fileTtlSeconds = seconds;
  }

  const tokenTtl = get('token-ttl');
  if (tokenTtl.value !== undefined) {
    const seconds = parseDuration(tokenTtl.value);
    if (seconds === null || seconds <= 0 || seconds > MAX_TOKEN_TTL_SECONDS) throw new UsageError(`${tokenTtl.from} must be a positive duration up to 100 years such as 3600, 24h, 30d or P30D, not ${JSON.stringify(tokenTtl.value)}`);
    options.tokenTtlSeconds = seconds;
  }

  const maxUpload = get('max-upload');
  if (maxUpload.value !== undefined) {
    const bytes = parseSize(maxUpload.value);
    if (bytes === null || bytes <= 0) throw new UsageError(`${maxUpload.from} must be a positive size such as 1048576, 100MiB or 10MB, not ${JSON.stringify(maxUpload.value)}`);
    options.maxUploadBytes = bytes;
  }

  const journal = get('journal-size');
  if (journal.value !== undefined) {
    if (!/^\d+$/.test(journal.value)) throw new UsageError(`${journal.from} must be a whole number of requests, not ${JSON.stringify(journal.value)}`);
    options.journalSize = Number(journal.value);
  }
  const admin = get('admin-token');
  if (admin.value !== undefined) options.adminToken = admin.value;

  const cors = get('cors');
  if (cors.value !== undefined) {
    const origins = parseCorsOrigins(cors.value);
    if (!origins) throw new UsageError(`${cors.from} must be * or comma-separated origins such as http://localhost:5173, not ${JSON.stringify(cors.value)}`);
    options.cors = origins;
  }

  const hosts = get('allowed-hosts');
  if (hosts.value !== undefined) {
    const names = parseAllowedHosts(hosts.value);
    if (!names) throw new UsageError(`${hosts.from} must be * or comma-separated host names such as mock.internal or .example.com, not ${JSON.stringify(hosts.value)}`);
    options.allowedHosts = names;
  }

  const level = get('log-level');
  if (level.value !== undefined) {
    if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level.value)) {
      throw new UsageError(`${level.from} must be one of fatal, error, warn, info, debug, trace, silent, not ${JSON.stringify(level.value)}`);
    }
    options.logLevel = level.value;
  }
  options.validateResponses = bool('validate-responses');
  return { options };
}
