/**
 * `npm run bench [-- --with-prism] [--rounds N] [--duration S] [--only cold,main,scale,upload,proxy]`
 *
 * Measures the mock as users run it (the CLI in a child process, file-backed store, logging at the
 * default level) against a bare node:http server answering the same bytes (the ceiling) and,
 * with --with-prism, Stoplight Prism 5.14 mocking the same openapi.json. Everything listens on
 * 127.0.0.1; every phase is bounded in time. Prints one table and writes bench/results.json.
 * BENCHMARKS.md says how to read it and records a run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SCALE_SESSION, workspaceTokens, writeDatasets } from './lib/datasets.mjs';
import { load, median, medianRun } from './lib/load.mjs';
import { freePort, get, peakRssMiB, resetPeak, rssMiB, send, startServer } from './lib/processes.mjs';
import { uploadFile } from './lib/upload.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'bin', 'cli.js');
const PRISM_VERSION = '5.14';
const TOKEN = 'sk_test_demo';

const { values: args } = parseArgs({
  options: {
    'with-prism': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'cold-starts': { type: 'string', default: '5' },
    only: { type: 'string', default: 'cold,main,scale,upload,proxy' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results.json') },
  },
});
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const COLD_STARTS = Number(args['cold-starts']);
const PHASES = new Set(args.only.split(','));
const WARMUP = Math.min(1, DURATION);

const work = mkdtempSync(join(tmpdir(), 'cbm-bench-'));

/** CPU seconds the hypervisor gave to other guests (the `steal` column of /proc/stat), or NaN. */
function stealSeconds() {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    return Number(cpu[8]) / 100;
  } catch {
    return NaN;
  }
}
const stealAtStart = stealSeconds();
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const auth = (token = TOKEN) => ({ Authorization: `Bearer ${token}` });

// ---------------------------------------------------------------------------------- servers

let dirCount = 0;
/** The mock exactly as a user starts it: the CLI, a fresh data directory, default logging. */
async function startMock({ name = 'mock', extra = [], scenario } = {}) {
  const port = await freePort();
  const dataDir = join(work, `data-${++dirCount}`);
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

async function startPrism(prism, doc, { name, verbose }) {
  const port = await freePort();
  return startServer({
    name,
    script: prism.bin,
    args: ['mock', '-h', '127.0.0.1', '-p', String(port), ...(verbose ? ['-v', verbose] : []), doc],
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
        const r = await runEndpoint(s.server, ep, `r${round}_${s.key}`);
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
        ...(isMock ? { ratio: { bare: ratios(s.key, 'bare'), prism: ratios(s.key, 'prism'), prismQuiet: ratios(s.key, 'prismQuiet') } } : {}),
      };
    }
  }
  results.memory = Object.fromEntries(servers.map((s) => [s.key, { label: s.label, afterStartMiB: rssAfterStart[s.key], afterLoadMiB: rssAfterLoad[s.key] }]));
}

