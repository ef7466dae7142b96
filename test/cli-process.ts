/** Running the built CLI as a child process, the way users run it. */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

export const CLI = join(ROOT, 'dist', 'bin', 'cli.js');
const CLI_PATH = CLI;

export interface RunningCli {
  child: ChildProcess;
  url: string;
  /** Everything printed so far (stdout then stderr). */
  output(): string;
  exited: Promise<number | null>;
  /** Resident memory of the process, in bytes (Linux). */
  rss(): number;
  /** Resolves once the output so far matches (waits for the process to print it). */
  waitFor(pattern: RegExp): Promise<void>;
}

export interface CliOptions {
  cwd: string;
  /**
   * Variables beside PATH and CHILD_DEFAULTS (nothing else of the test's environment is passed
   * on); `CBM_TEST_NO_WARM: ''` leaves the warm-up on.
   */
  env?: Record<string, string>;
  /** Starts it under `ulimit -n` with this many descriptors (a shell runs the limit, then execs node). */
  descriptorLimit?: number;
  /** The built command to run: this repository's by default, or a copy of it elsewhere. */
  command?: string;
}

/**
 * What every child gets unless the test says otherwise: no warm-up after listen (the CLI's test
 * switch, read only under NODE_ENV=test). Compiling every validator at start is about half the CPU
 * of a child that lives a few seconds, and no test here is about it; each validator still compiles
 * on its operation's first request. The warm-up's own tests (cli.test.ts, logging.test.ts) turn it
 * back on, as do the npx, Python and Docker tests, which never come through here.
 */
const CHILD_DEFAULTS = { NODE_ENV: 'test', CBM_TEST_NO_WARM: '1' };

/** Runs the CLI to its end (start-up problems, --help), with the same environment as startCli. */
export function runCli(args: string[], opts: CliOptions & Pick<SpawnSyncOptions, 'uid' | 'gid'>) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: { PATH: process.env.PATH, ...CHILD_DEFAULTS, ...opts.env }, encoding: 'utf8', timeout: 20000, uid: opts.uid, gid: opts.gid });
}

export function startCli(args: string[], opts: CliOptions): Promise<RunningCli> {
  const env = { PATH: process.env.PATH, ...CHILD_DEFAULTS, ...opts.env };
  const CLI = opts.command ?? CLI_PATH;
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const child = opts.descriptorLimit === undefined ? spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env }) : spawn('sh', ['-c', `ulimit -n ${opts.descriptorLimit} && exec ${quoted}`], { cwd: opts.cwd, env });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    // A child that never says where it listens is stopped, not left running (jest would wait on it).
    // A liveness deadline, not a speed claim: a start takes about a second, but a machine at load
    // 15+ once took past 15 s.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line in 60 s; stderr: ${err}`));
    }, 60_000);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        child,
        url: m[1],
        output: () => out + err,
        exited,
        rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024,
        waitFor: (pattern) =>
          new Promise<void>((done) => {
            const check = () => {
              if (!pattern.test(out + err)) return false;
              child.stdout!.off('data', check);
              child.stderr!.off('data', check);
              done();
              return true;
            };
            if (!check()) {
              child.stdout!.on('data', check);
              child.stderr!.on('data', check);
            }
          }),
      });
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before listening: ${err}`));
    });
  });
}
