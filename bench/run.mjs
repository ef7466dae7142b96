/**
 * `npm run bench [-- --with-prism] [--rounds N] [--duration S] [--only cold,main,scale,upload,proxy,spec]`
 *
 * Measures the mock as users run it (the CLI in a child process, file-backed store, logging at the
 * default level) against a bare node:http server answering the same bytes (the ceiling) and,
 * with --with-prism, Stoplight Prism 5.14 mocking the same openapi.json. Everything listens on
 * 127.0.0.1; every phase is bounded in time, and every server it started is stopped when it ends,
 * failed or not. A load run during which the host stole CPU is run again (at most twice).
 * The `spec` phase serves the project's own 68-operation stand-in for the service's whole document
 * (`--spec`, issue 30) beside Prism's dynamic mode (`-d`) on the same document.
 * Prints one table and writes bench/results.json. BENCHMARKS.md says how to read it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem, release } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { SCALE_SESSION, workspaceTokens, writeDatasets } from './lib/datasets.mjs';
import { load, median, medianRun } from './lib/load.mjs';
import { freePort, get, killAll, peakRssMiB, resetPeak, rssMiB, send, startServer, stopAll } from './lib/processes.mjs';
import { uploadFile } from './lib/upload.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'bin', 'cli.js');
const PRISM_VERSION = '5.14';
const TOKEN = 'sk_test_demo';

/** The phases, in the order they run; `scale` is its three parts, which --only may also name alone. */
const PHASE_NAMES = ['cold', 'main', 'scale', 'scale:files', 'scale:secrets', 'scale:log', 'upload', 'proxy', 'spec'];
/** The whole-service test document (issue 30): written by the project, never copied from the service. */
const SPEC_DOC = join(ROOT, 'test', 'fixtures', 'whole-service', 'service.openapi.json');

/** Bad input: one line naming what is wrong, no stack. */
class UsageError extends Error {}

function parseOptions() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        'with-prism': { type: 'boolean', default: false },
        rounds: { type: 'string', default: '5' },
        duration: { type: 'string', default: '5' },
        connections: { type: 'string', default: '50' },
        'cold-starts': { type: 'string', default: '5' },
        only: { type: 'string', default: 'cold,main,scale,upload,proxy,spec' },
        out: { type: 'string', default: join(ROOT, 'bench', 'results.json') },
      },
    }).values;
  } catch (e) {
    throw new UsageError(e.message);
  }
  for (const name of ['rounds', 'duration', 'connections', 'cold-starts']) {
    const n = Number(parsed[name]);
    if (!(n > 0) || (name !== 'duration' && !Number.isInteger(n))) throw new UsageError(`--${name} must be a positive ${name === 'duration' ? 'number of seconds' : 'whole number'}, not ${JSON.stringify(parsed[name])}`);
  }
  const unknown = parsed.only.split(',').filter((p) => !PHASE_NAMES.includes(p));
  if (unknown.length) throw new UsageError(`--only: no phase ${unknown.map((p) => JSON.stringify(p)).join(', ')}; the phases are ${PHASE_NAMES.join(', ')}`);
  return parsed;
}

let args;
try {
  args = parseOptions();
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`bench: ${e.message}\n`);
  process.exit(2);
}
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const COLD_STARTS = Number(args['cold-starts']);
const PHASES = new Set(args.only.split(','));
if (PHASES.has('scale')) for (const part of ['scale:files', 'scale:secrets', 'scale:log']) PHASES.add(part);
const WARMUP = Math.min(1, DURATION);

const work = mkdtempSync(join(tmpdir(), 'cbm-bench-'));
// Stopped from outside (Ctrl-C, a CI timeout): no server outlives the benchmark, no data set stays.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    killAll();
    rmSync(work, { recursive: true, force: true });
    process.stderr.write(`[bench] stopped by ${signal}: every server it started was killed, ${work} removed\n`);
    process.exit(130);
  });
}

/**
 * The machine's CPU time so far, over all its CPUs, and the part of it the hypervisor gave to
 * other guests (`steal`), in seconds, from the first line of /proc/stat (NaN where there is none).
 * Its columns: user nice system idle iowait irq softirq steal (guest time is inside user and nice).
 */
function cpuTimes() {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    if (ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return { total: NaN, steal: NaN };
    // USER_HZ is 100 on every Linux this runs on.
    return { total: ticks.reduce((a, b) => a + b, 0) / 100, steal: ticks[7] / 100 };
  } catch {
    return { total: NaN, steal: NaN };
  }
}
/** Steal between two cpuTimes(): seconds, and the share of all the CPU time that went by. */
function stealBetween(before, after) {
  const seconds = after.steal - before.steal;
  return { seconds: +seconds.toFixed(2), share: seconds / (after.total - before.total) };
}
const cpuAtStart = cpuTimes();
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const percent = (share) => (Number.isFinite(share) ? `${(share * 100).toFixed(1)}%` : '–');

/**
 * A run during which the host stole more than this is run again: over 0.5 s of CPU, or over 1% of
 * the CPU time that went by (a 5 s run on 2 CPUs: 0.1 s). At most STEAL_RERUNS times; the figures
 * kept are those of the first run without steal, else of the run with the least.
 */
const STEAL_MAX_SECONDS = 0.5;
const STEAL_MAX_SHARE = 0.01;
const STEAL_RERUNS = 2;
const stolen = (s) => s.seconds > STEAL_MAX_SECONDS || s.share > STEAL_MAX_SHARE;

/**
 * Runs `run(attempt)` (a load run; attempt 0, 1, 2 — a storeSecret run uses it to keep its names
 * distinct) and again while the host stole CPU during it. Resolves with the result kept, plus
 * `steal` (that run's steal, how many runs were made, whether it was still stolen) and `attempts`
 * (every run's result and steal).
 */
