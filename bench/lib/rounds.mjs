/**
 * The order servers run in within a round, and ratios taken within rounds. Servers that ran back to
 * back ran under the same load, so a ratio is taken per round and the median over rounds kept:
 * steadier than a ratio of medians on a shared machine.
 */
import { median } from './load.mjs';

/**
 * The servers of round `round`, in the order they run. `units` is a list whose items are a server
 * or a pair of servers compared with each other (the working tree's build and the baseline's):
 * each round starts with the next unit, so drift in the machine's load spreads evenly, and a pair
 * always runs back to back, A then B in even rounds and B then A in odd ones (A,B,B,A,A,B…), so
 * neither build always runs just after the other's writeback or just before a pause.
 */
export function roundOrder(units, round) {
  const shift = round % units.length;
  const rotated = units.slice(shift).concat(units.slice(0, shift));
  return rotated.flatMap((u) => (Array.isArray(u) ? (round % 2 ? [...u].reverse() : u) : [u]));
}

/** Per-round ratios of one figure of server `a` to server `b` (`byServer[key]` is one run per round). */
export function perRoundRatios(byServer, a, b, figure = (r) => r.rps) {
  if (!byServer[a] || !byServer[b]) return undefined;
  return byServer[a].map((r, i) => figure(r) / figure(byServer[b][i]));
}

/** The median of the per-round ratios (undefined when either server did not run). */
export function medianRatio(byServer, a, b, figure) {
  const list = perRoundRatios(byServer, a, b, figure);
  return list ? median(list) : undefined;
}
