/**
 * storeSecret runs shared by the scale phases: distinct names round-robin over workspaces, the
 * durability check after each, and the `workspace compacted` lines of a mock's debug log.
 */
import { readFileSync } from 'node:fs';
import { load } from './load.mjs';
import { storedWritesByTag } from './store-access.mjs';

/** storeSecret with distinct names `BENCH_<tag>_<n>`, round-robin over `tokens`. */
export function storeSecrets(mock, tokens, tag, { connections, duration }) {
  let n = 0;
  return load({
    url: `${mock.url}/secrets`,
    connections,
    duration,
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
    setupRequest: (req) => {
      const i = n++;
      return {
        ...req,
        headers: { ...req.headers, Authorization: `Bearer ${tokens[i % tokens.length]}` },
        body: JSON.stringify({ name: `BENCH_${tag}_${i}`, value: 'bench-value-0123456789', namespace: 'function_env' }),
      };
    },
  });
}

/**
 * One measured storeSecret run (run again while the host steals CPU), then the durability check:
 * the data directory read back while the mock still runs must hold at least every acknowledged
 * write of every run made (the few extra are writes in flight when autocannon stopped).
 */
export async function measuredStoreRun(ctx, what, mock, tokens) {
  const { connections, duration } = ctx.settings;
  const r = await ctx.measured(what, async (attempt) => ({ ...(await storeSecrets(mock, tokens, `m${attempt}`, { connections, duration })), tag: `m${attempt}` }));
  const stored = await storedWritesByTag(ctx.root, mock.dataDir);
  const runs = r.attempts.map((a) => ({ tag: a.result.tag, acknowledged: a.result.ok, onDisk: stored.get(a.result.tag) ?? 0 }));
  return {
    acknowledgedPerSecond: r.rps,
    acknowledged: r.ok,
    onDisk: stored.get(r.tag) ?? 0,
    durable: runs.every((x) => x.onDisk >= x.acknowledged),
    p50: r.p50,
    p99: r.p99,
    maxMs: r.max,
    maxMsAllRuns: Math.max(...r.attempts.map((a) => a.result.max)),
    errors: r.errors + r.non2xx,
    steal: r.steal,
    runs,
  };
}

/** The `workspace compacted` lines (pino JSON, --log-level debug) a mock's log holds so far. */
export function compactions(logFile) {
  const out = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (entry.msg === 'workspace compacted') out.push({ pauseMs: entry.pause_ms, durationMs: entry.duration_ms, records: entry.records, logBytes: entry.log_bytes });
  }
  return out;
}

export const longestPause = (list) => (list.length ? Math.max(...list.map((c) => c.pauseMs)) : NaN);
