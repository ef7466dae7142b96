/**
 * Issue 30's figures, in one run: (a) a generated session_start answer from the mock with --spec
 * and from Prism -d on the same document, a distinct request body per request; (b) listing,
 * getSecret and storeSecret with and without --spec (the union's routes indexed, not scanned);
 * (c) cold start with the document, spawn → first generated answer. Rounds alternate the servers;
 * ratios are the median of the per-round ratios, as in the main phase. With --instructions, (d)
 * the instructions each built-in request executes with and without --spec (lib/instructions.mjs).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENDPOINTS, auth, runEndpoint } from '../lib/endpoints.mjs';
import { instructionsPerRequest } from '../lib/instructions.mjs';
import { load, median, medianRun } from '../lib/load.mjs';
import { send } from '../lib/processes.mjs';
import { medianRatio, perRoundRatios, roundOrder } from '../lib/rounds.mjs';
import { flushDisk, settle, SETTLE_MS } from '../lib/servers.mjs';
import { stealSummary } from '../lib/steal.mjs';

/**
 * A start-session request body unlike the one before it (so no answer can be cached or copied):
 * the fields a client sets, varied by the request's number.
 */
const REGIONS = ['us-west', 'us-east', 'eu-central', 'ap-southeast'];
const sessionStartBody = (i) =>
  JSON.stringify({ headless: i % 2 === 0, region: REGIONS[i % 4], timeout_minutes: 1 + (i % 700), user_agent: `bench-agent/${i}`, solve_captchas: i % 3 === 0, metadata: { run: String(i) } });

/** POST /sessions/start with a distinct body per request (session_start: ~20 fields, most anyOf-null). */
function sessionStarts(server, tag, { connections, duration }) {
  let n = 0;
  return load({
    url: `${server.url}/sessions/start`,
    connections,
    duration,
    method: 'POST',
    headers: { ...auth(`sk_bench_spec_${tag}`), 'Content-Type': 'application/json' },
    body: '{}',
    setupRequest: (req) => ({ ...req, body: sessionStartBody(n++) }),
  });
}

/**
 * The first 200 of a POST /sessions/start, past 503s while the validation stack loads after listen.
 * `token`: whose workspace the started session goes to — never the one the built-in endpoints are
 * measured on, which must be in the same state with and without --spec.
 */
async function firstStart(url, token = 'sk_bench_spec_first') {
  const until = performance.now() + 60_000;
  for (let i = 0; ; i++) {
    const r = await send(`${url}/sessions/start`, { method: 'POST', headers: { ...auth(token), 'Content-Type': 'application/json' }, body: sessionStartBody(i) });
    if (r.status === 200) return JSON.parse(r.body);
    if (r.status !== 503 || performance.now() > until) throw new Error(`POST /sessions/start answered ${r.status}: ${String(r.body).slice(0, 300)}`);
  }
}

/** The mean of one round's runs on several processes of one kind (their steal records kept). */
function meanRun(list) {
  const mean = (f) => list.reduce((n, x) => n + f(x), 0) / list.length;
  const steal = list.map((x) => x.steal).filter(Boolean);
  return {
    ...list[0],
    rps: mean((x) => x.rps),
    p50: mean((x) => x.p50),
    p99: mean((x) => x.p99),
    errors: list.reduce((n, x) => n + x.errors, 0),
    non2xx: list.reduce((n, x) => n + x.non2xx, 0),
    steal: steal.length ? { runs: Math.max(...steal.map((x) => x.runs)), stillStolen: steal.some((x) => x.stillStolen) } : undefined,
  };
}