async function measured(what, run) {
  const attempts = [];
  for (let attempt = 0; attempt <= STEAL_RERUNS; attempt++) {
    const before = cpuTimes();
    const result = await run(attempt);
    const steal = stealBetween(before, cpuTimes());
    attempts.push({ result, steal });
    if (!stolen(steal)) break;
    log(`  ${what}: the host stole ${steal.seconds} s of CPU (${percent(steal.share)} of the run's)${attempt < STEAL_RERUNS ? ': running it again' : `; kept the run with the least after ${STEAL_RERUNS} re-runs`}`);
  }
  const last = attempts[attempts.length - 1];
  const kept = stolen(last.steal) ? attempts.reduce((a, b) => (b.steal.seconds < a.steal.seconds ? b : a)) : last;
  const steal = { seconds: kept.steal.seconds, share: kept.steal.share, runs: attempts.length, stillStolen: stolen(kept.steal) };
  if (attempts.length > 1) {
    results.stealReruns.push({ what, runs: attempts.map((a) => ({ stealSeconds: a.steal.seconds, share: a.steal.share })), kept: attempts.indexOf(kept), stillStolen: steal.stillStolen });
  }
  return { ...kept.result, steal, attempts };
}
/** How many of these measured runs were run again for steal, and how many kept steal all the same. */
function stealSummary(runs) {
  return { rerun: runs.filter((r) => r.steal?.runs > 1).length, stillStolen: runs.filter((r) => r.steal?.stillStolen).length };
}
const stealNote = (s) => (s && (s.rerun || s.stillStolen) ? `  (re-run for steal: ${s.rerun}${s.stillStolen ? `, ${s.stillStolen} still stolen` : ''})` : '');
const auth = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });

// ---------------------------------------------------------------------------------- servers

let dirCount = 0;
/** The mock exactly as a user starts it: the CLI, a fresh data directory (or `dataDir`), default logging. */
async function startMock({ name = 'mock', extra = [], scenario, dataDir = join(work, `data-${dirCount + 1}`) } = {}) {
  const port = await freePort();
  ++dirCount;
  const server = await startServer({
    name,
    script: CLI,
    args: ['--port', String(port), '--data-dir', dataDir, ...(scenario ? ['--scenario', scenario] : []), ...extra],
    port,
    logFile: join(work, `${name.replace(/\W+/g, '-')}-${dirCount}.log`),
  });
  return { ...server, dataDir };
}

async function startBare(routesFile) {
  const port = await freePort();
  return startServer({
    name: 'bare',
    script: join(ROOT, 'bench', 'bare-server.mjs'),
    args: [String(port), routesFile],
    port,
    logFile: join(work, 'bare.log'),
  });
}

