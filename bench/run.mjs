/**
 * `npm run bench [-- --with-prism] [--instructions] [--rounds N] [--duration S] [--only cold,main,scale,upload,proxy,spec] [--baseline REF]`
 *
 * Measures the mock as users run it (the CLI in a child process, file-backed store, logging at the
 * default level) against a bare node:http server answering the same bytes (the ceiling), with
 * --with-prism Stoplight Prism 5.14 mocking the same openapi.json, and with --baseline REF the
 * build of another commit, run in the same rounds as the working tree's. Everything listens on
 * 127.0.0.1; every phase is bounded in time, and every server it started is stopped when it ends,
 * failed or not. BENCHMARKS.md says what each phase measures and how to read the table.
 *
 * This file only wires a run together: the phases are bench/phases/*.mjs, each resolving with its
 * own results; the table and the targets are bench/report.mjs, which reprints a saved run too.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASELINE_PHASES, parseOptions, UsageError, USAGE } from './options.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

let options;
let baselineCommit = null;
try {
  options = parseOptions(process.argv.slice(2), { defaultOut: join(ROOT, 'bench', 'results.json') });
  if (!options.help && options.instructions) {
    const missing = (await import('./lib/instructions.mjs')).callgrindMissing();
    if (missing) throw new UsageError(missing);
  }
  if (!options.help && options.baseline) baselineCommit = (await import('./lib/baseline.mjs')).resolveBaseline(ROOT, options.baseline);
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`bench: ${e.message}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

// Loaded only once the arguments hold: the phases read the working tree's build (dist/).
const [{ cpuTimes, stealBetween, createMeasured, STEAL_LIMITS }, { createServers, installPrism }, { killAll, stopAll }, { table, targets }, baselineLib] = await Promise.all([
  import('./lib/steal.mjs'),
  import('./lib/servers.mjs'),
  import('./lib/processes.mjs'),
  import('./report.mjs'),
  import('./lib/baseline.mjs'),
]);

const work = mkdtempSync(join(tmpdir(), 'cbm-bench-'));
let baseline = null;
// Stopped from outside (Ctrl-C, a CI timeout): no server outlives the benchmark, no data set or baseline worktree stays.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    killAll();
    baseline?.remove();
    rmSync(work, { recursive: true, force: true });
    process.stderr.write(`[bench] stopped by ${signal}: every server it started was killed, ${work} removed\n`);
    process.exit(130);
  });
}

const cpuAtStart = cpuTimes();
const results = {
  date: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    freeMemoryGiB: +(freemem() / 2 ** 30).toFixed(1),
    os: `${process.platform} ${release()}`,
    node: process.version,
    loadAverageBefore: loadavg().map((x) => +x.toFixed(2)),
  },
  settings: { rounds: options.rounds, durationSeconds: options.duration, connections: options.connections, coldStarts: options.coldStarts, withPrism: options.withPrism, instructions: options.instructions, phases: [...options.phases], baseline: options.baseline },
  builds: { workingTree: baselineLib.describeWorkingTree(ROOT) },
  steal: STEAL_LIMITS,
  /** Each phase: its duration, the load average before and after, the CPU stolen during it. */
  phases: {},
  /** Every load run that was run again because the host stole CPU during it. */
  stealReruns: [],
};

/** Runs one phase, keeping its duration, the load average before and after it and the CPU stolen during it. */
async function phase(name, run) {
  const loadBefore = loadavg();
  const cpuBefore = cpuTimes();
  const t0 = performance.now();
  try {
    return await run();
  } finally {
    const steal = stealBetween(cpuBefore, cpuTimes());
    results.phases[name] = {
      seconds: (performance.now() - t0) / 1000,
      loadAverageBefore: loadBefore.map((x) => +x.toFixed(2)),
      loadAverageAfter: loadavg().map((x) => +x.toFixed(2)),
      cpuStealSeconds: steal.seconds,
      cpuStealShare: steal.share,
    };
  }
}

