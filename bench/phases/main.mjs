/**
 * Throughput and latency of the three endpoints on the mock as users run it, the mock with
 * --validate-responses, the bare node:http ceiling, Prism (with --with-prism) and the baseline
 * build (with --baseline), rounds alternating the servers; the baseline build always runs next to
 * the working tree's (lib/rounds.mjs).
 */
import { median, medianRun } from '../lib/load.mjs';
import { ENDPOINTS, captureRoutes, runEndpoint } from '../lib/endpoints.mjs';
import { medianRatio, perRoundRatios, roundOrder } from '../lib/rounds.mjs';
import { flushDisk, settle, SETTLE_MS } from '../lib/servers.mjs';
import { stealSummary } from '../lib/steal.mjs';

/** The figures compared side by side with the baseline, and whether a larger value is better. */
export const SIDE_BY_SIDE_FIGURES = [
  ['rps', 'req/s'],
  ['p50', 'p50 ms'],
  ['p99', 'p99 ms'],
];

export async function mainPhase(ctx) {
  const { rounds, duration, connections, warmup } = ctx.settings;
  const { prism, prismDoc, baseline, servers: start } = ctx;
  ctx.log(`throughput: ${ENDPOINTS.length} endpoints, ${connections} connections, ${duration} s each, ${rounds} alternating rounds`);
  const mock = await start.startMock({ name: 'mock' });
  const servers = [{ key: 'mock', label: 'mock (CLI defaults)', server: mock }];
  if (baseline) servers.push({ key: 'mockBaseline', label: `${baseline.label} (defaults)`, server: await start.startMock({ name: 'mock-baseline', cli: baseline.cli }) });
  servers.push({ key: 'mockValidating', label: 'mock --validate-responses', server: await start.startMock({ name: 'mock-validating', extra: ['--validate-responses'] }) });
  servers.push({ key: 'bare', label: 'bare node:http (same bytes)', server: await start.startBare(await captureRoutes(mock, ctx.work)) });
  if (prism) {
    servers.push({ key: 'prism', label: `Prism ${prism.version} (defaults)`, server: await start.startPrism(prism, prismDoc, { name: 'prism' }) });
    servers.push({ key: 'prismQuiet', label: `Prism ${prism.version} (-v error)`, server: await start.startPrism(prism, prismDoc, { name: 'prism-quiet', verbose: 'error' }) });
  }
  // The two builds compared are one unit of the rotation, so they always run back to back.
  const units = baseline ? [[servers[0], servers[1]], ...servers.slice(2)] : servers;
  await settle(1000);
  const rssAfterStart = Object.fromEntries(servers.map((s) => [s.key, s.server.rss()]));

  const runs = {};
  // One endpoint at a time, its rounds alternating the servers: the write-heavy storeSecret runs
  // come last, so the disk writeback they leave behind never lands in another endpoint's runs.
  for (const ep of ENDPOINTS) {
    flushDisk();
    for (const s of servers) await runEndpoint(s.server, ep, `warm_${s.key}`, { connections, duration: warmup });
    for (let round = 0; round < rounds; round++) {
      for (const s of roundOrder(units, round)) {
        await settle(SETTLE_MS);
        const r = await ctx.measured(`round ${round + 1} ${ep.key} ${s.key}`, (attempt) => runEndpoint(s.server, ep, `r${round}_${s.key}${attempt ? `_again${attempt}` : ''}`, { connections, duration }));
        ((runs[ep.key] ??= {})[s.key] ??= []).push(r);
        ctx.log(`round ${round + 1} ${ep.key.padEnd(16)} ${s.key.padEnd(15)} ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`);
      }
    }
  }
  const rssAfterLoad = Object.fromEntries(servers.map((s) => [s.key, s.server.rss()]));
  for (const s of servers) await s.server.stop();

  const throughput = {};
  for (const ep of ENDPOINTS) {
    const byServer = runs[ep.key];
    const ratio = (a, b) => medianRatio(byServer, a, b);
    throughput[ep.key] = { label: ep.label, servers: {} };
    for (const s of servers) {
      const isMock = s.key.startsWith('mock');
      throughput[ep.key].servers[s.key] = {
        label: s.label,
        ...medianRun(byServer[s.key]),
        steal: stealSummary(byServer[s.key]),
        ...(isMock ? { ratio: { bare: ratio(s.key, 'bare'), prism: ratio(s.key, 'prism'), prismQuiet: ratio(s.key, 'prismQuiet'), ...(s.key === 'mock' && baseline ? { baseline: ratio('mock', 'mockBaseline') } : {}) } } : {}),
        ...(isMock ? { bareRatioPerRound: perRoundRatios(byServer, s.key, 'bare') } : {}),
      };
    }
    if (baseline) {
      // Each figure for both builds (median over rounds) and the median of the per-round ratios.
      throughput[ep.key].sideBySide = Object.fromEntries(
        SIDE_BY_SIDE_FIGURES.map(([figure]) => {
          const perRound = perRoundRatios(byServer, 'mock', 'mockBaseline', (r) => r[figure]);
          return [figure, { mock: throughput[ep.key].servers.mock[figure], baseline: throughput[ep.key].servers.mockBaseline[figure], ratio: median(perRound), perRound }];
        }),
      );
    }
  }
  return {
    throughput,
    memory: Object.fromEntries(servers.map((s) => [s.key, { label: s.label, afterStartMiB: rssAfterStart[s.key], afterLoadMiB: rssAfterLoad[s.key] }])),
  };
}