export async function specPhase(ctx) {
  const { rounds, coldStarts, connections, duration, warmup } = ctx.settings;
  const { prism, servers: start } = ctx;
  /** The whole-service test document (issue 30): written by the project, never copied from the service. */
  const specDoc = join(ctx.root, 'test', 'fixtures', 'whole-service', 'service.openapi.json');
  const ops = Object.values(JSON.parse(readFileSync(specDoc, 'utf8')).paths).reduce((n, item) => n + Object.keys(item).length, 0);
  ctx.log(`spec: --spec ${relative(ctx.root, specDoc)} (${ops} operations): cold start, session_start vs Prism -d, the built-in endpoints with and without it`);
  const spec = ['--spec', specDoc];

  const cold = [];
  const coldPrism = [];
  for (let i = 0; i < coldStarts; i++) {
    const m = await start.startMock({ name: 'mock-spec-cold', extra: spec });
    const answer = await firstStart(m.url);
    cold.push({ healthMs: m.coldStartMs, firstAnswerMs: performance.now() - m.startedAt });
    if (!/^sess_[0-9a-f]{16}$/.test(answer.session_id)) throw new Error(`session_start answered session_id ${JSON.stringify(answer.session_id)}`);
    await m.stop();
    if (prism) {
      const p = await start.startPrism(prism, specDoc, { name: 'prism-spec-cold', dynamic: true, verbose: 'error' });
      await firstStart(p.url);
      coldPrism.push(performance.now() - p.startedAt);
      await p.stop();
    }
  }
  ctx.log(`  cold start → first generated answer: ${cold.map((c) => Math.round(c.firstAnswerMs)).join(', ')} ms${prism ? `; Prism -d ${coldPrism.map(Math.round).join(', ')} ms` : ''}`);

  const withSpec = await start.startMock({ name: 'mock-spec', extra: spec });
  const generators = [{ key: 'mockSpec', label: 'mock --spec', server: withSpec }];
  if (prism) generators.push({ key: 'prismDynamic', label: `Prism ${prism.version} -d -v error`, server: await start.startPrism(prism, specDoc, { name: 'prism-spec', dynamic: true, verbose: 'error' }) });
  await settle(1000);
  for (const g of generators) await firstStart(g.server.url);

  const runs = { sessionStart: {} };
  const round = async (what, list, run, into) => {
    for (let r = 0; r < rounds; r++) {
      for (const s of roundOrder(list, r)) {
        await settle(SETTLE_MS);
        const result = await ctx.measured(`round ${r + 1} ${what} ${s.key}`, (attempt) => run(s, `r${r}_${s.key}${attempt ? `_again${attempt}` : ''}`));
        (into[s.key] ??= []).push(result);
        ctx.log(`round ${r + 1} ${what.padEnd(16)} ${s.key.padEnd(13)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${result.errors + result.non2xx ? `  (${result.errors} errors, ${result.non2xx} non-2xx: ${JSON.stringify(result.statuses)})` : ''}`);
      }
    }
  };
  for (const g of generators) await sessionStarts(g.server, `warm_${g.key}`, { connections, duration: warmup });
  await round('session_start', generators, (s, tag) => sessionStarts(s.server, tag, { connections, duration }), runs.sessionStart);
  for (const g of generators) await g.server.stop();

  // The built-in endpoints with and without --spec, on servers holding the same workspaces: the
  // session_start rounds above leave ~10⁵ sessions in their server's store, whose heap would slow
  // any server's requests alike (a larger heap to collect), which is not what --spec costs. Each
  // --spec server has answered a second of session_starts first (to a workspace of its own), so
  // the added operations' code has run through the shared stages before the built-ins are measured.
  //
  // Three processes of each kind, started in the order A B B A A B: two processes of the same
  // build, started one after the other, differ by up to ~5–10% in throughput for as long as they
  // run (four plain mocks measured side by side: 0.955–1.065× of the first), so one process a side
  // measured the processes, not --spec. Each round runs all six; its ratio is the --spec servers'
  // mean throughput over the plain servers'.
  const KINDS = [
    { key: 'mock', label: 'mock (no --spec)', extra: [] },
    { key: 'mockSpec', label: 'mock --spec', extra: spec },
  ];
  const builtIns = [];
  for (const [i, k] of [0, 1, 1, 0, 0, 1].entries()) {
    const kind = KINDS[k];
    const server = await start.startMock({ name: `${kind.key}-builtins-${i + 1}`, extra: kind.extra });
    if (kind.extra.length) {
      await firstStart(server.url);
      await sessionStarts(server, `prime${i}`, { connections, duration: 1 });
    }
    builtIns.push({ ...kind, server, n: i + 1 });
  }
  const perRun = Math.max(2, Math.round(duration / 2));
  await settle(1000);
  for (const ep of ENDPOINTS) {
    flushDisk();
    const perServer = builtIns.map(() => []);
    for (const [i, s] of builtIns.entries()) await runEndpoint(s.server, ep, `warm_spec_${i}`, { connections, duration: warmup });
    for (let r = 0; r < rounds; r++) {
      for (const i of builtIns.map((_, j) => (j + r) % builtIns.length)) {
        const s = builtIns[i];
        await settle(SETTLE_MS);
        const result = await ctx.measured(`round ${r + 1} ${ep.key} ${s.key} #${s.n}`, (attempt) => runEndpoint(s.server, ep, `spec_r${r}_${i}${attempt ? `_again${attempt}` : ''}`, { connections, duration: perRun }));
        perServer[i].push(result);
        ctx.log(`round ${r + 1} ${ep.key.padEnd(16)} ${`${s.key} #${s.n}`.padEnd(13)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms${result.errors + result.non2xx ? `  (${result.errors} errors, ${result.non2xx} non-2xx: ${JSON.stringify(result.statuses)})` : ''}`);
      }
    }
    // One run per kind and round: the mean of its processes' figures in that round.
    runs[ep.key] = {};
    for (const kind of KINDS) {
      const mine = builtIns.flatMap((s, i) => (s.key === kind.key ? [perServer[i]] : []));
      runs[ep.key][kind.key] = mine[0].map((_, r) => meanRun(mine.map((list) => list[r])));
    }
  }
  for (const s of builtIns) await s.server.stop();

  // (d) The same three requests counted in instructions, a plain and a --spec server side by side
  // under callgrind, the --spec one primed with session_starts first as above (500 of them: a
  // second's worth is too many under valgrind).
  let instructions;
  if (ctx.settings.instructions) {
    const warm = 6000;
    const count = 10000;
    instructions = { warm, count, endpoints: {} };
    const cli = start.workingCli;
    const prime = async (url) => {
      await firstStart(url);
      let n = 0;
      const r = await load({ url: `${url}/sessions/start`, connections: 4, amount: 500, method: 'POST', headers: { ...auth('sk_bench_spec_prime'), 'Content-Type': 'application/json' }, body: '{}', setupRequest: (req) => ({ ...req, body: sessionStartBody(n++) }) });
      if (r.ok !== 500) throw new Error(`priming the --spec server under callgrind: ${r.ok} of 500 session_starts answered 2xx`);
    };
    for (const ep of ENDPOINTS) {
      // Each server its own request stream (storeSecret's distinct names start at 0 on both).
      const stream = () => ({ method: ep.method, path: `${ep.path}${ep.query}`, headers: ep.headers('instructions'), body: ep.method === 'POST' ? '{}' : undefined, setupRequest: ep.setupRequest?.('instructions') });
      ctx.log(`instructions: ${ep.key}, ${warm} requests to warm then ${count} counted, on a plain and a --spec server under callgrind`);
      const [withoutSpec, withSpecCount] = await Promise.all([
        instructionsPerRequest({ cli, work: ctx.work, name: `${ep.key}-plain`, request: stream(), warm, count }),
        instructionsPerRequest({ cli, extra: spec, work: ctx.work, name: `${ep.key}-spec`, request: stream(), warm, count, prime }),
      ]);
      instructions.endpoints[ep.key] = { label: ep.label, withoutSpec: Math.round(withoutSpec), withSpec: Math.round(withSpecCount), ratio: withSpecCount / withoutSpec };
      ctx.log(`instructions: ${ep.key} ${Math.round(withoutSpec)} per request without --spec, ${Math.round(withSpecCount)} with it (${(withSpecCount / withoutSpec).toFixed(3)}×)`);
    }
  }

  return {
    document: relative(ctx.root, specDoc),
    operations: ops,
    builtInProcesses: 3,
    builtInRunSeconds: perRun,
    coldStart: {
      runs: cold.map((c) => ({ healthMs: Math.round(c.healthMs), firstAnswerMs: Math.round(c.firstAnswerMs) })),
      medianHealthMs: median(cold.map((c) => c.healthMs)),
      medianFirstAnswerMs: median(cold.map((c) => c.firstAnswerMs)),
      ...(prism ? { prismDynamicMedianFirstAnswerMs: median(coldPrism), prismRunsMs: coldPrism.map(Math.round) } : {}),
    },
    sessionStart: {
      servers: Object.fromEntries(generators.map((g) => [g.key, { label: g.label, ...medianRun(runs.sessionStart[g.key]), steal: stealSummary(runs.sessionStart[g.key]) }])),
      ratioPrismDynamic: medianRatio(runs.sessionStart, 'mockSpec', 'prismDynamic'),
    },
    ...(instructions ? { instructions } : {}),
    builtIn: Object.fromEntries(
      ENDPOINTS.map((ep) => [
        ep.key,
        {
          label: ep.label,
          servers: Object.fromEntries([...KINDS].reverse().map((s) => [s.key, { label: s.label, processes: 3, ...medianRun(runs[ep.key][s.key]), steal: stealSummary(runs[ep.key][s.key]) }])),
          ratioWithoutSpec: medianRatio(runs[ep.key], 'mockSpec', 'mock'),
          roundRatios: perRoundRatios(runs[ep.key], 'mockSpec', 'mock'),
        },
      ]),
    ),
  };
}