/** Installs @stoplight/prism-cli@5.14 into a temporary directory of its own (kept for the next run). */
function installPrism() {
  const dir = join(tmpdir(), `cloud-browser-mock-bench-prism-${PRISM_VERSION}`);
  const pkg = join(dir, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version.startsWith(`${PRISM_VERSION}.`)) {
    log(`Prism ${JSON.parse(readFileSync(pkg, 'utf8')).version} already installed in ${dir}`);
  } else {
    log(`installing @stoplight/prism-cli@${PRISM_VERSION} into ${dir}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const r = spawnSync(npm[0], [...npm.slice(1), 'install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `@stoplight/prism-cli@${PRISM_VERSION}`], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`npm install @stoplight/prism-cli@${PRISM_VERSION} failed`);
  }
  const meta = JSON.parse(readFileSync(pkg, 'utf8'));
  return { version: meta.version, bin: join(dirname(pkg), meta.bin.prism) };
}

/**
 * Prism mocks a copy of openapi.json with one addition: GET /health answering {"status":"ok"},
 * which the mock serves outside its contract, so that both cold starts end at the same request.
 * Prism 5.14 takes the document as it is otherwise (the `x-route-order` root key and the
 * relative `tokenUrl` included).
 */
function prismDocument() {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  doc.paths = {
    '/health': {
      get: {
        operationId: 'health',
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, example: { status: 'ok' } } } } },
      },
    },
    ...doc.paths,
  };
  const file = join(work, 'openapi-for-prism.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

async function startPrism(prism, doc, { name, verbose, dynamic = false }) {
  const port = await freePort();
  return startServer({
    name,
    script: prism.bin,
    args: ['mock', '-h', '127.0.0.1', '-p', String(port), ...(dynamic ? ['-d'] : []), ...(verbose ? ['-v', verbose] : []), doc],
    port,
    logFile: join(work, `${name.replace(/\W+/g, '-')}.log`),
  });
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));
/** A pause between runs, so one run's leftovers (sockets closing, GC) stay out of the next. */
const SETTLE_MS = 500;
/** Flushes dirty pages (the mock's workspace files, logs) so their writeback is not measured. */
const flushDisk = () => spawnSync('sync', [], { stdio: 'ignore' });

// ---------------------------------------------------------------------------------- endpoints

const ENDPOINTS = [
  {
    key: 'listSessionFiles',
    label: 'listSessionFiles (limit=100)',
    method: 'GET',
    path: '/sessions/sess_many_files/files',
    query: '?limit=100',
    headers: () => auth(),
  },
  {
    key: 'getSecret',
    label: 'getSecret',
    method: 'GET',
    path: '/secrets/OPENAI_API_KEY',
    query: '?namespace=llm_provider',
    headers: () => auth(),
  },
  {
    key: 'storeSecret',
    label: 'storeSecret (distinct names)',
    method: 'POST',
    path: '/secrets',
    query: '',
    // A fresh workspace for every run, so each starts from the same state.
    headers: (tag) => ({ ...auth(`sk_bench_store_${tag}`), 'Content-Type': 'application/json' }),
    setupRequest: (tag) => {
      let n = 0;
      return (req) => ({ ...req, body: JSON.stringify({ name: `BENCH_${tag}_${n++}`, value: 'bench-value-0123456789', namespace: 'function_env' }) });
    },
  },
];

function runEndpoint(server, ep, tag, duration = DURATION) {
  return load({
    url: `${server.url}${ep.path}${ep.query}`,
    connections: CONNECTIONS,
    duration,
    method: ep.method,
    headers: ep.headers(tag),
    body: ep.method === 'POST' ? '{}' : undefined,
    setupRequest: ep.setupRequest?.(tag),
  });
}

/** The mock's own answers, for the bare server to send byte for byte. */
async function captureRoutes(mock) {
  const routes = [{ method: 'GET', path: '/health', status: 200, contentType: 'application/json', body: Buffer.from('{"status":"ok"}').toString('base64') }];
  for (const ep of ENDPOINTS) {
    const body = ep.method === 'POST' ? JSON.stringify({ name: 'BENCH_SAMPLE', value: 'bench-value-0123456789', namespace: 'function_env' }) : undefined;
    const r = await send(`${mock.url}${ep.path}${ep.query}`, { method: ep.method, headers: ep.headers('sample'), body });
    if (r.status >= 300) throw new Error(`mock answered ${r.status} to ${ep.method} ${ep.path}: ${r.body}`);
    routes.push({ method: ep.method, path: ep.path, status: r.status, contentType: r.headers['content-type'], body: r.body.toString('base64') });
  }
  const file = join(work, 'bare-routes.json');
  writeFileSync(file, JSON.stringify(routes));
  return file;
}

// ---------------------------------------------------------------------------------- phases

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
  settings: { rounds: ROUNDS, durationSeconds: DURATION, connections: CONNECTIONS, withPrism: args['with-prism'] },
  steal: { rerunWhenOverSeconds: STEAL_MAX_SECONDS, rerunWhenOverShare: STEAL_MAX_SHARE, rerunsAtMost: STEAL_RERUNS },
  /** Each phase: its duration, the load average before and after, the CPU stolen during it. */
  phases: {},
  /** Every load run that was run again because the host stole CPU during it. */
  stealReruns: [],
};

async function coldStartPhase(prism, prismDoc) {
  log(`cold start: ${COLD_STARTS} alternating starts of each server`);
  const mock = [];
  const mockFirstList = [];
  const mockRss = [];
  const prismRuns = [];
  const prismRss = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const m = await startMock({ name: 'mock-cold' });
    mock.push(m.coldStartMs);
    // The first service answer: the validation stack (eov, multer) loads after listen.
    for (;;) {
      const r = await get(`${m.url}/sessions/sess_demo/files`, auth());
      if (r.status === 200) break;
      if (r.status !== 503) throw new Error(`first listSessionFiles answered ${r.status}`);
    }
    mockFirstList.push(performance.now() - m.startedAt);
    await settle(500);
    mockRss.push(m.rss());
    await m.stop();
    if (prism) {
      const p = await startPrism(prism, prismDoc, { name: 'prism-cold' });
      prismRuns.push(p.coldStartMs);
      await settle(500);
      prismRss.push(p.rss());
      await p.stop();
    }
  }
  results.coldStart = {
    mock: { medianMs: median(mock), runsMs: mock.map(Math.round), firstListSessionFilesMs: median(mockFirstList), firstListRunsMs: mockFirstList.map(Math.round), idleRssMiB: median(mockRss) },
    ...(prism ? { prism: { medianMs: median(prismRuns), runsMs: prismRuns.map(Math.round), idleRssMiB: median(prismRss) } } : {}),
  };
}

async function mainPhase(prism, prismDoc) {
  log(`throughput: ${ENDPOINTS.length} endpoints, ${CONNECTIONS} connections, ${DURATION} s each, ${ROUNDS} alternating rounds`);
  const mock = await startMock({ name: 'mock' });
  const servers = [
    { key: 'mock', label: 'mock (CLI defaults)', server: mock },
    { key: 'mockValidating', label: 'mock --validate-responses', server: await startMock({ name: 'mock-validating', extra: ['--validate-responses'] }) },
    { key: 'bare', label: 'bare node:http (same bytes)', server: await startBare(await captureRoutes(mock)) },
  ];
  if (prism) {
    servers.push({ key: 'prism', label: `Prism ${prism.version} (defaults)`, server: await startPrism(prism, prismDoc, { name: 'prism' }) });
    servers.push({ key: 'prismQuiet', label: `Prism ${prism.version} (-v error)`, server: await startPrism(prism, prismDoc, { name: 'prism-quiet', verbose: 'error' }) });
  }
  await settle(1000);
  const rssAfterStart = Object.fromEntries(servers.map((s) => [s.key, s.server.rss()]));

  const runs = {};
  // One endpoint at a time, its rounds alternating the servers: the write-heavy storeSecret runs
  // come last, so the disk writeback they leave behind never lands in another endpoint's runs.
  for (const ep of ENDPOINTS) {
    flushDisk();
    for (const s of servers) await runEndpoint(s.server, ep, `warm_${s.key}`, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts with the next server, so drift in the machine's load spreads evenly.
      const order = servers.slice(round % servers.length).concat(servers.slice(0, round % servers.length));
      for (const s of order) {
        await settle(SETTLE_MS);
        const r = await measured(`round ${round + 1} ${ep.key} ${s.key}`, (attempt) => runEndpoint(s.server, ep, `r${round}_${s.key}${attempt ? `_again${attempt}` : ''}`));
        ((runs[ep.key] ??= {})[s.key] ??= []).push(r);
        log(`round ${round + 1} ${ep.key.padEnd(16)} ${s.key.padEnd(15)} ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`);
      }
    }
  }
  const rssAfterLoad = Object.fromEntries(servers.map((s) => [s.key, s.server.rss()]));
  for (const s of servers) await s.server.stop();

  results.throughput = {};
  for (const ep of ENDPOINTS) {
    const byServer = runs[ep.key];
    // Ratios are taken within each round (its servers ran back to back, under the same load)
    // and then the median over rounds: steadier than a ratio of medians on a shared machine.
    const ratios = (a, b) => (byServer[a] && byServer[b] ? median(byServer[a].map((r, i) => r.rps / byServer[b][i].rps)) : undefined);
    results.throughput[ep.key] = { label: ep.label, servers: {} };
    for (const s of servers) {
      const isMock = s.key === 'mock' || s.key === 'mockValidating';
      results.throughput[ep.key].servers[s.key] = {
        label: s.label,
        ...medianRun(byServer[s.key]),
        steal: stealSummary(byServer[s.key]),
        ...(isMock ? { ratio: { bare: ratios(s.key, 'bare'), prism: ratios(s.key, 'prism'), prismQuiet: ratios(s.key, 'prismQuiet') } } : {}),
      };
    }
  }
  results.memory = Object.fromEntries(servers.map((s) => [s.key, { label: s.label, afterStartMiB: rssAfterStart[s.key], afterLoadMiB: rssAfterLoad[s.key] }]));
}

/**
 * Acknowledged writes on disk, read through the store's own reading of a data directory (the
 * snapshot and the log of every workspace, as the mock would read them), never by parsing files
 * here: `BENCH_<tag>_<n>` secrets counted per tag.
 */
async function storedWritesByTag(dataDir) {
  const file = join(ROOT, 'dist', 'src', 'store', 'stored-data.js');
  const mod = existsSync(file) ? await import(pathToFileURL(file).href) : {};
  if (typeof mod.readStoredWorkspaces !== 'function') throw new Error(`${relative(ROOT, file)} does not export readStoredWorkspaces (the store's reading of a data directory): rebuild with npm run build`);
  const counts = new Map();
  for (const ws of (await mod.readStoredWorkspaces(dataDir)).values()) {
    for (const s of ws.secrets) {
      const m = /^BENCH_([A-Za-z0-9]+)_\d+$/.exec(s.name);
      if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + 1);
    }
  }
  return counts;
}

/** The `workspace compacted` lines (pino JSON, --log-level debug) a mock's log holds so far. */
function compactions(logFile) {
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
const longestPause = (list) => (list.length ? Math.max(...list.map((c) => c.pauseMs)) : NaN);

/** storeSecret with distinct names `BENCH_<tag>_<n>`, round-robin over `tokens`. */
function storeSecrets(mock, tokens, tag, duration) {
  let n = 0;
  return load({
    url: `${mock.url}/secrets`,
    connections: CONNECTIONS,
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
async function measuredStoreRun(what, mock, tokens) {
  const r = await measured(what, async (attempt) => ({ ...(await storeSecrets(mock, tokens, `m${attempt}`, DURATION)), tag: `m${attempt}` }));
  const stored = await storedWritesByTag(mock.dataDir);
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

async function scaleFilesPhase(sets) {
  results.scale.listSessionFiles = [];
  for (const set of sets.files) {
    log(`scale: listSessionFiles with ${set.label}`);
    const mock = await startMock({ name: `mock-${set.key}`, scenario: set.file });
    const url = `${mock.url}/sessions/${SCALE_SESSION}/files?limit=100`;
    // The first request creates the workspace from the scenario (and writes its file).
    const t0 = performance.now();
    const first = await get(url, auth());
    const firstMs = performance.now() - t0;
    if (first.status !== 200) throw new Error(`listSessionFiles answered ${first.status}: ${first.body}`);
    const total = JSON.parse(first.body).total;
    flushDisk();
    await load({ url, connections: CONNECTIONS, duration: WARMUP, headers: auth() });
    const busy = await measured(`scale listSessionFiles ${set.key}, ${CONNECTIONS} connections`, () => load({ url, connections: CONNECTIONS, duration: DURATION, headers: auth() }));
    const single = await measured(`scale listSessionFiles ${set.key}, 1 connection`, () => load({ url, connections: 1, duration: Math.min(3, DURATION), headers: auth() }));
    results.scale.listSessionFiles.push({
      key: set.key,
      label: set.label,
      total,
      firstRequestMs: firstMs,
      at1: { rps: single.rps, p50: single.p50, p99: single.p99, errors: single.errors + single.non2xx, steal: single.steal },
      atN: { rps: busy.rps, p50: busy.p50, p99: busy.p99, errors: busy.errors + busy.non2xx, steal: busy.steal },
      steal: stealSummary([single, busy]),
      rssMiB: mock.rss(),
    });
    log(`  total ${total}; 1 conn p50 ${single.p50.toFixed(2)} ms p99 ${single.p99.toFixed(2)} ms; ${CONNECTIONS} conns ${Math.round(busy.rps)} req/s p50 ${busy.p50.toFixed(2)} ms p99 ${busy.p99.toFixed(2)} ms`);
    await mock.stop();
  }
}

async function scaleSecretsPhase(sets) {
  results.scale.storeSecret = [];
  for (const set of sets.secrets) {
    log(`scale: storeSecret with ${set.label}`);
    // At debug level the log also says when a workspace's log was compacted, and how long writes waited.
    const mock = await startMock({ name: `mock-${set.key.replace('/', '-')}`, scenario: set.file, extra: ['--log-level', 'debug'] });
    const tokens = workspaceTokens(set.workspaces);
    for (const t of tokens) {
      const r = await get(`${mock.url}/secrets/SEEDED_0?namespace=llm_provider`, auth(t));
      if (r.status !== 200) throw new Error(`getSecret answered ${r.status}: ${r.body}`);
    }
    flushDisk();
    await storeSecrets(mock, tokens, 'warm', WARMUP);
    const r = await measuredStoreRun(`scale storeSecret ${set.key}`, mock, tokens);
    const compacted = compactions(mock.logFile);
    results.scale.storeSecret.push({ key: set.key, label: set.label, ...r, compactions: compacted, longestPauseMs: longestPause(compacted), rssMiB: mock.rss() });
    log(`  ${Math.round(r.acknowledgedPerSecond)} acknowledged writes/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.maxMs.toFixed(1)} ms; ${r.acknowledged} acknowledged, ${r.onDisk} on disk; ${compacted.length} compactions`);
    await mock.stop();
  }
}

/** The workspace of the log data set: 100k secrets added in groups of LOG_GROUP, one save() each. */
const LOG_CHANGES = 100_000;
const LOG_GROUP = 500;
const LOG_TOKEN = 'sk_bench_log_100k';
/** The CLI on that data directory: the scenario and seed it was made with. */
const LOG_CLI_ARGS = ['--seed', '0', '--log-level', 'debug'];
/** How long to wait, after the load, for a compaction that started during it to say so. */
const COMPACTION_WAIT_MS = 30_000;

/**
 * A data directory whose one workspace holds LOG_CHANGES changes in its log, made in this process
 * with the store's own API and compaction held off (`compactLogs: false`), scenario `empty`,
 * seed 0, for the principal `LOG_TOKEN` has under `--auth open`.
 */
async function writeLoggedDataDir(dir) {
  const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', 'src', path)).href);
  const [{ createStore }, { keyPrincipal }, { keyHint }] = await Promise.all([dist('index.js'), dist('operations/auth.js'), dist('model/secret-rules.js')]);
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const store = await createStore({ dataDir: dir, scenario: 'empty', seed: 0 }, { compactLogs: false, warn: (line) => log(`  store: ${line}`) });
  try {
    const ws = await store.workspace(keyPrincipal(LOG_TOKEN));
    const value = 'bench-value-0123456789';
    for (let i = 0; i < LOG_CHANGES; i++) {
      ws.addSecret({ id: ws.newId('sec'), namespace: i % 2 ? 'function_env' : 'llm_provider', name: `LOGGED_${i}`, value, key_hint: keyHint(value), created_at: store.clock.now(), last_used_at: null });
      if ((i + 1) % LOG_GROUP === 0) await ws.save();
    }
    await ws.save();
  } finally {
    await store.close();
  }
  return performance.now() - t0;
}

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

/**
 * A workspace whose log holds 100k changes: the time to serve its first request after a start
 * (spawn → first 200 of listSecrets, and that request alone once /health answers; a second
 * listSecrets shows what the listing itself costs once read), then storeSecret on it, during which
 * the log, far larger than the snapshot, is compacted: the longest pause compaction reports and
 * the slowest answer of the run.
 */
async function scaleLogPhase() {
  const built = join(work, 'log-100k');
  log(`scale: a workspace whose log holds ${LOG_CHANGES.toLocaleString('en-US')} changes (in groups of ${LOG_GROUP}, compaction held off)`);
  const buildMs = await writeLoggedDataDir(built);
  const files = workspaceFiles(built);
  log(`  made in ${Math.round(buildMs)} ms: ${Object.entries(files).map(([f, n]) => `${f} ${fmt(n)} bytes`).join(', ')}`);
  const listUrl = (m) => `${m.url}/secrets`;
  /** One start on a fresh copy (a start may compact the log, which the next must find whole): `first` is the first request. */
  const startOnCopy = async (i, first) => {
    const dataDir = join(work, `log-100k-start-${i}`);
    cpSync(built, dataDir, { recursive: true });
    const m = await startMock({ name: 'mock-log-start', dataDir, scenario: 'empty', extra: LOG_CLI_ARGS });
    try {
      const t0 = performance.now();
      const answer = await firstOk(`${m.url}${first}`, auth(LOG_TOKEN));
      return { m, answer, firstMs: performance.now() - t0, fromSpawnMs: performance.now() - m.startedAt };
    } finally {
      if (first !== '/secrets') await m.stop();
    }
  };
  const starts = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const { m, answer, firstMs, fromSpawnMs } = await startOnCopy(i, '/secrets');
    const listed = JSON.parse(answer.body).items.length;
    if (listed !== LOG_CHANGES) throw new Error(`listSecrets listed ${listed} secrets of the workspace whose log holds ${LOG_CHANGES}`);
    const t1 = performance.now();
    await firstOk(listUrl(m), auth(LOG_TOKEN));
    const againMs = performance.now() - t1;
    starts.push({ healthMs: m.coldStartMs, firstRequestMs: firstMs, spawnToFirstMs: fromSpawnMs, secondRequestMs: againMs, compactions: compactions(m.logFile) });
    log(`  start ${i + 1}: /health ${Math.round(m.coldStartMs)} ms, first listSecrets ${Math.round(firstMs)} ms (spawn → 200 ${Math.round(fromSpawnMs)} ms), the next ${Math.round(againMs)} ms`);
    await m.stop();
  }
  // The read alone: a first request whose answer holds none of the 100k records (listMailboxes).
  const readAlone = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const { firstMs } = await startOnCopy(COLD_STARTS + i, '/mailboxes');
    readAlone.push(firstMs);
    log(`  start ${COLD_STARTS + i + 1}: first request listMailboxes ${Math.round(firstMs)} ms`);
  }
  for (let i = 0; i < 2 * COLD_STARTS; i++) rmSync(join(work, `log-100k-start-${i}`), { recursive: true, force: true });

  log(`scale: storeSecret on that workspace (${CONNECTIONS} connections), compacting its log`);
  const dataDir = join(work, 'log-100k-load');
  cpSync(built, dataDir, { recursive: true });
  const m = await startMock({ name: 'mock-log-load', dataDir, scenario: 'empty', extra: LOG_CLI_ARGS });
  // Read first, so that the writes measure appends and compaction, not the replay.
  await firstOk(listUrl(m), auth(LOG_TOKEN));
  const afterRead = compactions(m.logFile).length;
  flushDisk();
  const r = await measuredStoreRun('scale storeSecret on the 100k-change log', m, [LOG_TOKEN]);
  // A compaction that began during the load says so when done: wait for it, bounded.
  const waitUntil = performance.now() + COMPACTION_WAIT_MS;
  while (compactions(m.logFile).length <= afterRead && performance.now() < waitUntil) await settle(100);
  const compacted = compactions(m.logFile);
  const row = { key: 'log100k/1ws', label: '100k changes in the log, one workspace', ...r, compactions: compacted, longestPauseMs: longestPause(compacted), rssMiB: m.rss() };
  log(`  ${Math.round(r.acknowledgedPerSecond)} acknowledged writes/s, max ${r.maxMs.toFixed(1)} ms; ${r.acknowledged} acknowledged, ${r.onDisk} on disk; ${compacted.length} compactions, longest pause ${fmt(row.longestPauseMs, 1)} ms`);
  await m.stop();

  results.scale.log = {
    changes: LOG_CHANGES,
    changesPerSave: LOG_GROUP,
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

async function scalePhase() {
  const sets = PHASES.has('scale:files') || PHASES.has('scale:secrets') ? (log('scale: writing data sets'), writeDatasets(work)) : null;
  results.scale = {};
  if (PHASES.has('scale:files')) await phase('scale:files', () => scaleFilesPhase(sets));
  if (PHASES.has('scale:secrets')) await phase('scale:secrets', () => scaleSecretsPhase(sets));
  if (PHASES.has('scale:log')) await phase('scale:log', scaleLogPhase);
}

async function uploadPhase() {
  const size = 100 * 1024 * 1024;
  log('upload: 100 MiB multipart upload');
  const mock = await startMock({ name: 'mock-upload' });
  const url = `${mock.url}/sessions/sess_demo/files`;
  const warm = await uploadFile(url, TOKEN, 64 * 1024);
  if (!warm.ok) throw new Error(`warm-up upload failed: ${warm.status} ${JSON.stringify(warm.record)}`);
  await settle(500);
  const before = rssMiB(mock.pid);
  const peakReset = resetPeak(mock.pid);
  let sampled = before;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, rssMiB(mock.pid));
    } catch {
      // the process is gone; the upload will report it
    }
  }, 5);
  const up = await uploadFile(url, TOKEN, size);
  clearInterval(timer);
  const peak = Math.max(sampled, peakReset ? peakRssMiB(mock.pid) : 0);
  results.upload = {
    bytes: size,
    ok: up.ok,
    status: up.status,
    ms: up.ms,
    mibPerSecond: size / 2 ** 20 / (up.ms / 1000),
    rssBeforeMiB: before,
    peakRssMiB: peak,
    peakGrowthMiB: peak - before,
    peakFrom: peakReset ? 'VmHWM after clear_refs, and /proc sampling every 5 ms' : '/proc sampling every 5 ms',
  };
  log(`  ${up.status} in ${up.ms.toFixed(0)} ms; RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} MiB`);
  await mock.stop();
}

/**
 * What --upstream adds per request: listSessionFiles straight to a mock, and through a second mock
 * proxying to it (both the CLI with default logging), at 1 connection (latency) and at
 * CONNECTIONS (throughput), rounds alternating the two.
 */
async function proxyPhase() {
  log(`proxy: listSessionFiles direct vs through --upstream, 1 and ${CONNECTIONS} connections, ${ROUNDS} alternating rounds`);
  const upstream = await startMock({ name: 'mock-upstream' });
  const proxy = await startMock({ name: 'mock-proxy', extra: ['--upstream', upstream.url] });
  const ep = ENDPOINTS.find((e) => e.key === 'listSessionFiles');
  const targets = [
    { key: 'direct', server: upstream },
    { key: 'proxied', server: proxy },
  ];
  const run = (server, connections, duration = DURATION) =>
    load({ url: `${server.url}${ep.path}${ep.query}`, connections, duration, method: ep.method, headers: ep.headers('proxy') });
  for (const t of targets) await run(t.server, CONNECTIONS, WARMUP);
  const runs = { direct: { at1: [], atN: [] }, proxied: { at1: [], atN: [] } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...targets].reverse() : targets;
    for (const [level, connections] of [['at1', 1], ['atN', CONNECTIONS]]) {
      for (const t of order) {
        await settle(SETTLE_MS);
        const r = await measured(`round ${round + 1} proxy ${t.key} ${connections}c`, () => run(t.server, connections));
        runs[t.key][level].push(r);
        log(`round ${round + 1} ${t.key.padEnd(8)} ${String(connections).padStart(3)}c ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${r.errors + r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`);
      }
    }
  }
  const proxyRss = proxy.rss();
  await proxy.stop();
  await upstream.stop();
  const per = (key, level) => medianRun(runs[key][level]);
  const within = (level, f) => median(runs.proxied[level].map((r, i) => f(r, runs.direct[level][i])));
  results.proxy = {
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

/**
 * A start-session request body unlike the one before it (so no answer can be cached or copied):
 * the fields a client sets, varied by the request's number.
 */
const REGIONS = ['us-west', 'us-east', 'eu-central', 'ap-southeast'];
const sessionStartBody = (i) =>
  JSON.stringify({ headless: i % 2 === 0, region: REGIONS[i % 4], timeout_minutes: 1 + (i % 700), user_agent: `bench-agent/${i}`, solve_captchas: i % 3 === 0, metadata: { run: String(i) } });

/** POST /sessions/start with a distinct body per request (session_start: ~20 fields, most anyOf-null). */
function sessionStarts(server, tag, duration = DURATION) {
  let n = 0;
  return load({
    url: `${server.url}/sessions/start`,
    connections: CONNECTIONS,
    duration,
    method: 'POST',
    headers: { ...auth(`sk_bench_spec_${tag}`), 'Content-Type': 'application/json' },
    body: '{}',
    setupRequest: (req) => ({ ...req, body: sessionStartBody(n++) }),
  });
}

/** The first 200 of a POST /sessions/start, past 503s while the validation stack loads after listen. */
async function firstStart(url) {
  const until = performance.now() + 60_000;
  for (let i = 0; ; i++) {
    const r = await send(`${url}/sessions/start`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: sessionStartBody(i) });
    if (r.status === 200) return JSON.parse(r.body);
    if (r.status !== 503 || performance.now() > until) throw new Error(`POST /sessions/start answered ${r.status}: ${String(r.body).slice(0, 300)}`);
  }
}

/**
 * Issue 30's figures, in one run: (a) a generated session_start answer from the mock with --spec
 * and from Prism -d on the same document, a distinct request body per request; (b) listing,
 * getSecret and storeSecret with and without --spec (the union's routes indexed, not scanned);
 * (c) cold start with the document, spawn → first generated answer. Rounds alternate the servers;
 * ratios are the median of the per-round ratios, as in the main phase.
 */
async function specPhase(prism) {
  const ops = Object.values(JSON.parse(readFileSync(SPEC_DOC, 'utf8')).paths).reduce((n, item) => n + Object.keys(item).length, 0);
  log(`spec: --spec ${relative(ROOT, SPEC_DOC)} (${ops} operations): cold start, session_start vs Prism -d, the built-in endpoints with and without it`);
  const spec = ['--spec', SPEC_DOC];

  const cold = [];
  const coldPrism = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const m = await startMock({ name: 'mock-spec-cold', extra: spec });
    const answer = await firstStart(m.url);
    cold.push({ healthMs: m.coldStartMs, firstAnswerMs: performance.now() - m.startedAt });
    if (!/^sess_[0-9a-f]{16}$/.test(answer.session_id)) throw new Error(`session_start answered session_id ${JSON.stringify(answer.session_id)}`);
    await m.stop();
    if (prism) {
      const p = await startPrism(prism, SPEC_DOC, { name: 'prism-spec-cold', dynamic: true, verbose: 'error' });
      await firstStart(p.url);
      coldPrism.push(performance.now() - p.startedAt);
      await p.stop();
    }
  }
  log(`  cold start → first generated answer: ${cold.map((c) => Math.round(c.firstAnswerMs)).join(', ')} ms${prism ? `; Prism -d ${coldPrism.map(Math.round).join(', ')} ms` : ''}`);

  const plain = await startMock({ name: 'mock-nospec' });
  const withSpec = await startMock({ name: 'mock-spec', extra: spec });
  const generators = [{ key: 'mockSpec', label: 'mock --spec', server: withSpec }];
  if (prism) generators.push({ key: 'prismDynamic', label: `Prism ${prism.version} -d -v error`, server: await startPrism(prism, SPEC_DOC, { name: 'prism-spec', dynamic: true, verbose: 'error' }) });
  const builtIns = [
    { key: 'mockSpec', label: 'mock --spec', server: withSpec },
    { key: 'mock', label: 'mock (no --spec)', server: plain },
  ];
  await settle(1000);
  for (const g of generators) await firstStart(g.server.url);

  const runs = { sessionStart: {} };
  const round = async (what, list, run, into) => {
    for (let r = 0; r < ROUNDS; r++) {
      const order = list.slice(r % list.length).concat(list.slice(0, r % list.length));
      for (const s of order) {
        await settle(SETTLE_MS);
        const result = await measured(`round ${r + 1} ${what} ${s.key}`, (attempt) => run(s, `r${r}_${s.key}${attempt ? `_again${attempt}` : ''}`));
        (into[s.key] ??= []).push(result);
        log(`round ${r + 1} ${what.padEnd(16)} ${s.key.padEnd(13)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${result.errors + result.non2xx ? `  (${result.errors} errors, ${result.non2xx} non-2xx: ${JSON.stringify(result.statuses)})` : ''}`);
      }
    }
  };
  for (const g of generators) await sessionStarts(g.server, `warm_${g.key}`, WARMUP);
  await round('session_start', generators, (s, tag) => sessionStarts(s.server, tag), runs.sessionStart);
  for (const ep of ENDPOINTS) {
    flushDisk();
    runs[ep.key] = {};
    for (const s of builtIns) await runEndpoint(s.server, ep, `warm_spec_${s.key}`, WARMUP);
    await round(ep.key, builtIns, (s, tag) => runEndpoint(s.server, ep, `spec_${tag}`), runs[ep.key]);
  }
  for (const s of [plain, ...generators.map((g) => g.server)]) await s.stop();

  const within = (byServer, a, b) => (byServer[a] && byServer[b] ? median(byServer[a].map((r, i) => r.rps / byServer[b][i].rps)) : undefined);
  results.spec = {
    document: relative(ROOT, SPEC_DOC),
    operations: ops,
    coldStart: {
      runs: cold.map((c) => ({ healthMs: Math.round(c.healthMs), firstAnswerMs: Math.round(c.firstAnswerMs) })),
      medianHealthMs: median(cold.map((c) => c.healthMs)),
      medianFirstAnswerMs: median(cold.map((c) => c.firstAnswerMs)),
      ...(prism ? { prismDynamicMedianFirstAnswerMs: median(coldPrism), prismRunsMs: coldPrism.map(Math.round) } : {}),
    },
    sessionStart: {
      servers: Object.fromEntries(generators.map((g) => [g.key, { label: g.label, ...medianRun(runs.sessionStart[g.key]), steal: stealSummary(runs.sessionStart[g.key]) }])),
      ratioPrismDynamic: within(runs.sessionStart, 'mockSpec', 'prismDynamic'),
    },
    builtIn: Object.fromEntries(
      ENDPOINTS.map((ep) => [
        ep.key,
        {
          label: ep.label,
          servers: Object.fromEntries(builtIns.map((s) => [s.key, { label: s.label, ...medianRun(runs[ep.key][s.key]), steal: stealSummary(runs[ep.key][s.key]) }])),
          ratioWithoutSpec: within(runs[ep.key], 'mockSpec', 'mock'),
        },
      ]),
    ),
  };
}

// ---------------------------------------------------------------------------------- report

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : '–');
const times = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '');

