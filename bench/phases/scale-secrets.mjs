/**
 * storeSecret with 10k and 100k records already stored, over 100 workspaces and in one:
 * acknowledged writes/s, latency, the durability check and the compactions the log reported.
 */
import { workspaceTokens } from '../lib/datasets.mjs';
import { auth } from '../lib/endpoints.mjs';
import { get } from '../lib/processes.mjs';
import { flushDisk } from '../lib/servers.mjs';
import { compactions, longestPause, measuredStoreRun, storeSecrets } from '../lib/store-runs.mjs';

export async function scaleSecretsPhase(ctx, sets) {
  const { connections, warmup } = ctx.settings;
  const out = [];
  for (const set of sets.secrets) {
    ctx.log(`scale: storeSecret with ${set.label}`);
    // At debug level the log also says when a workspace's log was compacted, and how long writes waited.
    const mock = await ctx.servers.startMock({ name: `mock-${set.key.replace('/', '-')}`, scenario: set.file, extra: ['--log-level', 'debug'] });
    const tokens = workspaceTokens(set.workspaces);
    for (const t of tokens) {
      const r = await get(`${mock.url}/secrets/SEEDED_0?namespace=llm_provider`, auth(t));
      if (r.status !== 200) throw new Error(`getSecret answered ${r.status}: ${r.body}`);
    }
    flushDisk();
    await storeSecrets(mock, tokens, 'warm', { connections, duration: warmup });
    const r = await measuredStoreRun(ctx, `scale storeSecret ${set.key}`, mock, tokens);
    const compacted = compactions(mock.logFile);
    out.push({ key: set.key, label: set.label, ...r, compactions: compacted, longestPauseMs: longestPause(compacted), rssMiB: mock.rss() });
    ctx.log(`  ${Math.round(r.acknowledgedPerSecond)} acknowledged writes/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.maxMs.toFixed(1)} ms; ${r.acknowledged} acknowledged, ${r.onDisk} on disk; ${compacted.length} compactions`);
    await mock.stop();
  }
  return out;
}
