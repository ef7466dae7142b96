/**
 * The benchmark's report: `targets(results)` (each target the phases run can settle, met or
 * missed) and `table(results)` (the text printed at the end of a run). Both are pure functions of
 * the results a run writes, so a saved run can be printed again — with the targets of today's
 * report — without measuring anything: `node bench/report.mjs bench/results.json`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '–');
const times = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '');
const percent = (share) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : '–');
const stealSummary = (runs) => ({ rerun: runs.filter((r) => r.steal?.runs > 1).length, stillStolen: runs.filter((r) => r.steal?.stillStolen).length });
const stealNote = (s) => (s && (s.rerun || s.stillStolen) ? `  (re-run for steal: ${s.rerun}${s.stillStolen ? `, ${s.stillStolen} still stolen` : ''})` : '');
const longestPause = (list) => (list.length ? Math.max(...list.map((c) => c.pauseMs)) : NaN);

/** The run's settings; a results file written before `coldStarts` was recorded counts its starts. */
function settingsOf(results) {
  const s = results.settings ?? {};
  return { rounds: s.rounds, durationSeconds: s.durationSeconds, connections: s.connections, coldStarts: s.coldStarts ?? results.coldStart?.mock.runsMs.length ?? results.spec?.coldStart.runs.length };
}

/** Within 5% of the baseline: the working tree's throughput at least 0.95× the baseline build's. */
export const WITHIN_OF_BASELINE = 0.95;