function targets() {
  const t = [];
  const list = results.throughput?.listSessionFiles?.servers;
  const add = (name, value, ok) => t.push({ name, value, met: ok });
  if (list) {
    const m = list.mock;
    add('listSessionFiles ≥ 20% of bare node', `${m.ratio.bare.toFixed(3)}× of bare`, m.ratio.bare >= 0.2);
    if (list.prism) add('listSessionFiles ≥ 3× Prism (defaults)', times(m.ratio.prism), m.ratio.prism >= 3);
    if (list.prismQuiet) add('listSessionFiles ≥ 1.5× Prism (-v error)', times(m.ratio.prismQuiet), m.ratio.prismQuiet >= 1.5);
    add(`listSessionFiles p99 ≤ 25 ms at ${CONNECTIONS} connections`, `${fmt(m.p99, 1)} ms`, m.p99 <= 25);
  }
  if (results.coldStart) {
    add('cold start ≤ 400 ms', `${fmt(results.coldStart.mock.medianMs)} ms`, results.coldStart.mock.medianMs <= 400);
    add('start → first listSessionFiles 200 ≤ 600 ms', `${fmt(results.coldStart.mock.firstListSessionFilesMs)} ms`, results.coldStart.mock.firstListSessionFilesMs <= 600);
    add('idle RSS ≤ 90 MB', `${fmt(results.coldStart.mock.idleRssMiB * 1.048576, 1)} MB`, results.coldStart.mock.idleRssMiB * 1.048576 <= 90);
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
    for (const ep of Object.values(spec.builtIn)) add(`--spec: ${ep.label} within 5% of the run without --spec`, `${times(ep.ratioWithoutSpec)} of it`, ep.ratioWithoutSpec >= 0.95);
    add(`--spec: cold start with the ${spec.operations}-operation document, spawn → first generated answer ≤ 1 s`, `${fmt(spec.coldStart.medianFirstAnswerMs)} ms`, spec.coldStart.medianFirstAnswerMs <= 1000);
  }
  const compacted = [...writes, ...(logged ? [logged.storeSecret] : [])].flatMap((s) => s.compactions);
  if (logged || compacted.length) add("compaction's longest write pause (to report, no target)", compacted.length ? `${fmt(longestPause(compacted), 1)} ms over ${compacted.length} compactions` : 'no compaction reported', null);
  return t;
}