async function scalePhase() {
  log('scale: writing data sets');
  const sets = writeDatasets(join(work));
  results.scale = { listSessionFiles: [], storeSecret: [] };
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
    const busy = await load({ url, connections: CONNECTIONS, duration: DURATION, headers: auth() });
    const single = await load({ url, connections: 1, duration: Math.min(3, DURATION), headers: auth() });
    results.scale.listSessionFiles.push({
      key: set.key,
      label: set.label,
      total,
      firstRequestMs: firstMs,
      at1: { rps: single.rps, p50: single.p50, p99: single.p99, errors: single.errors + single.non2xx },
      atN: { rps: busy.rps, p50: busy.p50, p99: busy.p99, errors: busy.errors + busy.non2xx },
      rssMiB: mock.rss(),
    });
    log(`  total ${total}; 1 conn p50 ${single.p50.toFixed(2)} ms p99 ${single.p99.toFixed(2)} ms; ${CONNECTIONS} conns ${Math.round(busy.rps)} req/s p50 ${busy.p50.toFixed(2)} ms p99 ${busy.p99.toFixed(2)} ms`);
    await mock.stop();
  }
  for (const set of sets.secrets) {
    log(`scale: storeSecret with ${set.label}`);
    const mock = await startMock({ name: `mock-${set.key.replace('/', '-')}`, scenario: set.file });
    const tokens = workspaceTokens(set.workspaces);
    for (const t of tokens) {
      const r = await get(`${mock.url}/secrets/SEEDED_0?namespace=llm_provider`, auth(t));
      if (r.status !== 200) throw new Error(`getSecret answered ${r.status}: ${r.body}`);
    }
    const run = (tag, duration) => {
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
    };
    flushDisk();
    await run('warm', WARMUP);
    const r = await run('measured', DURATION);
    // Durability: every acknowledged write must already be in the workspace files on disk.
    let onDisk = 0;
    const wsDir = join(mock.dataDir, 'workspaces');
    for (const f of readdirSync(wsDir)) {
      if (!f.endsWith('.json')) continue;
      const data = JSON.parse(readFileSync(join(wsDir, f), 'utf8'));
      for (const s of data.secrets) if (s.name.startsWith('BENCH_measured_')) onDisk++;
    }
    results.scale.storeSecret.push({
      key: set.key,
      label: set.label,
      acknowledgedPerSecond: r.rps,
      acknowledged: r.ok,
      onDisk,
      durable: onDisk >= r.ok,
      p50: r.p50,
      p99: r.p99,
      errors: r.errors + r.non2xx,
      rssMiB: mock.rss(),
    });
    log(`  ${Math.round(r.rps)} acknowledged writes/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; ${r.ok} acknowledged, ${onDisk} on disk`);
    await mock.stop();
  }
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
        const r = await run(t.server, connections);
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
  const big = results.scale?.listSessionFiles.find((s) => s.key === '100k');
  if (big) add('listSessionFiles p50 ≤ 10 ms at 100k files (1 connection)', `${fmt(big.at1.p50, 2)} ms`, big.at1.p50 <= 10);
  const sec = results.scale?.storeSecret.find((s) => s.key === '100k/100ws');
  if (sec) add('storeSecret ≥ 1,000 acknowledged writes/s, 100k records over 100 workspaces', `${fmt(sec.acknowledgedPerSecond)} /s`, sec.acknowledgedPerSecond >= 1000 && sec.durable);
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
          ) + (r.errors ? `  (${r.errors} errors/non-2xx)` : ''),
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
  if (results.scale) {
    lines.push(`Scale: listSessionFiles (limit=100) on ${SCALE_SESSION}`);
    const w = [52, 8, 10, 10, 9, 10, 10, 9];
    lines.push(row(['data', 'total', '1c p50', '1c p99', `${CONNECTIONS}c req/s`, `${CONNECTIONS}c p50`, `${CONNECTIONS}c p99`, 'RSS MiB'], w));
    for (const s of results.scale.listSessionFiles) {
      lines.push(row([s.label, fmt(s.total), fmt(s.at1.p50, 2), fmt(s.at1.p99, 2), fmt(s.atN.rps), fmt(s.atN.p50, 2), fmt(s.atN.p99, 2), fmt(s.rssMiB, 1)], w));
    }
    lines.push('');
    lines.push(`Scale: storeSecret (distinct names, ${CONNECTIONS} connections, round-robin over the workspaces)`);
    const w2 = [40, 16, 8, 8, 20, 9];
    lines.push(row(['records already stored', 'acked writes/s', 'p50 ms', 'p99 ms', 'acked / on disk', 'RSS MiB'], w2));
    for (const s of results.scale.storeSecret) {
      lines.push(row([s.label, fmt(s.acknowledgedPerSecond), fmt(s.p50, 2), fmt(s.p99, 2), `${fmt(s.acknowledged)} / ${fmt(s.onDisk)}`, fmt(s.rssMiB, 1)], w2));
    }
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
    lines.push(`  ${String(CONNECTIONS).padEnd(2)} connections    direct ${fmt(p.direct.atN.rps)} req/s   proxied ${fmt(p.proxied.atN.rps)} req/s   proxied/direct ${times(p.throughputRatio)}   proxy RSS ${fmt(p.proxyRssMiB, 1)} MiB`);
    lines.push('');
  }
  const m = results.machine;
  lines.push(`Load average ${m.loadAverageBefore.join(' ')} before, ${m.loadAverageAfter.join(' ')} after; CPU stolen by the host during the run: ${m.cpuStealSeconds} s`);
  lines.push('');
  lines.push('Targets');
  for (const t of results.targets) lines.push(`  ${t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.value}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------- main

async function main() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first (npm run bench does)`);
  const prism = args['with-prism'] ? installPrism() : null;
  const prismDoc = prism ? prismDocument() : null;
  log(`machine: ${results.machine.cores} × ${results.machine.cpu}, load average ${results.machine.loadAverageBefore.join(' ')}; work in ${work}`);
  if (PHASES.has('cold')) await coldStartPhase(prism, prismDoc);
  if (PHASES.has('main')) await mainPhase(prism, prismDoc);
  if (PHASES.has('scale')) await scalePhase();
  if (PHASES.has('upload')) await uploadPhase();
  if (PHASES.has('proxy')) await proxyPhase();
  results.machine.loadAverageAfter = loadavg().map((x) => +x.toFixed(2));
  // On a virtual machine, time the host gave to its other guests is time none of the servers had.
  results.machine.cpuStealSeconds = +(stealSeconds() - stealAtStart).toFixed(1);
  results.targets = targets();
  const text = table();
  process.stdout.write(`\n${text}\n`);
  writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${args.out}`);
}

main().then(
  () => rmSync(work, { recursive: true, force: true }),
  (e) => {
    process.stderr.write(`[bench] failed: ${e.stack ?? e}\n[bench] logs and data kept in ${work}\n`);
    process.exitCode = 1;
  },
);
