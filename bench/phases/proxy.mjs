/**
 * What --upstream adds per request: listSessionFiles straight to a mock, and through a second mock
 * proxying to it (both the CLI with default logging), at 1 connection (latency) and at
 * N connections (throughput), rounds alternating the two.
 */
import { ENDPOINTS } from '../lib/endpoints.mjs';
import { load, median, medianRun } from '../lib/load.mjs';
import { settle, SETTLE_MS } from '../lib/servers.mjs';
import { stealSummary } from '../lib/steal.mjs';

export async function proxyPhase(ctx) {
  const { rounds, connections, duration, warmup } = ctx.settings;
  ctx.log(`proxy: listSessionFiles direct vs through --upstream, 1 and ${connections} connections, ${rounds} alternating rounds`);
  const upstream = await ctx.servers.startMock({ name: 'mock-upstream' });
  const proxy = await ctx.servers.startMock({ name: 'mock-proxy', extra: ['--upstream', upstream.url] });
  const ep = ENDPOINTS.find((e) => e.key === 'listSessionFiles');
  const targets = [
    { key: 'direct', server: upstream },
    { key: 'proxied', server: proxy },
  ];
  const run = (server, conns, seconds = duration) => load({ url: `${server.url}${ep.path}${ep.query}`, connections: conns, duration: seconds, method: ep.method, headers: ep.headers('proxy') });
  for (const t of targets) await run(t.server, connections, warmup);
  const runs = { direct: { at1: [], atN: [] }, proxied: { at1: [], atN: [] } };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const [level, conns] of [['at1', 1], ['atN', connections]]) {
      for (const t of order) {
        await settle(SETTLE_MS);
        const r = await ctx.measured(`round ${round + 1} proxy ${t.key} ${conns}c`, () => run(t.server, conns));
        runs[t.key][level].push(r);
        ctx.log(`round ${round + 1} ${t.key.padEnd(8)} ${String(conns).padStart(3)}c ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`);
      }
    }
  }
  const proxyRss = proxy.rss();
  await proxy.stop();
  await upstream.stop();
  const per = (key, level) => medianRun(runs[key][level]);
  const within = (level, f) => median(runs.proxied[level].map((r, i) => f(r, runs.direct[level][i])));
  return {
    direct: { at1: per('direct', 'at1'), atN: per('direct', 'atN') },
    proxied: { at1: per('proxied', 'at1'), atN: per('proxied', 'atN') },
    // Per round, proxied minus direct (they ran back to back), then the median over rounds.
    addedP50Ms: within('at1', (p, d) => p.p50 - d.p50),
    addedP99Ms: within('at1', (p, d) => p.p99 - d.p99),
    throughputRatio: within('atN', (p, d) => p.rps / d.rps),
    proxyRssMiB: proxyRss,
    steal: stealSummary([...runs.direct.at1, ...runs.direct.atN, ...runs.proxied.at1, ...runs.proxied.atN]),
  };
}