function table() {
  const lines = [];
  const row = (cells, widths) => cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  if (results.throughput) {
    const w = [30, 28, 9, 8, 8, 8, 10, 10, 12];
    lines.push(`Throughput and latency: ${CONNECTIONS} connections, ${DURATION} s per run, median of ${ROUNDS} alternating rounds (ratios: median of the per-round ratios)`);
    lines.push(row(['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'bytes', 'mock/bare', 'mock/Prism', 'mock/Prism-q'], w));
    for (const ep of Object.values(results.throughput)) {
      const s = ep.servers;
      for (const [key, r] of Object.entries(s)) {
        const isMock = key === 'mock' || key === 'mockValidating';
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
  if (results.coldStart) {
    const c = results.coldStart;
    lines.push(`Cold start (spawn → first 200 on /health, median of ${COLD_STARTS}) and idle RSS`);
    lines.push(`  mock   ${fmt(c.mock.medianMs)} ms  (runs ${c.mock.runsMs.join(', ')})  RSS ${fmt(c.mock.idleRssMiB, 1)} MiB`);
    if (c.prism) lines.push(`  Prism  ${fmt(c.prism.medianMs)} ms  (runs ${c.prism.runsMs.join(', ')})  RSS ${fmt(c.prism.idleRssMiB, 1)} MiB   mock/Prism ${ratio(c.mock.medianMs, c.prism.medianMs)}`);
    lines.push('');
  }
  if (results.memory) {
    lines.push('RSS (MiB) after start / after the throughput runs');
    for (const m of Object.values(results.memory)) lines.push(`  ${m.label.padEnd(30)} ${fmt(m.afterStartMiB, 1).padStart(6)} / ${fmt(m.afterLoadMiB, 1).padStart(6)}`);
    lines.push('');
  }
  if (results.scale?.listSessionFiles) {
    lines.push(`Scale: listSessionFiles (limit=100) on ${SCALE_SESSION}`);
    const w = [52, 8, 10, 10, 9, 10, 10, 9];
    lines.push(row(['data', 'total', '1c p50', '1c p99', `${CONNECTIONS}c req/s`, `${CONNECTIONS}c p50`, `${CONNECTIONS}c p99`, 'RSS MiB'], w));
    for (const s of results.scale.listSessionFiles) {
      lines.push(row([s.label, fmt(s.total), fmt(s.at1.p50, 2), fmt(s.at1.p99, 2), fmt(s.atN.rps), fmt(s.atN.p50, 2), fmt(s.atN.p99, 2), fmt(s.rssMiB, 1)], w) + stealNote(s.steal));
    }
    lines.push('');
  }
  const writeRows = [...(results.scale?.storeSecret ?? []), ...(results.scale?.log ? [results.scale.log.storeSecret] : [])];
  if (writeRows.length) {
    lines.push(`Scale: storeSecret (distinct names, ${CONNECTIONS} connections, round-robin over the workspaces; on disk: read back through the store)`);
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
        : `  storeSecret on it: no compaction reported within ${COMPACTION_WAIT_MS / 1000} s of the run's end; slowest answer ${fmt(r.maxMsAllRuns, 1)} ms`,
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
    lines.push(`Proxy (--upstream, the mock as upstream): listSessionFiles limit=100, median of ${ROUNDS} alternating rounds`);
    lines.push(`  1 connection      direct p50 ${fmt(p.direct.at1.p50, 2)} ms  p99 ${fmt(p.direct.at1.p99, 2)} ms   proxied p50 ${fmt(p.proxied.at1.p50, 2)} ms  p99 ${fmt(p.proxied.at1.p99, 2)} ms   added p50 ${fmt(p.addedP50Ms, 2)} ms, p99 ${fmt(p.addedP99Ms, 2)} ms`);
    lines.push(`  ${String(CONNECTIONS).padEnd(2)} connections    direct ${fmt(p.direct.atN.rps)} req/s   proxied ${fmt(p.proxied.atN.rps)} req/s   proxied/direct ${times(p.throughputRatio)}   proxy RSS ${fmt(p.proxyRssMiB, 1)} MiB${stealNote(p.steal)}`);
    lines.push('');
  }
  if (results.spec) {
    const sp = results.spec;
    lines.push(`Whole document (--spec ${sp.document}, ${sp.operations} operations): ${CONNECTIONS} connections, ${DURATION} s per run, median of ${ROUNDS} alternating rounds`);
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
      ? `Re-run because the host stole CPU during them (over ${STEAL_MAX_SECONDS} s or ${percent(STEAL_MAX_SHARE)} of the run's CPU time; at most ${STEAL_RERUNS} re-runs): ${reruns.length} run${reruns.length === 1 ? '' : 's'}, of which ${reruns.filter((r) => r.stillStolen).length} still stolen every time (the figures kept are those with the least steal): ${reruns.map((r) => `${r.what} [${r.runs.map((x) => `${x.stealSeconds} s`).join(', ')}]`).join('; ')}`
      : `No run was re-run: the host stole no more than ${STEAL_MAX_SECONDS} s or ${percent(STEAL_MAX_SHARE)} of any run's CPU time.`,
  );
  lines.push('');
  lines.push('Targets');
  for (const t of results.targets) lines.push(`  ${t.met === null ? '–     ' : t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------- main

async function main() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm run bench does)`);
  const prism = args['with-prism'] ? installPrism() : null;
  const prismDoc = prism ? prismDocument() : null;
  log(`machine: ${results.machine.cores} × ${results.machine.cpu}, load average ${results.machine.loadAverageBefore.join(' ')}; work in ${work}`);
  if (PHASES.has('cold')) await phase('cold', () => coldStartPhase(prism, prismDoc));
  if (PHASES.has('main')) await phase('main', () => mainPhase(prism, prismDoc));
  if (['scale:files', 'scale:secrets', 'scale:log'].some((p) => PHASES.has(p))) await scalePhase();
  if (PHASES.has('upload')) await phase('upload', uploadPhase);
  if (PHASES.has('proxy')) await phase('proxy', proxyPhase);
  if (PHASES.has('spec')) await phase('spec', () => specPhase(prism));
  results.machine.loadAverageAfter = loadavg().map((x) => +x.toFixed(2));
  // On a virtual machine, time the host gave to its other guests is time none of the servers had.
  const steal = stealBetween(cpuAtStart, cpuTimes());
  results.machine.cpuStealSeconds = +steal.seconds.toFixed(1);
  results.machine.cpuStealShare = steal.share;
  results.targets = targets();
  const text = table();
  process.stdout.write(`\n${text}\n`);
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${args.out}`);
}

/** Runs one phase, keeping its duration, the load average before and after it and the CPU stolen during it. */
async function phase(name, run) {
  const loadBefore = loadavg();
  const cpuBefore = cpuTimes();
  const t0 = performance.now();
  try {
    await run();
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

// Every server started is stopped however main ends: a failed phase leaves none running.
main()
  .finally(stopAll)
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
