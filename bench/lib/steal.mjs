/**
 * CPU the hypervisor gave to other guests (`steal`): a load run during which the host stole more
 * than a little is run again, and every phase records how much was stolen during it.
 */
import { readFileSync } from 'node:fs';

/**
 * A run during which the host stole more than this is run again: over 0.5 s of CPU, or over 1% of
 * the CPU time that went by (a 5 s run on 2 CPUs: 0.1 s). At most RERUNS times; the figures
 * kept are those of the first run without steal, else of the run with the least.
 */
export const STEAL_LIMITS = { rerunWhenOverSeconds: 0.5, rerunWhenOverShare: 0.01, rerunsAtMost: 2 };
const stolen = (s) => s.seconds > STEAL_LIMITS.rerunWhenOverSeconds || s.share > STEAL_LIMITS.rerunWhenOverShare;

/**
 * The machine's CPU time so far, over all its CPUs, and the part of it the hypervisor gave to
 * other guests (`steal`), in seconds, from the first line of /proc/stat (NaN where there is none).
 * Its columns: user nice system idle iowait irq softirq steal (guest time is inside user and nice).
 */
export function cpuTimes() {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    if (ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return { total: NaN, steal: NaN };
    // USER_HZ is 100 on every Linux this runs on.
    return { total: ticks.reduce((a, b) => a + b, 0) / 100, steal: ticks[7] / 100 };
  } catch {
    return { total: NaN, steal: NaN };
  }
}

/** Steal between two cpuTimes(): seconds, and the share of all the CPU time that went by. */
export function stealBetween(before, after) {
  const seconds = after.steal - before.steal;
  return { seconds: +seconds.toFixed(2), share: seconds / (after.total - before.total) };
}

export const percent = (share) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : '–');

/**
 * `measured(what, run)`: runs `run(attempt)` (a load run; attempt 0, 1, 2 — a storeSecret run uses
 * it to keep its names distinct) and again while the host stole CPU during it. Resolves with the
 * result kept, plus `steal` (that run's steal, how many runs were made, whether it was still
 * stolen) and `attempts` (every run's result and steal). Every run made again is pushed onto
 * `reruns`, which the entry owns and writes into the results.
 */
export function createMeasured(reruns, log) {
  return async function measured(what, run) {
    const attempts = [];
    for (let attempt = 0; attempt <= STEAL_LIMITS.rerunsAtMost; attempt++) {
      const before = cpuTimes();
      const result = await run(attempt);
      const steal = stealBetween(before, cpuTimes());
      attempts.push({ result, steal });
      if (!stolen(steal)) break;
      log(`  ${what}: the host stole ${steal.seconds} s of CPU (${percent(steal.share)} of the run's)${attempt < STEAL_LIMITS.rerunsAtMost ? ': running it again' : `; kept the run with the least after ${STEAL_LIMITS.rerunsAtMost} re-runs`}`);
    }
    const last = attempts[attempts.length - 1];
    const kept = stolen(last.steal) ? attempts.reduce((a, b) => (b.steal.seconds < a.steal.seconds ? b : a)) : last;
    const steal = { seconds: kept.steal.seconds, share: kept.steal.share, runs: attempts.length, stillStolen: stolen(kept.steal) };
    if (attempts.length > 1) {
      reruns.push({ what, runs: attempts.map((a) => ({ stealSeconds: a.steal.seconds, share: a.steal.share })), kept: attempts.indexOf(kept), stillStolen: steal.stillStolen });
    }
    return { ...kept.result, steal, attempts };
  };
}

/** How many of these measured runs were run again for steal, and how many kept steal all the same. */
export function stealSummary(runs) {
  return { rerun: runs.filter((r) => r.steal?.runs > 1).length, stillStolen: runs.filter((r) => r.steal?.stillStolen).length };
}
