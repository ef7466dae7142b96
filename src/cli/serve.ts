/**
 * The command's server part: start-up checks done, flags parsed — start the mock, print the URL;
 * on SIGTERM/SIGINT, say what it waits for and stop. cli.ts loads this module only once the
 * arguments ask for a server, so `--help`, `--version` and a bad flag never load the server.
 */
import { say, type CliResult } from './cli-args.js';
import { jsonDestination, prettyDestination } from './logging.js';
import { ScenarioError } from '../scenarios/scenario.js';
import { flushLog, startMockServer, type MockServer } from '../server.js';
import { CLI_DEFAULTS } from '../options.js';
import { removeCreated } from './startup-checks.js';
import { StartupError } from '../store/store.js';
import { testHooks } from '../store/test-hooks.js';
import { ProxySetupError } from '../proxy/forward.js';
import { SpecError } from '../document/spec-file.js';
import { OWN_PATHS } from '../primitives/own-paths.js';

/** The line that tells a person where the mock is. */
const listeningLine = (server: MockServer) => ` listening on ${server.url} (set your client's base URL to it; Swagger UI at ${server.url}${OWN_PATHS.docs}, inspector at ${server.url}${OWN_PATHS.inspector})`;

/** What start-up failure to report, and the exit code. */
function startupFailure(e: unknown, parsed: CliResult): [string, number] {
  const { port, host } = parsed.options;
  if (e instanceof StartupError && e.cause instanceof ScenarioError) return [`${parsed.from.scenario ?? '--scenario'}: ${e.message}`, 2];
  if (e instanceof ProxySetupError) return [e.message, 2];
  // A bad --spec document: its message names the file (as given) and the problem.
  if (e instanceof SpecError) return [parsed.from.spec === 'CBM_SPEC' ? `CBM_SPEC${e.message.slice('--spec'.length)}` : e.message, 2];
  if (e instanceof StartupError) return [e.message, 1];
  const err = e as NodeJS.ErrnoException & { syscall?: string };
  if (err.syscall === 'listen') {
    const where = `${host}:${port}`;
    if (err.code === 'EADDRINUSE') return [`port ${port} on ${host} is in use; pick another with --port (0 = any free port)`, 1];
    if (err.code === 'EACCES') return [`cannot listen on ${where} (EACCES): ports below 1024 need privileges; pick another with --port`, 2];
    if (err.code === 'EADDRNOTAVAIL') return [`cannot listen on ${where} (EADDRNOTAVAIL): this machine has no such address; fix --host`, 2];
    return [`cannot listen on ${where} (${err.code})`, 1];
  }
  const first = String((e as Error)?.message ?? e).split('\n')[0];
  return [`cannot start: ${first}`, 1];
}

/**
 * The store's crash instants and compaction threshold (src/store/test-hooks.ts), for the CLI
 * children the robustness tests start: read here and only here — the library and the store never
 * read the environment — and only under NODE_ENV=test.
 */
function testSwitches(env: NodeJS.ProcessEnv) {
  if (env.NODE_ENV !== 'test') return undefined;
  return testHooks({ crashAt: env.CBM_TEST_CRASH_AT, compactionBytes: env.CBM_TEST_COMPACT_BYTES ? Number(env.CBM_TEST_COMPACT_BYTES) : undefined });
}

/**
 * CBM_TEST_NO_WARM (under NODE_ENV=test only): the suite's CLI children skip the warm-up after
 * listen — compiling every validator is about half of a short-lived child's CPU, and each still
 * compiles on its first request. The tests of the warm-up itself leave it on.
 */
const warmSwitchedOff = (env: NodeJS.ProcessEnv) => env.NODE_ENV === 'test' && Boolean(env.CBM_TEST_NO_WARM);

/** Runs the mock until a signal stops it; `created` is what the start-up checks made, removed if it cannot start. */
export async function serve(parsed: CliResult, created: string[]): Promise<number> {
  let server: MockServer;
  try {
    // Pretty lines for a person at a terminal; JSON for everything else (pipes, files, containers).
    const logDestination = process.stdout.isTTY ? await prettyDestination() : jsonDestination();
    // The CLI's own defaults (options.ts): it owns its process, so it may set V8's --expose-gc for the upload collections.
    const { shutdownGraceMs, warm, gcDuringUploads } = CLI_DEFAULTS;
    server = await startMockServer({ ...parsed.options, logDestination, shutdownGraceMs, warm: warm && !warmSwitchedOff(process.env), gcDuringUploads, testHooks: testSwitches(process.env) });
  } catch (e) {
    removeCreated(created);
    const [message, code] = startupFailure(e, parsed);
    say(process.stderr, `: ${message}`);
    return code;
  }
  // Listening for signals before saying where it listens: whoever reads that line may stop it at once.
  // A second signal finds no listener and ends the process at once, as a second Ctrl-C should.
  const signalled = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
  // Start-up's log lines (a --spec warning) stay before the listening line.
  await flushLog(server.app);
  say(process.stdout, listeningLine(server));
  await signalled;
  // docker stop sends SIGKILL 10 s after SIGTERM: the grace leaves time to flush and exit.
  // On stderr, so that stdout stays the log (JSON lines when piped) after the listening line.
  const pending = server.pendingRequests();
  const grace = `up to ${CLI_DEFAULTS.shutdownGraceMs / 1000} s`;
  say(process.stderr, pending ? ` stopping: waiting for ${pending} request${pending === 1 ? '' : 's'} (${grace})` : ' stopping');
  await server.close();
  return 0;
}
