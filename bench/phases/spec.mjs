/**
 * Issue 30's figures, in one run: (a) a generated session_start answer from the mock with --spec
 * and from Prism -d on the same document, a distinct request body per request; (b) listing,
 * getSecret and storeSecret with and without --spec (the union's routes indexed, not scanned);
 * (c) cold start with the document, spawn → first generated answer. Rounds alternate the servers;
 * ratios are the median of the per-round ratios, as in the main phase.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENDPOINTS, auth, runEndpoint } from '../lib/endpoints.mjs';
import { load, median, medianRun } from '../lib/load.mjs';
import { send } from '../lib/processes.mjs';
import { medianRatio, roundOrder } from '../lib/rounds.mjs';
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

  // The built-in endpoints with and without --spec, on two servers holding the same workspaces:
  // the session_start rounds above leave ~10⁵ sessions in their server's store, whose heap would
  // slow any server's requests alike (a larger heap to collect), which is not what --spec costs.
  // The --spec one has answered a second of session_starts first, so the added operations' code
  // has run through the shared stages before the built-ins are measured.
  const plain = await start.startMock({ name: 'mock-nospec' });
  const specBuiltIns = await start.startMock({ name: 'mock-spec-builtins', extra: spec });
  await firstStart(specBuiltIns.url);
  await sessionStarts(specBuiltIns, 'prime', { connections, duration: 1 });
  const builtIns = [
    { key: 'mockSpec', label: 'mock --spec', server: specBuiltIns },
    { key: 'mock', label: 'mock (no --spec)', server: plain },
  ];
  await settle(1000);
  for (const ep of ENDPOINTS) {
    flushDisk();
    runs[ep.key] = {};
    for (const s of builtIns) await runEndpoint(s.server, ep, `warm_spec_${s.key}`, { connections, duration: warmup });
    await round(ep.key, builtIns, (s, tag) => runEndpoint(s.server, ep, `spec_${tag}`, { connections, duration }), runs[ep.key]);
  }
  for (const s of builtIns) await s.server.stop();

  return {
    document: relative(ctx.root, specDoc),
    operations: ops,
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
    builtIn: Object.fromEntries(
      ENDPOINTS.map((ep) => [
        ep.key,
        {
          label: ep.label,
          servers: Object.fromEntries(builtIns.map((s) => [s.key, { label: s.label, ...medianRun(runs[ep.key][s.key]), steal: stealSummary(runs[ep.key][s.key]) }])),
          ratioWithoutSpec: medianRatio(runs[ep.key], 'mockSpec', 'mock'),
        },
      ]),
    ),
  };
}
