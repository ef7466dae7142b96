/**
 * The benchmark's report and its command line, without measuring anything: `targets()` and
 * `table()` are pure functions of a saved run (test/fixtures/bench/results.json, a planted run of
 * the cold and main phases side by side with a baseline, figures chosen so that each target's
 * verdict can be read off them), `node bench/report.mjs FILE` reprints it, and the entry's bad
 * arguments end in one line and exit code 2 before any server starts. No timing is asserted.
 */
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table, targets } from '../bench/report.mjs';
import { parseOptions, UsageError } from '../bench/options.mjs';
import { medianRatio, roundOrder } from '../bench/lib/rounds.mjs';
import { expand } from '../bench/lib/one-core.mjs';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'bench', 'results.json');
const readFixture = () => JSON.parse(readFileSync(FIXTURE, 'utf8'));

type Target = { name: string; value: string; met: boolean | null };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** A child `node <script> <args>` from the repository's root, bounded in time. */
function node(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the report over a saved run', () => {
  test('targets() settles each target from the figures: listing vs bare node, cold start, and getSecret/storeSecret within 5% of the baseline', () => {
    const verdicts = Object.fromEntries((targets(readFixture()) as Target[]).map((t) => [t.name, t.met]));
    expect(verdicts).toEqual({
      // 0.21× of bare node, median of the five rounds' ratios.
      "listSessionFiles ≥ 0.20× bare node (median of 5 rounds' ratios)": true,
      'listSessionFiles p99 ≤ 25 ms at 50 connections': true,
      'cold start ≤ 400 ms': true, // 380 ms
      'start → first listSessionFiles 200 ≤ 600 ms': false, // 620 ms
      'idle RSS ≤ 90 MB': true, // 80 MiB = 83.9 MB
      "listSessionFiles (limit=100) against the baseline (median of 5 rounds' ratios; to report, no target)": null,
      "getSecret within 5% of the baseline (median of 5 rounds' ratios ≥ 0.95×)": true, // 0.97×
      "storeSecret (distinct names) within 5% of the baseline (median of 5 rounds' ratios ≥ 0.95×)": false, // 0.93×
      '100 MiB upload raises peak RSS ≤ 32 MiB': true,
    });
  });

  test("with --instructions, each built-in request's instruction count with --spec is a target: met up to 1.05× the plain server's, missed above; the table prints the counts", () => {
    const run = readFixture();
    run.spec = {
      document: 'service.openapi.json',
      operations: 70,
      sessionStart: { servers: {} },
      builtIn: {},
      coldStart: { runs: [{ healthMs: 400, firstAnswerMs: 900 }], medianHealthMs: 400, medianFirstAnswerMs: 900 },
      instructions: {
        warm: 2000,
        count: 10000,
        endpoints: {
          getSecret: { label: 'getSecret', withoutSpec: 1_000_000, withSpec: 1_050_000, ratio: 1.05 },
          storeSecret: { label: 'storeSecret (distinct names)', withoutSpec: 2_000_000, withSpec: 2_102_000, ratio: 1.051 },
        },
      },
    };
    const counted = (targets(run) as Target[]).filter((t) => t.name.includes('instructions'));
    expect(counted).toEqual([
      { name: '--spec: getSecret, instructions per request (callgrind) within 5% of the server without --spec', value: '1.050× (1,050,000 against 1,000,000)', met: true },
      { name: '--spec: storeSecret (distinct names), instructions per request (callgrind) within 5% of the server without --spec', value: '1.051× (2,102,000 against 2,000,000)', met: false },
    ]);
    expect(table(run)).toContain('  instructions per request (callgrind, 10,000 counted after 2,000 to warm): getSecret 1,050,000 with --spec, 1,000,000 without (1.050×); storeSecret 2,102,000 with --spec, 2,000,000 without (1.051×)');
  });

  test('the built-in endpoints with and without --spec on one shared CPU: met from 0.95×, each pair and the control printed; a machine that cannot pin says so and settles nothing', () => {
    const run = readFixture();
    const server = { label: 'x', rps: 600, p50: 30, p99: 90, bytesPerResponse: 207, errors: 0, rounds: [] };
    const endpoint = (label: string, ratio: number, pairs: number[], control: number[]) => ({
      label,
      servers: { mockSpec: { ...server, label: 'mock --spec' }, mock: { ...server, label: 'mock (no --spec)' } },
      ratioWithoutSpec: ratio,
      pairRatios: pairs.map((r, i) => ({ order: i % 2 ? 'mockSpec then mock' : 'mock then mockSpec', ratio: r, runs: [r, r] })),
      control: { ratio: control[0] * control[1], pairRatios: control.map((r, i) => ({ order: i % 2 ? 'mockControl then mock' : 'mock then mockControl', ratio: r, runs: [r] })) },
    });
    run.spec = {
      document: 'service.openapi.json',
      operations: 68,
      sessionStart: { servers: {} },
      builtInMethod: { serverCpu: '1', loadCpus: '0', pairs: 4, runSeconds: 2, connectionsPerServer: 25, runsPerPair: 2 },
      builtIn: {
        getSecret: endpoint('getSecret', 0.95, [0.94, 0.96], [1.01, 0.99]),
        listSessionFiles: endpoint('listSessionFiles (limit=100)', 0.949, [0.93, 0.968], [1, 1]),
      },
      coldStart: { runs: [{ healthMs: 400, firstAnswerMs: 900 }], medianHealthMs: 400, medianFirstAnswerMs: 900 },
    };
    const spec = (t: Target[]) => t.filter((x) => x.name.startsWith('--spec: ') && x.name.includes('without --spec'));
    expect(spec(targets(run))).toEqual([
      {
        name: '--spec: getSecret within 5% of the run without --spec',
        value: '0.950× of it (median of 4 runs in 2 pairs on one CPU: 0.940, 0.960; two plain mocks the same way: 1.00×)',
        met: true,
      },
      {
        name: '--spec: listSessionFiles (limit=100) within 5% of the run without --spec',
        value: '0.949× of it (median of 4 runs in 2 pairs on one CPU: 0.930, 0.968; two plain mocks the same way: 1.00×)',
        met: false,
      },
    ]);
    const text: string = table(run);
    expect(text).toContain('  the built-in endpoints: 4 pairs of fresh servers pinned to CPU 1, loaded at once from CPU 0 (25 connections each), 2 runs of 2 s per pair;');
    expect(text).toContain('    getSecret: pairs 0.940 (mock then mockSpec), 0.960 (mockSpec then mock); control (two plain mocks) 1.010, 0.990');

    run.spec.builtInMethod = { skipped: 'this process may use one CPU (0); the servers need one of their own and the load another' };
    run.spec.builtIn = {};
    expect(spec(targets(run))).toEqual([
      { name: '--spec: the built-in endpoints within 5% of the run without --spec', value: 'not measured: this process may use one CPU (0); the servers need one of their own and the load another', met: null },
    ]);
    expect(table(run)).toContain('  the built-in endpoints with and without --spec: not measured (this process may use one CPU (0); the servers need one of their own and the load another)');
  });

  test('targets() and table() change nothing and answer the same twice, over a frozen copy of the run', () => {
    const before = readFileSync(FIXTURE, 'utf8');
    const frozen = deepFreeze(readFixture());
    const once = { targets: targets(frozen), table: table(frozen) };
    expect({ targets: targets(frozen), table: table(frozen) }).toEqual(once);
    expect(frozen).toEqual(JSON.parse(before));
  });

  test('table() gives each figure for both builds and the median of the rounds’ ratios, and the targets of today rather than those saved', () => {
    const text: string = table(readFixture());
    const lines = text.split('\n');
    expect(text).toContain('Side by side: the working tree (fedcba987654) against the baseline main (0123456789ab)');
    const getSecret = lines.findIndex((l) => l.startsWith('getSecret') && l.includes('req/s'));
    expect(lines[getSecret].split(/\s{2,}/)).toEqual(['getSecret', 'req/s', '5,000', '5,155', '0.97×', '0.950, 0.970, 0.990, 0.960, 0.980']);
    expect(lines.find((l) => l.includes('/health ms'))?.split(/\s{2,}/)).toEqual(['cold start (per start)', '/health ms', '380', '400', '0.95×']);
    expect(text).toContain("MISSED  storeSecret (distinct names) within 5% of the baseline (median of 5 rounds' ratios ≥ 0.95×): 0.93× of the baseline's (rounds 0.910, 0.930, 0.950, 0.920, 0.940)");
    expect(text).not.toContain('a stale target the report must not reprint');
  });

  test('node bench/report.mjs FILE prints the same table; without a readable file it says so in one line, exit code 2', () => {
    const reprint = node('bench/report.mjs', [FIXTURE]);
    expect(reprint).toEqual({ status: 0, stdout: `${table(readFixture())}\n`, stderr: '' });
    const missing = node('bench/report.mjs', [join(ROOT, 'test', 'fixtures', 'bench', 'no-such-run.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^report: cannot read .*no-such-run\.json: no such file\n$/);
  });
});

describe('side by side rounds', () => {
  test('the two builds compared always run back to back, which goes first alternating by round, while the rotation moves the others', () => {
    const units = [['tree', 'baseline'], 'validating', 'bare'];
    expect([0, 1, 2, 3].map((round) => roundOrder(units, round))).toEqual([
      ['tree', 'baseline', 'validating', 'bare'],
      ['validating', 'bare', 'baseline', 'tree'],
      ['bare', 'tree', 'baseline', 'validating'],
      ['baseline', 'tree', 'validating', 'bare'],
    ]);
  });

  test("taskset's CPU lists are read as the CPUs they name: single CPUs, ranges, both", () => {
    expect(expand('0')).toEqual([0]);
    expect(expand('0,1')).toEqual([0, 1]);
    expect(expand('0-3,6')).toEqual([0, 1, 2, 3, 6]);
    expect(expand('2-4,8-9')).toEqual([2, 3, 4, 8, 9]);
  });

  test("a ratio is the median of the rounds' ratios, not the ratio of the medians", () => {
    const byServer = { tree: [{ rps: 100 }, { rps: 300 }, { rps: 200 }], baseline: [{ rps: 200 }, { rps: 150 }, { rps: 400 }] };
    // Rounds: 0.5, 2, 0.5; the medians alone would give 200 / 200 = 1.
    expect(medianRatio(byServer, 'tree', 'baseline')).toBe(0.5);
    expect(medianRatio(byServer, 'tree', 'prism')).toBeUndefined();
  });
});

describe("the benchmark's arguments", () => {
  const defaults = { defaultOut: '/out.json' };

  test('the defaults, --only scale as its three parts, and --baseline with the phases that compare builds', () => {
    expect(parseOptions([], defaults)).toEqual({
      help: false,
      withPrism: false,
      instructions: false,
      rounds: 5,
      duration: 5,
      connections: 50,
      coldStarts: 5,
      phases: new Set(['cold', 'main', 'scale:files', 'scale:secrets', 'scale:log', 'upload', 'proxy', 'spec']),
      baseline: null,
      out: '/out.json',
    });
    const side = parseOptions(['--only', 'cold,main,scale', '--baseline', 'HEAD~1', '--rounds', '3', '--duration', '2.5', '--with-prism'], defaults);
    expect(side).toMatchObject({ baseline: 'HEAD~1', rounds: 3, duration: 2.5, withPrism: true, phases: new Set(['cold', 'main', 'scale:files', 'scale:secrets', 'scale:log']) });
    expect(parseOptions(['--help'], defaults)).toEqual({ help: true });
  });

  test.each([
    [['--only', 'main,nope'], '--only: no phase "nope"; the phases are cold, main, scale, scale:files, scale:secrets, scale:log, upload, proxy, spec'],
    [['--rounds', '0'], '--rounds must be a positive whole number, not "0"'],
    [['--duration', 'x'], '--duration must be a positive number of seconds, not "x"'],
    [['--baseline', 'main', '--only', 'upload'], '--baseline compares builds in the cold and main phases; --only upload runs neither'],
    [['--baseline', ''], '--baseline needs a git commit, branch or tag, not ""'],
    [['--instructions', '--only', 'main'], "--instructions counts the spec phase's built-in requests; --only main runs no spec phase"],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('%j is refused with one message', (argv, message) => {
    expect(() => parseOptions(argv, defaults)).toThrow(new UsageError(message));
  });

  test('the entry refuses bad arguments with one line and exit code 2, before starting anything; --help lists --baseline', () => {
    const bad = node('bench/run.mjs', ['--only', 'nope']);
    expect(bad).toEqual({ status: 2, stdout: '', stderr: 'bench: --only: no phase "nope"; the phases are cold, main, scale, scale:files, scale:secrets, scale:log, upload, proxy, spec\n' });
    const noCommit = node('bench/run.mjs', ['--baseline', 'no-such-ref-for-the-bench-test', '--only', 'main']);
    expect(noCommit).toEqual({ status: 2, stdout: '', stderr: 'bench: --baseline: "no-such-ref-for-the-bench-test" names no commit of this repository\n' });
    const help = node('bench/run.mjs', ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}--baseline REF {7}/m);
  });
});
