/**
 * Instructions, not time (`--instructions`, issue 30). On this 2-core machine two identical
 * servers loaded in turns, or side by side at once, differ by ±20% from one 2 s run to the next,
 * and one server's CPU time per request went from 252 to 809 µs between two runs: far more than
 * the 5% a figure of the spec phase must tell. What a server executes per request does not move
 * with the machine. Each
 * server runs under valgrind's callgrind with instrumentation off; it answers a warm-up (its code
 * optimised), then `callgrind_control -i on`, exactly `count` requests (autocannon's `amount`),
 * `-i off`, a dump, and the instructions executed over the window (every thread's: the main one,
 * the collector's and the compiler's helpers) divided by the requests. Two counts still differ by
 * what fell inside the window: a major collection, or code still being optimised (hence the long
 * warm-up; BENCHMARKS.md has the figures).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from './load.mjs';
import { freePort, waitFor200 } from './processes.mjs';

/** Why instructions cannot be counted here, or null when valgrind's callgrind and its control are on PATH. */
export function callgrindMissing() {
  for (const tool of ['valgrind', 'callgrind_control']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) return `--instructions needs valgrind's callgrind (${tool} is not on PATH; apt-get install valgrind)`;
  }
  return null;
}

/** Exactly `amount` requests over four keep-alive connections, every one answered 2xx. */
async function requests(url, { method, path, headers, body, setupRequest }, amount) {
  const r = await load({ url: `${url}${path}`, connections: 4, amount, timeout: 600, method, headers, body, setupRequest });
  if (r.ok !== amount) throw new Error(`${method} ${path}: ${r.ok} of ${amount} requests answered 2xx under callgrind (${JSON.stringify(r.statuses)}, ${r.errors} errors)`);
}

/**
 * One server under callgrind: `node <cli> --port P --data-dir D <extra>`. `prime` runs first (not
 * counted, e.g. the --spec server's session_starts), then `warm` requests shaped by `request` (method,
 * path with query, headers, body, setupRequest), then `count` counted. Resolves with the
 * instructions per counted request.
 */
export async function instructionsPerRequest({ cli, extra = [], work, name, request, warm, count, prime }) {
  const port = await freePort();
  const out = join(work, `callgrind-${name}.out`);
  const log = openSync(join(work, `callgrind-${name}.log`), 'a');
  const t0 = performance.now();
  const child = spawn('valgrind', ['--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, cli, '--port', String(port), '--data-dir', join(work, `data-${name}`), '--log-level', 'silent', ...extra], { stdio: ['ignore', log, log] });
  closeSync(log);
  // callgrind_control exits 0 even when it refuses an option: its "OK." is the answer.
  const control = (...args) => {
    const r = spawnSync('callgrind_control', [...args, String(child.pid)], { encoding: 'utf8' });
    if (!/^\s*OK\.$/m.test(r.stdout)) throw new Error(`callgrind_control ${args.join(' ')} ${child.pid}: ${(r.stderr || r.stdout).trim()}`);
  };
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor200(`${url}/health`, t0, child, 600_000);
    if (prime) await prime(url);
    await requests(url, request, warm);
    control('-i', 'on');
    await requests(url, request, count);
    control('-i', 'off');
    control('-d');
  } finally {
    await new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  }
  // The dump written by `-d` (callgrind names it out.1, out.2… beside the final one).
  const dumps = [out, `${out}.1`].filter(existsSync);
  const totals = dumps.map((f) => /^totals: (\d+)/m.exec(readFileSync(f, 'utf8'))).filter(Boolean).map((m) => Number(m[1]));
  const counted = Math.max(...totals, 0);
  if (!counted) throw new Error(`${name}: no instruction count in ${dumps.join(', ') || out}`);
  return counted / count;
}
