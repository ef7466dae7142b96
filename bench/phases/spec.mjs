/**
 * Issue 30's figures, in one run: (a) a generated session_start answer from the mock with --spec
 * and from Prism -d on the same document, a distinct request body per request (rounds alternate
 * the servers; the ratio is the median of the per-round ratios, as in the main phase); (b) the
 * listing, getSecret and storeSecret with and without --spec (the union's routes indexed, not
 * scanned), measured on fresh pairs of servers sharing one CPU (lib/one-core.mjs), the ratio the
 * median of every run's; (c) cold start with the document, spawn → first generated
 * answer. With --instructions, (d) the instructions each built-in request executes with and
 * without --spec (lib/instructions.mjs).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENDPOINTS, auth, runEndpoint } from '../lib/endpoints.mjs';
import { instructionsPerRequest } from '../lib/instructions.mjs';
import { load, median, medianRun } from '../lib/load.mjs';
import { send } from '../lib/processes.mjs';
import { medianRatio, roundOrder } from '../lib/rounds.mjs';
import { oneCorePlan, pin, withLoadPinned } from '../lib/one-core.mjs';
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

/** What the built-in comparison starts: a plain mock and a --spec one, or two plain ones (control). */
const PLAIN = { key: 'mock' };
const WITH_SPEC = { key: 'mockSpec', withSpec: true };
const CONTROL = { key: 'mockControl' };
/** The pairs, each with its start order: both orders equally often, in either kind. */
const BUILT_IN_PAIRS = [
  [PLAIN, WITH_SPEC],
  [WITH_SPEC, PLAIN],
  [PLAIN, CONTROL],
  [PLAIN, WITH_SPEC],
  [WITH_SPEC, PLAIN],
  [CONTROL, PLAIN],
  [PLAIN, WITH_SPEC],
  [WITH_SPEC, PLAIN],
];

/**
 * One pair on the plan's server CPU: both answer the same built-in requests first (a second of
 * each of the three, so that neither is measured with code that has only met one kind of request),
 * the --spec one then a second of session_starts to a workspace of its own; then for each endpoint,
 * `rounds` runs with both loaded at once, each run's ratio the other server's throughput over the
 * plain one's.
 */