export function targets(results) {
  const t = [];
  const { connections, rounds } = settingsOf(results);
  const list = results.throughput?.listSessionFiles?.servers;
  const add = (name, value, ok) => t.push({ name, value, met: ok });
  if (list) {
    const m = list.mock;
    const perRound = m.bareRatioPerRound ? ` (rounds ${m.bareRatioPerRound.map((x) => x.toFixed(3)).join(', ')})` : '';
    add(`listSessionFiles ≥ 0.20× bare node (median of ${rounds} rounds' ratios)`, `${fmt(m.ratio.bare, 3)}× of bare${perRound}`, m.ratio.bare >= 0.2);
    if (list.prism) add('listSessionFiles ≥ 3× Prism (defaults)', times(m.ratio.prism), m.ratio.prism >= 3);
    if (list.prismQuiet) add('listSessionFiles ≥ 1.5× Prism (-v error)', times(m.ratio.prismQuiet), m.ratio.prismQuiet >= 1.5);
    add(`listSessionFiles p99 ≤ 25 ms at ${connections} connections`, `${fmt(m.p99, 1)} ms`, m.p99 <= 25);
  }
  if (results.coldStart) {
    const base = results.coldStart.mockBaseline;
    const beside = base ? ` (the baseline ${fmt(base.medianMs)} ms; per-start ratio ${times(results.coldStart.ratioToBaseline.healthMs)})` : '';
    add('cold start ≤ 400 ms', `${fmt(results.coldStart.mock.medianMs)} ms${beside}`, results.coldStart.mock.medianMs <= 400);
    add('start → first listSessionFiles 200 ≤ 600 ms', `${fmt(results.coldStart.mock.firstListSessionFilesMs)} ms`, results.coldStart.mock.firstListSessionFilesMs <= 600);
    add('idle RSS ≤ 90 MB', `${fmt(results.coldStart.mock.idleRssMiB * 1.048576, 1)} MB`, results.coldStart.mock.idleRssMiB * 1.048576 <= 90);
  }
  for (const [key, ep] of Object.entries(results.throughput ?? {})) {
    const side = ep.sideBySide?.rps;
    if (!side) continue;
    const value = `${times(side.ratio)} of the baseline's (rounds ${side.perRound.map((x) => x.toFixed(3)).join(', ')})`;
    // The listing's target is against bare node (above); against the baseline it is reported.
    if (key === 'listSessionFiles') add(`${ep.label} against the baseline (median of ${rounds} rounds' ratios; to report, no target)`, value, null);
    else add(`${ep.label} within 5% of the baseline (median of ${rounds} rounds' ratios ≥ ${WITHIN_OF_BASELINE}×)`, value, side.ratio >= WITHIN_OF_BASELINE);
  }
  if (results.upload) add('100 MiB upload raises peak RSS ≤ 32 MiB', `${fmt(results.upload.peakGrowthMiB, 1)} MiB`, results.upload.ok && results.upload.peakGrowthMiB <= 32);
  const big = results.scale?.listSessionFiles?.find((s) => s.key === '100k');
  if (big) add('listSessionFiles p50 ≤ 10 ms at 100k files (1 connection)', `${fmt(big.at1.p50, 2)} ms`, big.at1.p50 <= 10);
  const store = results.throughput?.storeSecret?.servers.mock;
  if (store?.ratio.prismQuiet !== undefined) add('storeSecret ≥ 1.5× Prism (-v error)', times(store.ratio.prismQuiet), store.ratio.prismQuiet >= 1.5);
  const writes = results.scale?.storeSecret ?? [];
  const durable = (s) => (s.durable ? '' : ` — NOT every acknowledged write on disk (${fmt(s.acknowledged)} acknowledged, ${fmt(s.onDisk)} on disk)`);
  const sec = writes.find((s) => s.key === '100k/100ws');
  if (sec) add('storeSecret ≥ 1,000 acknowledged writes/s, 100k records over 100 workspaces', `${fmt(sec.acknowledgedPerSecond)} /s${durable(sec)}`, sec.acknowledgedPerSecond >= 1000 && sec.durable);
  const one = writes.find((s) => s.key === '100k/1ws');
  if (one) add('storeSecret ≥ 1,000 acknowledged writes/s, 100k records in one workspace', `${fmt(one.acknowledgedPerSecond)} /s${durable(one)}`, one.acknowledgedPerSecond >= 1000 && one.durable);
  const spread = writes.find((s) => s.key === '10k/100ws');
  if (one && spread) {
    add(
      'storeSecret with 100k records in one workspace within 2× of 10k records over 100 workspaces',
      `${fmt(one.acknowledgedPerSecond)} vs ${fmt(spread.acknowledgedPerSecond)} /s: ${ratio(one.acknowledgedPerSecond, spread.acknowledgedPerSecond)} (at least 0.50×)`,
      one.acknowledgedPerSecond * 2 >= spread.acknowledgedPerSecond,
    );
  }
  const checked = [...writes, ...(results.scale?.log ? [results.scale.log.storeSecret] : [])];
  if (checked.length) {
    const lost = checked.filter((s) => !s.durable);
    add('every acknowledged write found on disk after each storeSecret run', lost.length ? `missing after ${lost.map((s) => s.label).join('; ')}` : `${checked.length} of ${checked.length} runs`, !lost.length);
  }
  const logged = results.scale?.log;
  if (logged) {
    add(
      `first request of a workspace whose log holds ${fmt(logged.changes)} changes ≤ 1 s`,
      `${fmt(logged.medianFirstRequestMs)} ms once /health answers (spawn → 200: ${fmt(logged.medianSpawnToFirstMs)} ms)`,
      logged.medianFirstRequestMs <= 1000,
    );
  }
  const spec = results.spec;
  if (spec) {
    const gen = spec.sessionStart;
    if (gen.ratioPrismDynamic !== undefined) add('--spec: generated session_start answer ≥ 1.5× Prism -d (-v error), distinct bodies', times(gen.ratioPrismDynamic), gen.ratioPrismDynamic >= 1.5);
    for (const ep of Object.values(spec.builtIn)) {
      // Pairs sharing one CPU (since stop 43): each pair's ratio, and the control pairs' (two plain mocks).
      const pairs = ep.pairRatios ? ` (median of ${ep.pairRatios.reduce((n, p) => n + p.runs.length, 0)} runs in ${ep.pairRatios.length} pairs on one CPU: ${ep.pairRatios.map((p) => p.ratio.toFixed(3)).join(', ')}; two plain mocks the same way: ${times(ep.control.ratio)})` : '';
      add(`--spec: ${ep.label} within 5% of the run without --spec`, `${pairs ? `${ep.ratioWithoutSpec.toFixed(3)}×` : times(ep.ratioWithoutSpec)} of it${pairs}`, ep.ratioWithoutSpec >= 0.95);
    }
    if (spec.builtInMethod?.skipped) add('--spec: the built-in endpoints within 5% of the run without --spec', `not measured: ${spec.builtInMethod.skipped}`, null);
    for (const ep of Object.values(spec.instructions?.endpoints ?? {})) {
      add(`--spec: ${ep.label}, instructions per request (callgrind) within 5% of the server without --spec`, `${ep.ratio.toFixed(3)}× (${fmt(ep.withSpec)} against ${fmt(ep.withoutSpec)})`, ep.ratio <= 1.05);
    }
    add(`--spec: cold start with the ${spec.operations}-operation document, spawn → first generated answer ≤ 1 s`, `${fmt(spec.coldStart.medianFirstAnswerMs)} ms`, spec.coldStart.medianFirstAnswerMs <= 1000);
  }
  const compacted = [...writes, ...(logged ? [logged.storeSecret] : [])].flatMap((s) => s.compactions);
  if (logged || compacted.length) add("compaction's longest write pause (to report, no target)", compacted.length ? `${fmt(longestPause(compacted), 1)} ms over ${compacted.length} compactions` : 'no compaction reported', null);
  return t;
}

