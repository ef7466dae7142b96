/**
 * Two servers compared on one CPU, loaded at the same time from the others (the spec phase's
 * built-in endpoints, issue 30). Run one after the other, two processes of the same build differ
 * here by ±20% from one run to the next as the host's speed moves (BENCHMARKS.md, stops 36–38);
 * side by side on two CPUs they differ by up to ±40%, as the scheduler favours one. Pinned to the
 * same CPU and loaded at once, whatever the host does it does to both within the same
 * milliseconds, and the kernel shares that CPU between them evenly: two plain mocks measured this
 * way came out at 0.97–1.03× of each other (the median of a benchmark run's control pairs; a
 * single 3 s run spreads more, 0.92–1.12×), against ±20% one after the other.
 */
import { spawnSync } from 'node:child_process';

/** `taskset`'s CPU list of a process (its threads all have the same one unless told otherwise). */
function cpuList(pid) {
  const r = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return /:\s*(\S+)\s*$/.exec(r.stdout)?.[1];
}

/** The CPUs in a `taskset` list such as `0-3,6`. */
export function expand(list) {
  return list.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

/** Pins every thread of `pid` (and so every thread it starts later) to `cpus` (a `taskset` list). */
export function pin(pid, cpus) {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`taskset -a -p -c ${cpus} ${pid}: ${(r.error?.message ?? r.stderr).trim()}`);
}

/**
 * Where the servers and the load go: the last CPU this process may use for the servers, the others
 * for autocannon (in this process); `{ reason }` instead where that cannot be done: no `taskset`
 * (util-linux), or a single CPU.
 */
export function oneCorePlan() {
  const own = cpuList(process.pid);
  if (own === undefined) return { reason: '`taskset` (util-linux) is not on PATH, or cannot read this process’s CPUs' };
  const cpus = expand(own);
  if (cpus.length < 2) return { reason: `this process may use one CPU (${own}); the servers need one of their own and the load another` };
  const server = cpus[cpus.length - 1];
  return { own, server: String(server), load: cpus.filter((c) => c !== server).join(',') };
}

/** Runs `fn` with this process (the load generator) on the plan's load CPUs, then gives it back its own. */
export async function withLoadPinned(plan, fn) {
  pin(process.pid, plan.load);
  try {
    return await fn();
  } finally {
    pin(process.pid, plan.own);
  }
}