async function comparePair(ctx, { plan, kinds, n, spec, perRun, perServer }) {
  const started = [];
  for (const [i, kind] of kinds.entries()) {
    const server = await ctx.servers.startMock({ name: `${kind.key}-pair${n + 1}-${i + 1}`, extra: kind.withSpec ? spec : [] });
    pin(server.pid, plan.server);
    started.push({ kind, server });
  }
  const plain = started.find((s) => s.kind === PLAIN).server;
  const other = started.find((s) => s.kind !== PLAIN);
  const control = other.kind === CONTROL;
  const order = started.map((s) => s.kind.key).join(' then ');
  try {
    for (const { server } of started) for (const ep of ENDPOINTS) await runEndpoint(server, ep, `prime_pair${n}`, { connections: perServer, duration: 1 });
    if (!control) {
      await firstStart(other.server.url);
      await sessionStarts(other.server, `prime_pair${n}`, { connections: perServer, duration: 1 });
    }
    await settle(SETTLE_MS);
    const endpoints = {};
    for (const ep of ENDPOINTS) {
      flushDisk();
      for (const { server } of started) await runEndpoint(server, ep, `warm_pair${n}`, { connections: perServer, duration: 1 });
      endpoints[ep.key] = [];
      for (let r = 0; r < ctx.settings.rounds; r++) {
        await settle(SETTLE_MS);
        const tag = `pair${n}_r${r}`;
        const both = await ctx.measured(`pair ${n + 1} (${order}) ${ep.key} run ${r + 1}`, async (attempt) => {
          const again = attempt ? `_again${attempt}` : '';
          const [p, o] = await Promise.all([runEndpoint(plain, ep, `${tag}_plain${again}`, { connections: perServer, duration: perRun }), runEndpoint(other.server, ep, `${tag}_other${again}`, { connections: perServer, duration: perRun })]);
          return { plain: p, other: o };
        });
        const run = { plain: both.plain, other: both.other, ratio: both.other.rps / both.plain.rps, steal: both.steal };
        for (const x of [run.plain, run.other]) if (x.errors + x.non2xx) ctx.log(`  pair ${n + 1} ${ep.key} run ${r + 1}: ${x.errors} errors, ${x.non2xx} non-2xx: ${JSON.stringify(x.statuses)}`);
        endpoints[ep.key].push(run);
      }
      ctx.log(`pair ${n + 1} (${order}) ${ep.key.padEnd(16)} ${control ? 'control/plain' : '--spec/plain'} ${endpoints[ep.key].map((r) => r.ratio.toFixed(3)).join(' ')}  (plain ${endpoints[ep.key].map((r) => Math.round(r.plain.rps)).join(' ')} req/s)`);
    }
    return { order, control, endpoints };
  } finally {
    for (const { server } of started) await server.stop();
  }
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

  // (b) The built-in endpoints with and without --spec, on one CPU shared by the two servers
  // (lib/one-core.mjs): run one after the other, or side by side on two CPUs, two processes of the
  // same build differed here by more than the 5% this should tell. Fresh pairs, started in
  // alternating order (the process started first ran ~1–2% faster in either kind), and two control
  // pairs of plain mocks measured the same way, whose ratio is the method's own error.
  const plan = oneCorePlan();
  const builtIn = {};
  let builtInMethod;
  if (plan.reason) {
    builtInMethod = { skipped: plan.reason };
    ctx.log(`spec: the built-in endpoints with and without --spec not measured: ${plan.reason}`);
  } else {
    const perRun = Math.max(2, Math.round(duration / 2));
    const perServer = Math.max(1, Math.round(connections / 2));
    builtInMethod = { serverCpu: plan.server, loadCpus: plan.load, pairs: BUILT_IN_PAIRS.length, runSeconds: perRun, connectionsPerServer: perServer, runsPerPair: rounds };
    ctx.log(`spec: the built-in endpoints, ${BUILT_IN_PAIRS.length} pairs of servers on CPU ${plan.server} loaded at once from CPU ${plan.load}, ${perServer} connections each, ${rounds} runs of ${perRun} s per pair and endpoint`);
    const pairs = await withLoadPinned(plan, async () => {
      const done = [];
      for (const [n, kinds] of BUILT_IN_PAIRS.entries()) done.push(await comparePair(ctx, { plan, kinds, n, spec, perRun, perServer }));
      return done;
    });
    const tested = pairs.filter((p) => !p.control);
    const control = pairs.filter((p) => p.control);
    for (const ep of ENDPOINTS) {
      const runsOf = (list) => list.flatMap((p) => p.endpoints[ep.key]);
      const perPair = (list) => list.map((p) => ({ order: p.order, ratio: median(p.endpoints[ep.key].map((r) => r.ratio)), runs: p.endpoints[ep.key].map((r) => +r.ratio.toFixed(4)) }));
      const testedRuns = runsOf(tested);
      const steal = stealSummary(testedRuns);
      builtIn[ep.key] = {
        label: ep.label,
        servers: {
          mockSpec: { label: 'mock --spec', processes: tested.length, ...medianRun(testedRuns.map((r) => r.other)), steal },
          mock: { label: 'mock (no --spec)', processes: tested.length, ...medianRun(testedRuns.map((r) => r.plain)), steal },
        },
        ratioWithoutSpec: median(testedRuns.map((r) => r.ratio)),
        pairRatios: perPair(tested),
        control: { ratio: median(runsOf(control).map((r) => r.ratio)), pairRatios: perPair(control) },
      };
      ctx.log(`  ${ep.key}: --spec ${builtIn[ep.key].ratioWithoutSpec.toFixed(3)}× of plain (pairs ${builtIn[ep.key].pairRatios.map((p) => p.ratio.toFixed(3)).join(', ')}); control ${builtIn[ep.key].control.ratio.toFixed(3)}×`);
    }
  }

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
    builtInMethod,
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
    builtIn,
  };
}
