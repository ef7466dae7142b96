#!/usr/bin/env node
/**
 * The `cloud-browser-mock` command: flags → start-up checks → the server (serve.ts). Every
 * start-up problem is one line; exit code 2 when a flag, a variable or what one names is wrong,
 * 1 for anything else. The server part is imported only once the arguments ask for a server:
 * `--help`, `--version` and a bad flag or directory answer without loading it.
 */
import { UsageError, helpText, parseCli, say, type CliResult } from './cli-args.js';
import { packageVersion } from '../primitives/package-root.js';
import { prepareDataDir } from './startup-checks.js';

async function main(): Promise<number> {
  let parsed: CliResult;
  let created: string[] = [];
  try {
    parsed = parseCli(process.argv.slice(2), process.env);
    if (parsed.help) return process.stdout.write(helpText()), 0;
    if (parsed.version) return process.stdout.write(`${packageVersion}\n`), 0;
    if (parsed.options.dataDir !== undefined) created = prepareDataDir(parsed.options.dataDir, parsed.from['data-dir']);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    say(process.stderr, `: ${e.message}`);
    return 2;
  }
  const { serve } = await import('./serve.js');
  return serve(parsed, created);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    // Not a start-up problem we know of: still one line, never a stack.
    say(process.stderr, `: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
    process.exitCode = 1;
  },
);
