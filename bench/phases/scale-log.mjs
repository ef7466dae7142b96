/**
 * A workspace whose log holds 100k changes: the time to serve its first request after a start
 * (spawn → first 200 of listSecrets, and that request alone once /health answers; a second
 * listSecrets shows what the listing itself costs once read), then storeSecret on it, during which
 * the log, far larger than the snapshot, is compacted: the longest pause compaction reports and
 * the slowest answer of the run.
 */
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { auth } from '../lib/endpoints.mjs';
import { median } from '../lib/load.mjs';
import { get } from '../lib/processes.mjs';
import { flushDisk, settle } from '../lib/servers.mjs';
import { writeLoggedDataDir } from '../lib/store-access.mjs';
import { compactions, longestPause, measuredStoreRun } from '../lib/store-runs.mjs';

/** The workspace of the log data set: 100k secrets added in groups of LOG_GROUP, one save() each. */
const LOG_CHANGES = 100_000;
const LOG_GROUP = 500;
const LOG_TOKEN = 'sk_bench_log_100k';
/** The CLI on that data directory: the scenario and seed it was made with. */
const LOG_CLI_ARGS = ['--seed', '0', '--log-level', 'debug'];
/** How long to wait, after the load, for a compaction that started during it to say so. */
const COMPACTION_WAIT_MS = 30_000;

/** Every file under a `workspaces` folder of a data directory, with its size (what the log set is made of). */
function workspaceFiles(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (relative(dir, path).split('/').includes('workspaces')) out[relative(dir, path)] = statSync(path).size;
    }
  };
  walk(dir);
  return out;
}

/** The first 200 of a GET, past 503s while the validation stack loads after listen (for a minute at most). */
async function firstOk(url, headers) {
  const until = performance.now() + 60_000;
  for (;;) {
    const r = await get(url, headers);
    if (r.status === 200) return r;
    if (r.status !== 503 || performance.now() > until) throw new Error(`GET ${url} answered ${r.status}: ${String(r.body).slice(0, 200)}`);
  }
}

const fmt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');

export async function scaleLogPhase(ctx) {
  const { coldStarts } = ctx.settings;
  const built = join(ctx.work, 'log-100k');
  ctx.log(`scale: a workspace whose log holds ${LOG_CHANGES.toLocaleString('en-US')} changes (in groups of ${LOG_GROUP}, compaction held off)`);
  const buildMs = await writeLoggedDataDir(ctx.root, built, { changes: LOG_CHANGES, group: LOG_GROUP, token: LOG_TOKEN, log: ctx.log });
  const files = workspaceFiles(built);
  ctx.log(`  made in ${Math.round(buildMs)} ms: ${Object.entries(files).map(([f, n]) => `${f} ${fmt(n)} bytes`).join(', ')}`);
  const listUrl = (m) => `${m.url}/secrets`;
  /** One start on a fresh copy (a start may compact the log, which the next must find whole): `first` is the first request. */
  const startOnCopy = async (i, first) => {
    const dataDir = join(ctx.work, `log-100k-start-${i}`);
    cpSync(built, dataDir, { recursive: true });
    const m = await ctx.servers.startMock({ name: 'mock-log-start', dataDir, scenario: 'empty', extra: LOG_CLI_ARGS });
    try {
      const t0 = performance.now();
      const answer = await firstOk(`${m.url}${first}`, auth(LOG_TOKEN));
      return { m, answer, firstMs: performance.now() - t0, fromSpawnMs: performance.now() - m.startedAt };
    } finally {
      if (first !== '/secrets') await m.stop();
    }
  };
  const starts = [];
  for (let i = 0; i < coldStarts; i++) {
    const { m, answer, firstMs, fromSpawnMs } = await startOnCopy(i, '/secrets');
    const listed = JSON.parse(answer.body).items.length;
    if (listed !== LOG_CHANGES) throw new Error(`listSecrets listed ${listed} secrets of the workspace whose log holds ${LOG_CHANGES}`);
    const t1 = performance.now();
    await firstOk(listUrl(m), auth(LOG_TOKEN));
    const againMs = performance.now() - t1;
    starts.push({ healthMs: m.coldStartMs, firstRequestMs: firstMs, spawnToFirstMs: fromSpawnMs, secondRequestMs: againMs, compactions: compactions(m.logFile) });
    ctx.log(`  start ${i + 1}: /health ${Math.round(m.coldStartMs)} ms, first listSecrets ${Math.round(firstMs)} ms (spawn → 200 ${Math.round(fromSpawnMs)} ms), the next ${Math.round(againMs)} ms`);
    await m.stop();
  }
  // The read alone: a first request whose answer holds none of the 100k records (listMailboxes).
  const readAlone = [];
  for (let i = 0; i < coldStarts; i++) {
    const { firstMs } = await startOnCopy(coldStarts + i, '/mailboxes');
    readAlone.push(firstMs);
    ctx.log(`  start ${coldStarts + i + 1}: first request listMailboxes ${Math.round(firstMs)} ms`);
  }
  for (let i = 0; i < 2 * coldStarts; i++) rmSync(join(ctx.work, `log-100k-start-${i}`), { recursive: true, force: true });

  ctx.log(`scale: storeSecret on that workspace (${ctx.settings.connections} connections), compacting its log`);
  const dataDir = join(ctx.work, 'log-100k-load');
  cpSync(built, dataDir, { recursive: true });
  const m = await ctx.servers.startMock({ name: 'mock-log-load', dataDir, scenario: 'empty', extra: LOG_CLI_ARGS });
  // Read first, so that the writes measure appends and compaction, not the replay.
  await firstOk(listUrl(m), auth(LOG_TOKEN));
  const afterRead = compactions(m.logFile).length;
  flushDisk();
  const r = await measuredStoreRun(ctx, 'scale storeSecret on the 100k-change log', m, [LOG_TOKEN]);
  // A compaction that began during the load says so when done: wait for it, bounded.
  const waitUntil = performance.now() + COMPACTION_WAIT_MS;
  while (compactions(m.logFile).length <= afterRead && performance.now() < waitUntil) await settle(100);
  const compacted = compactions(m.logFile);
  const row = { key: 'log100k/1ws', label: '100k changes in the log, one workspace', ...r, compactions: compacted, longestPauseMs: longestPause(compacted), rssMiB: m.rss() };
  ctx.log(`  ${Math.round(r.acknowledgedPerSecond)} acknowledged writes/s, max ${r.maxMs.toFixed(1)} ms; ${r.acknowledged} acknowledged, ${r.onDisk} on disk; ${compacted.length} compactions, longest pause ${row.longestPauseMs.toFixed(1)} ms`);
  await m.stop();

  return {
    changes: LOG_CHANGES,
    changesPerSave: LOG_GROUP,
    compactionWaitMs: COMPACTION_WAIT_MS,
    buildMs,
    files,
    starts,
    medianHealthMs: median(starts.map((s) => s.healthMs)),
    medianFirstRequestMs: median(starts.map((s) => s.firstRequestMs)),
    medianSpawnToFirstMs: median(starts.map((s) => s.spawnToFirstMs)),
    medianSecondRequestMs: median(starts.map((s) => s.secondRequestMs)),
    firstListMailboxesMs: readAlone,
    medianFirstListMailboxesMs: median(readAlone),
    storeSecret: row,
  };
}
