/**
 * Cold start: spawn → first 200 on /health and → first listSessionFiles 200 (the validation stack
 * loads after listen), idle RSS 0.5 s later. The mock's starts alternate with the baseline
 * build's (when --baseline is given; which of the two goes first alternates too) and Prism's.
 */
import { median } from '../lib/load.mjs';
import { get } from '../lib/processes.mjs';
import { auth } from '../lib/endpoints.mjs';
import { settle } from '../lib/servers.mjs';

/** One start of a mock CLI: its figures. */
async function startOnce(ctx, cli, name) {
  const m = await ctx.servers.startMock({ name, cli });
  // The first service answer: the validation stack (eov, multer) loads after listen.
  for (;;) {
    const r = await get(`${m.url}/sessions/sess_demo/files`, auth());
    if (r.status === 200) break;
    if (r.status !== 503) throw new Error(`${name}: first listSessionFiles answered ${r.status}`);
  }
  const firstListMs = performance.now() - m.startedAt;
  await settle(500);
  const rss = m.rss();
  await m.stop();
  return { healthMs: m.coldStartMs, firstListMs, rss };
}

const summary = (starts) => ({
  medianMs: median(starts.map((s) => s.healthMs)),
  runsMs: starts.map((s) => Math.round(s.healthMs)),
  firstListSessionFilesMs: median(starts.map((s) => s.firstListMs)),
  firstListRunsMs: starts.map((s) => Math.round(s.firstListMs)),
  idleRssMiB: median(starts.map((s) => s.rss)),
});

export async function coldPhase(ctx) {
  const { coldStarts } = ctx.settings;
  const { prism, prismDoc, baseline } = ctx;
  ctx.log(`cold start: ${coldStarts} alternating starts of each server${baseline ? ` (the working tree's build and ${baseline.label})` : ''}`);
  const builds = [{ key: 'mock', cli: ctx.servers.workingCli, name: 'mock-cold', starts: [] }];
  if (baseline) builds.push({ key: 'mockBaseline', cli: baseline.cli, name: 'mock-baseline-cold', starts: [] });
  const prismRuns = [];
  const prismRss = [];
  for (let i = 0; i < coldStarts; i++) {
    for (const b of i % 2 ? [...builds].reverse() : builds) b.starts.push(await startOnce(ctx, b.cli, b.name));
    if (prism) {
      const p = await ctx.servers.startPrism(prism, prismDoc, { name: 'prism-cold' });
      prismRuns.push(p.coldStartMs);
      await settle(500);
      prismRss.push(p.rss());
      await p.stop();
    }
  }
  const [mock, base] = builds;
  const perStart = (f) => (base ? median(mock.starts.map((s, i) => f(s) / f(base.starts[i]))) : undefined);
  return {
    mock: summary(mock.starts),
    ...(base
      ? {
          mockBaseline: { ...summary(base.starts), label: baseline.label },
          // Each start of the working tree's build over the baseline's start beside it, then the median.
          ratioToBaseline: { healthMs: perStart((s) => s.healthMs), firstListSessionFilesMs: perStart((s) => s.firstListMs), idleRssMiB: perStart((s) => s.rss) },
        }
      : {}),
    ...(prism ? { prism: { medianMs: median(prismRuns), runsMs: prismRuns.map(Math.round), idleRssMiB: median(prismRss) } } : {}),
  };
}