export function table(results) {
  const lines = [];
  const { rounds, durationSeconds, connections, coldStarts } = settingsOf(results);
  const steal = results.steal ?? {};
  // No trailing blanks: a row's empty last cells would otherwise pad it out.
  const row = (cells, widths) => cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  if (results.throughput) {
    const w = [30, 28, 9, 8, 8, 8, 10, 10, 12];
    lines.push(`Throughput and latency: ${connections} connections, ${durationSeconds} s per run, median of ${rounds} alternating rounds (ratios: median of the per-round ratios)`);
    lines.push(row(['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'bytes', 'mock/bare', 'mock/Prism', 'mock/Prism-q'], w));
    for (const ep of Object.values(results.throughput)) {
      const s = ep.servers;
      for (const [key, r] of Object.entries(s)) {
        const isMock = key.startsWith('mock');
        lines.push(
          row(
            [
              key === 'mock' ? ep.label : '',
              r.label,
              fmt(r.rps),
              fmt(r.p50, 2),
              fmt(r.p99, 2),
              fmt(r.bytesPerResponse),
              isMock ? times(r.ratio.bare) : '',
              isMock ? times(r.ratio.prism) : '',
              isMock ? times(r.ratio.prismQuiet) : '',
            ],
            w,
          ) + (r.errors ? `  (${r.errors} errors/non-2xx)` : '') + stealNote(r.steal),
        );
      }
    }
    lines.push('');
  }
  const sideBySide = Object.values(results.throughput ?? {}).filter((ep) => ep.sideBySide);
  if (sideBySide.length || results.coldStart?.mockBaseline) {
    const b = results.builds?.baseline;
    const base = b ? `the baseline ${b.ref === b.commit ? b.commit.slice(0, 12) : `${b.ref} (${b.commit.slice(0, 12)})`}` : 'the baseline';
    const tree = results.builds?.workingTree;
    const treeLabel = tree?.commit ? `${tree.commit.slice(0, 12)}${tree.uncommittedChanges ? ' + uncommitted changes' : ''}` : 'working tree';
    lines.push(`Side by side: the working tree (${treeLabel}) against ${base}; ratio = working tree / baseline, the median of the per-round ratios`);
    const w = [30, 10, 12, 12, 10, 40];
    lines.push(row(['figure', '', 'working tree', 'baseline', 'ratio', 'per-round ratios'], w));
    for (const ep of sideBySide) {
      Object.entries(ep.sideBySide).forEach(([figure, f], i) => {
        const digits = figure === 'rps' ? 0 : 2;
        const name = { rps: 'req/s', p50: 'p50 ms', p99: 'p99 ms' }[figure] ?? figure;
        lines.push(row([i ? '' : ep.label, name, fmt(f.mock, digits), fmt(f.baseline, digits), times(f.ratio), f.perRound.map((x) => x.toFixed(3)).join(', ')], w));
      });
    }
    const c = results.coldStart;
    if (c?.mockBaseline) {
      const r = c.ratioToBaseline;
      lines.push(row(['cold start (per start)', '/health ms', fmt(c.mock.medianMs), fmt(c.mockBaseline.medianMs), times(r.healthMs), ''], w));
      lines.push(row(['', '1st list ms', fmt(c.mock.firstListSessionFilesMs), fmt(c.mockBaseline.firstListSessionFilesMs), times(r.firstListSessionFilesMs), ''], w));
      lines.push(row(['', 'idle RSS MiB', fmt(c.mock.idleRssMiB, 1), fmt(c.mockBaseline.idleRssMiB, 1), times(r.idleRssMiB), ''], w));
    }
    lines.push('');
  }
  if (results.coldStart) {
    const c = results.coldStart;
    lines.push(`Cold start (spawn → first 200 on /health, median of ${coldStarts}) and idle RSS`);
    lines.push(`  mock   ${fmt(c.mock.medianMs)} ms  (runs ${c.mock.runsMs.join(', ')})  RSS ${fmt(c.mock.idleRssMiB, 1)} MiB`);
    if (c.mockBaseline) lines.push(`  ${c.mockBaseline.label}   ${fmt(c.mockBaseline.medianMs)} ms  (runs ${c.mockBaseline.runsMs.join(', ')})  RSS ${fmt(c.mockBaseline.idleRssMiB, 1)} MiB`);
    if (c.prism) lines.push(`  Prism  ${fmt(c.prism.medianMs)} ms  (runs ${c.prism.runsMs.join(', ')})  RSS ${fmt(c.prism.idleRssMiB, 1)} MiB   mock/Prism ${ratio(c.mock.medianMs, c.prism.medianMs)}`);
    lines.push('');
  }
  if (results.memory) {
    lines.push('RSS (MiB) after start / after the throughput runs');
    for (const m of Object.values(results.memory)) lines.push(`  ${m.label.padEnd(30)} ${fmt(m.afterStartMiB, 1).padStart(6)} / ${fmt(m.afterLoadMiB, 1).padStart(6)}`);
    lines.push('');
  }
  if (results.scale?.listSessionFiles) {
    lines.push(`Scale: listSessionFiles (limit=100) on ${results.scale.session ?? 'sess_scale'}`);
    const w = [52, 8, 10, 10, 9, 10, 10, 9];
    lines.push(row(['data', 'total', '1c p50', '1c p99', `${connections}c req/s`, `${connections}c p50`, `${connections}c p99`, 'RSS MiB'], w));
    for (const s of results.scale.listSessionFiles) {
      lines.push(row([s.label, fmt(s.total), fmt(s.at1.p50, 2), fmt(s.at1.p99, 2), fmt(s.atN.rps), fmt(s.atN.p50, 2), fmt(s.atN.p99, 2), fmt(s.rssMiB, 1)], w) + stealNote(s.steal));
    }
    lines.push('');
  }
  const writeRows = [...(results.scale?.storeSecret ?? []), ...(results.scale?.log ? [results.scale.log.storeSecret] : [])];
  if (writeRows.length) {
    lines.push(`Scale: storeSecret (distinct names, ${connections} connections, round-robin over the workspaces; on disk: read back through the store)`);
    const w2 = [40, 16, 8, 8, 9, 20, 14, 9];
    lines.push(row(['records already stored', 'acked writes/s', 'p50 ms', 'p99 ms', 'max ms', 'acked / on disk', 'compactions', 'RSS MiB'], w2));
    for (const s of writeRows) {
      const compacted = s.compactions.length ? `${s.compactions.length} (≤ ${fmt(s.longestPauseMs, 1)} ms)` : '0';
      lines.push(
        row([s.label, fmt(s.acknowledgedPerSecond), fmt(s.p50, 2), fmt(s.p99, 2), fmt(s.maxMs, 1), `${fmt(s.acknowledged)} / ${fmt(s.onDisk)}${s.durable ? '' : ' LOST'}`, compacted, fmt(s.rssMiB, 1)], w2) +
          stealNote(stealSummary([s])),
      );
    }
    lines.push('  compactions: how many the log reported during the run (`workspace compacted`), and the longest pause of writes among them');
    lines.push('');
  }
  if (results.scale?.log) {
    const l = results.scale.log;
    const r = l.storeSecret;
    lines.push(`Scale: a workspace whose log holds ${fmt(l.changes)} changes (${fmt(l.changes / l.changesPerSave)} appends of ${fmt(l.changesPerSave)}, made in-process with compaction held off), median of ${l.starts.length} starts`);
    lines.push(`  files: ${Object.entries(l.files).map(([f, n]) => `${f} ${fmt(n)} B`).join(', ')}`);
    lines.push(`  spawn → /health ${fmt(l.medianHealthMs)} ms; first listSecrets (all ${fmt(l.changes)}) ${fmt(l.medianFirstRequestMs)} ms once /health answers, spawn → its 200 ${fmt(l.medianSpawnToFirstMs)} ms; the next listSecrets ${fmt(l.medianSecondRequestMs)} ms`);
    lines.push(`  runs: first request ${l.starts.map((s) => Math.round(s.firstRequestMs)).join(', ')} ms; spawn → 200 ${l.starts.map((s) => Math.round(s.spawnToFirstMs)).join(', ')} ms`);
    lines.push(`  the read alone — first request listMailboxes, whose answer holds none of them: ${fmt(l.medianFirstListMailboxesMs)} ms (runs ${l.firstListMailboxesMs.map(Math.round).join(', ')})`);
    const startCompactions = l.starts.flatMap((s) => s.compactions);
    if (startCompactions.length) lines.push(`  compacted during the starts' first requests: ${startCompactions.length} times, longest write pause ${fmt(longestPause(startCompactions), 1)} ms`);
    const pauses = r.compactions;
    lines.push(
      pauses.length
        ? `  storeSecret on it: ${pauses.length} compaction${pauses.length === 1 ? '' : 's'}, longest write pause ${fmt(r.longestPauseMs, 1)} ms (${pauses.map((c) => `pause ${fmt(c.pauseMs, 1)} ms of ${fmt(c.durationMs)} ms, ${fmt(c.records)} records, log ${fmt(c.logBytes)} B`).join('; ')}); slowest answer of the run ${fmt(r.maxMsAllRuns, 1)} ms`
        : `  storeSecret on it: no compaction reported within ${(l.compactionWaitMs ?? 30_000) / 1000} s of the run's end; slowest answer ${fmt(r.maxMsAllRuns, 1)} ms`,
    );
    lines.push('');
  }
  if (results.upload) {
    const u = results.upload;
    lines.push(`Upload of 100 MiB: ${u.status} in ${fmt(u.ms)} ms (${fmt(u.mibPerSecond)} MiB/s), checksum ${u.ok ? 'matches' : 'WRONG'}; RSS ${fmt(u.rssBeforeMiB, 1)} → peak ${fmt(u.peakRssMiB, 1)} MiB (+${fmt(u.peakGrowthMiB, 1)} MiB)`);
    lines.push('');
  }
  if (results.proxy) {
    const p = results.proxy;
    lines.push(`Proxy (--upstream, the mock as upstream): listSessionFiles limit=100, median of ${rounds} alternating rounds`);
    lines.push(`  1 connection      direct p50 ${fmt(p.direct.at1.p50, 2)} ms  p99 ${fmt(p.direct.at1.p99, 2)} ms   proxied p50 ${fmt(p.proxied.at1.p50, 2)} ms  p99 ${fmt(p.proxied.at1.p99, 2)} ms   added p50 ${fmt(p.addedP50Ms, 2)} ms, p99 ${fmt(p.addedP99Ms, 2)} ms`);
    lines.push(`  ${String(connections).padEnd(2)} connections    direct ${fmt(p.direct.atN.rps)} req/s   proxied ${fmt(p.proxied.atN.rps)} req/s   proxied/direct ${times(p.throughputRatio)}   proxy RSS ${fmt(p.proxyRssMiB, 1)} MiB${stealNote(p.steal)}`);
    lines.push('');
  }
  if (results.spec) {
    const sp = results.spec;
    lines.push(`Whole document (--spec ${sp.document}, ${sp.operations} operations): ${connections} connections, ${durationSeconds} s per run, median of ${rounds} alternating rounds`);
    const w = [30, 28, 9, 8, 8, 8, 12];
    lines.push(row(['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'bytes', 'ratio'], w));
    for (const [key, r] of Object.entries(sp.sessionStart.servers)) {
      lines.push(row([key === 'mockSpec' ? 'session_start (distinct bodies)' : '', r.label, fmt(r.rps), fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.bytesPerResponse), key === 'mockSpec' ? `${times(sp.sessionStart.ratioPrismDynamic)} Prism` : ''], w) + (r.errors ? `  (${r.errors} errors/non-2xx)` : '') + stealNote(r.steal));
    }
    for (const ep of Object.values(sp.builtIn)) {
      for (const [key, r] of Object.entries(ep.servers)) {
        lines.push(row([key === 'mockSpec' ? ep.label : '', r.label, fmt(r.rps), fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.bytesPerResponse), key === 'mockSpec' ? `${times(ep.ratioWithoutSpec)} w/o` : ''], w) + (r.errors ? `  (${r.errors} errors/non-2xx)` : '') + stealNote(r.steal));
      }
    }
    const bm = sp.builtInMethod;
    if (bm?.skipped) lines.push(`  the built-in endpoints with and without --spec: not measured (${bm.skipped})`);
    else if (bm) {
      lines.push(`  the built-in endpoints: ${bm.pairs} pairs of fresh servers pinned to CPU ${bm.serverCpu}, loaded at once from CPU ${bm.loadCpus} (${bm.connectionsPerServer} connections each), ${bm.runsPerPair} runs of ${bm.runSeconds} s per pair; req/s above are one server's share of that CPU; the ratio is the median of every run's (each pair's the median of its own)`);
      for (const ep of Object.values(sp.builtIn)) lines.push(`    ${ep.label.split(' ')[0]}: pairs ${ep.pairRatios.map((p) => `${p.ratio.toFixed(3)} (${p.order})`).join(', ')}; control (two plain mocks) ${ep.control.pairRatios.map((p) => p.ratio.toFixed(3)).join(', ')}`);
    }
    if (sp.builtInProcesses) lines.push(`  the built-in endpoints: ${sp.builtInProcesses} processes of each kind, started A B B A A B, ${sp.builtInRunSeconds} s runs; each round's ratio is the kinds' mean throughputs'; rounds ${Object.values(sp.builtIn).map((ep) => `${ep.label.split(' ')[0]} ${ep.roundRatios.map((x) => x.toFixed(2)).join(', ')}`).join('; ')}`);
    if (sp.instructions) lines.push(`  instructions per request (callgrind, ${fmt(sp.instructions.count)} counted after ${fmt(sp.instructions.warm)} to warm): ${Object.values(sp.instructions.endpoints).map((ep) => `${ep.label.split(' ')[0]} ${fmt(ep.withSpec)} with --spec, ${fmt(ep.withoutSpec)} without (${ep.ratio.toFixed(3)}×)`).join('; ')}`);
    const c = sp.coldStart;
    lines.push(`  cold start with --spec: spawn → /health ${fmt(c.medianHealthMs)} ms, → first generated session_start answer ${fmt(c.medianFirstAnswerMs)} ms (runs ${c.runs.map((x) => x.firstAnswerMs).join(', ')})${c.prismDynamicMedianFirstAnswerMs !== undefined ? `; Prism -d ${fmt(c.prismDynamicMedianFirstAnswerMs)} ms (runs ${c.prismRunsMs.join(', ')})` : ''}`);
    lines.push('');
  }
  const m = results.machine;
  lines.push(`Load average ${m.loadAverageBefore.join(' ')} before, ${m.loadAverageAfter.join(' ')} after; CPU stolen by the host during the run: ${m.cpuStealSeconds} s (${percent(m.cpuStealShare)} of the machine's CPU time)`);
  for (const [name, p] of Object.entries(results.phases)) {
    lines.push(`  ${name.padEnd(14)} ${fmt(p.seconds).padStart(5)} s   load average ${p.loadAverageBefore[0].toFixed(2)} → ${p.loadAverageAfter[0].toFixed(2)}   stolen ${p.cpuStealSeconds} s (${percent(p.cpuStealShare)})`);
  }
  const reruns = results.stealReruns;
  lines.push(
    reruns.length
      ? `Re-run because the host stole CPU during them (over ${steal.rerunWhenOverSeconds} s or ${percent(steal.rerunWhenOverShare)} of the run's CPU time; at most ${steal.rerunsAtMost} re-runs): ${reruns.length} run${reruns.length === 1 ? '' : 's'}, of which ${reruns.filter((r) => r.stillStolen).length} still stolen every time (the figures kept are those with the least steal): ${reruns.map((r) => `${r.what} [${r.runs.map((x) => `${x.stealSeconds} s`).join(', ')}]`).join('; ')}`
      : `No run was re-run: the host stole no more than ${steal.rerunWhenOverSeconds} s or ${percent(steal.rerunWhenOverShare)} of any run's CPU time.`,
  );
  lines.push('');
  lines.push('Targets');
  for (const t of targets(results)) lines.push(`  ${t.met === null ? '–     ' : t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value}`);
  return lines.join('\n');
}

// Printed by itself: `node bench/report.mjs FILE` reprints a saved run.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    process.stderr.write('usage: node bench/report.mjs RESULTS.json   (a file `npm run bench` wrote, bench/results.json by default)\n');
    process.exit(2);
  }
  let results;
  try {
    results = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    process.stderr.write(`report: cannot read ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}\n`);
    process.exit(2);
  }
  process.stdout.write(`${table(results)}\n`);
}
