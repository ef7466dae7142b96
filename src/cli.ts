#!/usr/bin/env node
/** The `cloud-browser-mock` command: flags → startMockServer → print the URL. Nothing else. */
import { UsageError, helpText, parseCli } from './cli-args.js';
import { prettyDestination } from './logging.js';
import { packageVersion } from './package-root.js';
import { startMockServer } from './server.js';
import { StartupError } from './store/store.js';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCli(process.argv.slice(2), process.env);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`cloud-browser-mock: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (parsed.help) return process.stdout.write(helpText()), 0;
  if (parsed.version) return process.stdout.write(`${packageVersion}\n`), 0;

  let server;
  try {
    // Pretty lines for a person at a terminal; JSON for everything else (pipes, files, containers).
    const logDestination = process.stdout.isTTY ? await prettyDestination() : undefined;
    server = await startMockServer({ ...parsed.options, logDestination });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof StartupError) process.stderr.write(`cloud-browser-mock: ${e.message}\n`);
    else if (code === 'EADDRINUSE') process.stderr.write(`cloud-browser-mock: port ${parsed.options.port} on ${parsed.options.host} is in use; pick another with --port (0 = any free port)\n`);
    else if (code === 'EACCES' || code === 'EADDRNOTAVAIL') process.stderr.write(`cloud-browser-mock: cannot listen on ${parsed.options.host}:${parsed.options.port} (${code})\n`);
    else throw e;
    return 1;
  }
  process.stdout.write(`cloud-browser-mock listening on ${server.url} (set your client's base URL to it; Swagger UI at ${server.url}/docs)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`cloud-browser-mock: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  },
);