async function main() {
  const servers = createServers({ root: ROOT, work });
  if (!existsSync(servers.workingCli)) throw new Error(`${servers.workingCli} is missing: run npm run build first (npm run bench does)`);
  if (baselineCommit) {
    baseline = baselineLib.prepareBaseline({ root: ROOT, work, ref: options.baseline, commit: baselineCommit, log });
    results.builds.baseline = { ref: baseline.ref, commit: baseline.commit, nodeModules: baseline.nodeModules, phases: BASELINE_PHASES.filter((p) => options.phases.has(p)) };
  }
  const prism = options.withPrism ? installPrism(log) : null;
  const ctx = {
    root: ROOT,
    work,
    log,
    settings: { ...options, warmup: Math.min(1, options.duration) },
    measured: createMeasured(results.stealReruns, log),
    servers,
    prism,
    prismDoc: prism ? servers.prismDocument() : null,
    baseline: null,
  };
  const has = (p) => options.phases.has(p);
  /** The baseline build runs beside the working tree's in the phases that compare builds. */
  const withBaseline = (p) => ({ ...ctx, baseline: BASELINE_PHASES.includes(p) ? baseline : null });
  log(`machine: ${results.machine.cores} × ${results.machine.cpu}, load average ${results.machine.loadAverageBefore.join(' ')}; work in ${work}`);
  // The targets want a quiet machine; say so up front rather than after minutes of noise.
  if (results.machine.loadAverageBefore[0] > results.machine.cores / 2) log(`the load average (${results.machine.loadAverageBefore[0]}) is over half the ${results.machine.cores} cores: other work shares the machine, and its figures will say more about that work than about the mock`);
  if (has('cold')) results.coldStart = await phase('cold', async () => (await import('./phases/cold.mjs')).coldPhase(withBaseline('cold')));
  if (has('main')) Object.assign(results, await phase('main', async () => (await import('./phases/main.mjs')).mainPhase(withBaseline('main'))));
  if (has('scale:files') || has('scale:secrets') || has('scale:log')) {
    const { SCALE_SESSION, writeDatasets } = await import('./lib/datasets.mjs');
    const sets = has('scale:files') || has('scale:secrets') ? (log('scale: writing data sets'), writeDatasets(work)) : null;
    results.scale = { session: SCALE_SESSION };
    if (has('scale:files')) results.scale.listSessionFiles = await phase('scale:files', async () => (await import('./phases/scale-files.mjs')).scaleFilesPhase(ctx, sets));
    if (has('scale:secrets')) results.scale.storeSecret = await phase('scale:secrets', async () => (await import('./phases/scale-secrets.mjs')).scaleSecretsPhase(ctx, sets));
    if (has('scale:log')) results.scale.log = await phase('scale:log', async () => (await import('./phases/scale-log.mjs')).scaleLogPhase(ctx));
  }
  if (has('upload')) results.upload = await phase('upload', async () => (await import('./phases/upload.mjs')).uploadPhase(ctx));
  if (has('proxy')) results.proxy = await phase('proxy', async () => (await import('./phases/proxy.mjs')).proxyPhase(ctx));
  if (has('spec')) results.spec = await phase('spec', async () => (await import('./phases/spec.mjs')).specPhase(ctx));
  results.machine.loadAverageAfter = loadavg().map((x) => +x.toFixed(2));
  // On a virtual machine, time the host gave to its other guests is time none of the servers had.
  const steal = stealBetween(cpuAtStart, cpuTimes());
  results.machine.cpuStealSeconds = +steal.seconds.toFixed(1);
  results.machine.cpuStealShare = steal.share;
  results.targets = targets(results);
  process.stdout.write(`\n${table(results)}\n`);
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${options.out} (reprint it with: node bench/report.mjs ${options.out})`);
}

// Every server started is stopped however main ends: a failed phase leaves none running.
main()
  .finally(stopAll)
  .finally(() => baseline?.remove())
  .then(
    () => rmSync(work, { recursive: true, force: true }),
    (e) => {
      // The stack and what was measured so far go with the logs, not to the terminal.
      writeFileSync(join(work, 'failure.txt'), `${e?.stack ?? e}\n`);
      writeFileSync(join(work, 'results.partial.json'), `${JSON.stringify(results, null, 2)}\n`);
      process.stderr.write(`[bench] failed: ${e?.message ?? e}\n[bench] logs, data, the stack (failure.txt) and the figures so far (results.partial.json) kept in ${work}\n`);
      process.exitCode = 1;
    },
  );
