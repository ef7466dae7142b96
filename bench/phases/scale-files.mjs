/**
 * listSessionFiles on a session holding 1k, 10k, 100k files, and on a 1k-file session beside 100k
 * files over 1,000 other sessions: p50/p99 at 1 connection (the cost of one answer) and at N.
 */
import { SCALE_SESSION } from '../lib/datasets.mjs';
import { auth } from '../lib/endpoints.mjs';
import { load } from '../lib/load.mjs';
import { get } from '../lib/processes.mjs';
import { flushDisk } from '../lib/servers.mjs';
import { stealSummary } from '../lib/steal.mjs';

export async function scaleFilesPhase(ctx, sets) {
  const { connections, duration, warmup } = ctx.settings;
  const out = [];
  for (const set of sets.files) {
    ctx.log(`scale: listSessionFiles with ${set.label}`);
    const mock = await ctx.servers.startMock({ name: `mock-${set.key}`, scenario: set.file });
    const url = `${mock.url}/sessions/${SCALE_SESSION}/files?limit=100`;
    // The first request creates the workspace from the scenario (and writes its file).
    const t0 = performance.now();
    const first = await get(url, auth());
    const firstMs = performance.now() - t0;
    if (first.status !== 200) throw new Error(`listSessionFiles answered ${first.status}: ${first.body}`);
    const total = JSON.parse(first.body).total;
    flushDisk();
    await load({ url, connections, duration: warmup, headers: auth() });
    const busy = await ctx.measured(`scale listSessionFiles ${set.key}, ${connections} connections`, () => load({ url, connections, duration, headers: auth() }));
    const single = await ctx.measured(`scale listSessionFiles ${set.key}, 1 connection`, () => load({ url, connections: 1, duration: Math.min(3, duration), headers: auth() }));
    out.push({
      key: set.key,
      label: set.label,
      total,
      firstRequestMs: firstMs,
      at1: { rps: single.rps, p50: single.p50, p99: single.p99, errors: single.errors + single.non2xx, steal: single.steal },
      atN: { rps: busy.rps, p50: busy.p50, p99: busy.p99, errors: busy.errors + busy.non2xx, steal: busy.steal },
      steal: stealSummary([single, busy]),
      rssMiB: mock.rss(),
    });
    ctx.log(`  total ${total}; 1 conn p50 ${single.p50.toFixed(2)} ms p99 ${single.p99.toFixed(2)} ms; ${connections} conns ${Math.round(busy.rps)} req/s p50 ${busy.p50.toFixed(2)} ms p99 ${busy.p99.toFixed(2)} ms`);
    await mock.stop();
  }
  return out;
}
