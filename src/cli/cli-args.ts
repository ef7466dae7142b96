/**
 * Command-line flags and their environment variables (CONTRACT §7): `CBM_` + the flag in upper
 * snake case; PORT and HOST are honoured as fallbacks. Precedence: flag > CBM_ variable >
 * fallback > default. A bad flag or value is one line naming it (the CLI exits 2).
 *
 * Node's util.parseArgs splits argv into tokens (non-strict, so it never throws and no error text
 * needs reading); everything it would judge — unknown flags, missing values, switches given a
 * value — is judged here from the tokens, and each flag's value by its own entry in FLAGS
 * (cli-flags.ts). Adding a flag is one entry there.
 */
import { parseArgs } from 'node:util';
import { FLAGS } from './cli-flags.js';
import { brokenRule, CLI_DEFAULTS, type ServerOptions } from '../options.js';

export class UsageError extends Error {}

/** One line of the command's own, prefixed with its name (`line` starts with `:` or a space). */
export const say = (stream: NodeJS.WriteStream, line: string) => stream.write(`cloud-browser-mock${line}\n`);

export { FLAGS, type FlagSpec } from './cli-flags.js';

export const envName = (flag: string) => `CBM_${flag.replace(/-/g, '_').toUpperCase()}`;

export function helpText(): string {
  const rows = Object.entries(FLAGS).map(([name, f]) => {
    const left = `  --${name}${f.value ? ` ${f.value}` : ''}`;
    const env = f.noEnv ? '' : `  [${[envName(name), f.fallback].filter(Boolean).join(', ')}]`;
    return `${left.padEnd(30)}${f.help}${env}`;
  });
  return [
    'Usage: cloud-browser-mock [options]',
    '',
    'A local mock of the cloud browser automation service (session files, workflow code,',
    'mailboxes, secrets, OAuth2 token). Every option can also be set by the environment',
    'variable in brackets; a flag wins over its variable. Exit code 2: a flag, variable or',
    'the file or directory one names is wrong.',
    '',
    ...rows,
    '',
  ].join('\n');
}

export interface CliResult {
  options: ServerOptions;
  /** Where each option given came from: `--data-dir`, `CBM_DATA_DIR` or `PORT`, by flag name. */
  from: Record<string, string>;
  help?: boolean;
  version?: boolean;
}

const TRUE = /^(1|true|yes|on)$/i;
const FALSE = /^(0|false|no|off)$/i;

/** The flags given on the command line, by name: text for a valued flag, true/false for a switch. */
function commandLine(argv: string[]): Map<string, string | boolean> {
  const { tokens } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.entries(FLAGS).map(([k, f]) => [k, { type: f.value ? 'string' : 'boolean' }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const given = new Map<string, string | boolean>();
  for (const t of tokens) {
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') throw new UsageError(`unexpected argument ${t.value} (options start with --; see --help)`);
    const spec = Object.hasOwn(FLAGS, t.name) ? FLAGS[t.name] : undefined;
    if (!spec || !t.rawName.startsWith('--')) {
      const near = t.name.toLowerCase().replace(/_/g, '-');
      const hint = near !== t.name && Object.hasOwn(FLAGS, near) ? `; did you mean --${near}?` : ' (see --help)';
      throw new UsageError(`unknown option ${t.rawName}${hint}`);
    }
    if (spec.value) {
      // parseArgs takes the next argument as the value even when it is the next flag.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('--'))) throw new UsageError(`option ${t.rawName} needs a value (see --help)`);
      given.set(t.name, t.value);
    } else if (t.value === undefined) given.set(t.name, true);
    else if (TRUE.test(t.value) || FALSE.test(t.value)) given.set(t.name, TRUE.test(t.value));
    else throw new UsageError(`${t.rawName} is a switch: give it alone, or =true / =false, not ${JSON.stringify(t.value)}`);
  }
  return given;
}

/** Parses argv and the environment; throws UsageError with a one-line message. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliResult {
  const given = commandLine(argv);
  if (given.get('help') === true) return { options: {}, from: {}, help: true };
  if (given.get('version') === true) return { options: {}, from: {}, version: true };

  const options: ServerOptions = {};
  const from: Record<string, string> = {};
  for (const [name, spec] of Object.entries(FLAGS)) {
    if (spec.noEnv || !spec.set) continue;
    let value: string | boolean | undefined = given.get(name);
    let source = `--${name}`;
    for (const variable of value === undefined ? [envName(name), spec.fallback] : []) {
      const text = variable ? env[variable] : undefined;
      if (text === undefined || text === '') continue;
      source = variable!;
      if (spec.value) value = text;
      else if (TRUE.test(text) || FALSE.test(text)) value = TRUE.test(text);
      else throw new UsageError(`${variable} must be true or false, not ${JSON.stringify(text)}`);
      break;
    }
    if (value === undefined) continue;
    const problem = spec.set(options, value);
    if (problem) throw new UsageError(`${source} ${problem}, not ${JSON.stringify(value)}`);
    from[name] = source;
  }

  // A flag overrides the environment (the Docker image sets CBM_DATA_DIR, and
  // `docker run … --in-memory` must still work); the same level naming both is a mistake.
  if (options.inMemory && options.dataDir !== undefined) {
    const memoryByFlag = from['in-memory'].startsWith('--');
    const dirByFlag = from['data-dir'].startsWith('--');
    if (memoryByFlag === dirByFlag) throw new UsageError(`${from['data-dir']} and ${from['in-memory']} exclude each other`);
    if (dirByFlag) options.inMemory = false;
    else delete options.dataDir;
  }
  // The rules between options are the library's (options.ts); here they name where each came from.
  const broken = brokenRule(options);
  if (broken) throw new UsageError(`${from[broken.flag]} ${broken.needs}`);
  options.port ??= CLI_DEFAULTS.port;
  options.host ??= CLI_DEFAULTS.host;
  options.inMemory ??= false;
  options.resetData ??= false;
  options.validateResponses ??= false;
  if (!options.inMemory) {
    options.dataDir ??= CLI_DEFAULTS.dataDir;
    from['data-dir'] ??= '--data-dir';
  }
  return { options, from };
}
