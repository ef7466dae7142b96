/**
 * Property: whatever a session recorded — hostile strings in values, keys and action types,
 * scrapes with or without samples — every export parses as Python, runs against a stand-in SDK
 * making exactly the calls json_actions describe with the very same values, keeps unknown
 * actions as comments that read back to the action, and types samples with models that accept them.
 *
 * All cases go to one python3 process (test/python/run_exports.py): a process per case would
 * cost a third of a second each. The inputs come from fc.sample with a fixed seed, so a failure
 * is reproducible; FC_SEED=<n> explores other inputs.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Action } from '../src/model/records.js';
import { exportSession } from '../src/workflow/export-session.js';
import { ACTION_METHODS, RESULT_SAMPLE } from '../src/workflow/sdk.js';
import { codePoint } from './arbitraries.js';
import { HAS_PYDANTIC, testWithPydantic, testWithPython } from './python3.js';
import { runExports, type ExportCase, type ExportReport } from './workflow-python.js';

const SEED = Number(process.env.FC_SEED ?? 20250101);
const RUNS = 150;

/** Pieces that break naive code generators: quotes, escapes, line breaks, NUL, surrogates, code. */
const HOSTILE = [
  '"""', "'''", "'", '"', '\\', '\\n', '\n', '\r', '\r\n', '\t', '\0', '\v', '\f', '\x1b', '\x7f', '\u0085', '\u00a0',
  '\u2028', '\u2029', '\ufeff', '\u200b', '\ud800', '\udfff', '😀', 'é', 'ﬁ', '#', '\\x41', '{', '}', '${x}', ')',
  '"); import os; ("', "'''); __import__('os').system('echo pwned') #", '__proto__', 'constructor',
];
const hostile = fc.oneof(
  fc.string({ unit: codePoint, maxLength: 12 }),
  fc.array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 3 })), { maxLength: 5 }).map((parts) => parts.join('')),
);
/**
 * Strings a recorded result can hold: well-formed UTF-16 only. Pydantic's core is in Rust, whose
 * strings cannot hold a lone surrogate, and no page sends one in its UTF-8.
 */
const wellFormed = hostile.filter((s) => s.isWellFormed());

function jsonOf(str: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { maxDepth: 3, depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      str,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(str, tie('value'), { maxKeys: 4 }),
    ),
  })).value;
}

const paramKey = fc.oneof(fc.constantFrom('url', 'selector', 'value', 'instructions', 'time_ms', 'from', 'class', 'data-id', RESULT_SAMPLE), hostile);
const actionOf = (type: fc.Arbitrary<string>) =>
  fc.tuple(type, fc.dictionary(paramKey, jsonOf(hostile), { maxKeys: 4 })).map(([t, params]) =>
    Object.fromEntries([['type', t], ...Object.entries(params).filter(([k]) => k !== 'type')]),
  );
const scrape = fc
  .record(
    {
      // Weighted towards scrapes that get a model inferred, the case with the most to check.
      instructions: fc.oneof({ arbitrary: hostile, weight: 4 }, { arbitrary: fc.constant(''), weight: 1 }),
      response_format: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: jsonOf(hostile), weight: 1 }),
      result: fc.oneof(fc.constant(null), jsonOf(wellFormed), fc.dictionary(wellFormed, jsonOf(wellFormed), { minKeys: 1, maxKeys: 5 })),
    },
    { requiredKeys: [] },
  )
  .map((fields) => ({ type: 'scrape', ...fields }));
const session = fc.array(
  fc.oneof(actionOf(fc.constantFrom(...ACTION_METHODS.keys())), actionOf(hostile), { arbitrary: scrape, weight: 2 }),
  { maxLength: 6 },
);

/** What a store holds: the actions after a trip through JSON, as a scenario file gives them. */
const sessions: Action[][] = fc.sample(session, { seed: SEED, numRuns: RUNS }).map((a) => JSON.parse(JSON.stringify(a)));

interface Expectation {
  calls: { method: string; kwargs: Record<string, unknown>; validated: unknown }[];
  comments: Action[];
  returned: unknown;
}

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the script must do, worked out from the recorded actions and json_actions alone. */
function expectation(recorded: Action[], json_actions: Action[], asWorkflow: boolean, infer: boolean): Expectation {
  const out: Expectation = { calls: [], comments: [], returned: null };
  let lastScrape: { typed: boolean; validated: unknown; root: string } | null = null;
  json_actions.forEach((action, i) => {
    const method = ACTION_METHODS.get(action.type);
    if (method === undefined) return void out.comments.push(action);
    const r = recorded[i];
    const sample = r[RESULT_SAMPLE];
    const typed =
      infer && r.type === 'scrape' && typeof r.instructions === 'string' && r.instructions !== '' &&
      (r.response_format ?? null) === null && sample !== null && sample !== undefined;
    const kwargs = Object.fromEntries(Object.entries(action).filter(([k, v]) => k !== 'type' && v !== null));
    const root = typed ? (action.response_format as { title: string }).title : '';
    if (typed) kwargs.response_format = { $class: root };
    const validated = typed ? (isObject(sample) ? sample : { result: sample }) : null;
    out.calls.push({ method, kwargs, validated });
    if (method === 'scrape') lastScrape = { typed, validated, root };
  });
  const last = lastScrape as { typed: boolean; validated: unknown; root: string } | null;
  if (asWorkflow && last?.typed) out.returned = { $model: last.root, dump: last.validated };
  return out;
}

const combos = [true, false].flatMap((asWorkflow) => [true, false].map((infer) => ({ asWorkflow, infer })));
const cases = sessions.flatMap((recorded, n) =>
  combos.map(({ asWorkflow, infer }) => {
    const exported = exportSession(recorded, { asWorkflow, inferResponseFormat: infer });
    const expected = expectation(recorded, exported.json_actions, asWorkflow, infer);
    // What the service answers a typed scrape with: the sample, under `result` when it is no object.
    const samples = expected.calls.map((call) => call.validated);
    return { n, asWorkflow, infer, recorded, exported, expected, samples };
  }),
);

test('the sample of sessions exercises every kind of case', () => {
  const all = sessions.flat();
  expect(all.some((a) => !ACTION_METHODS.has(a.type))).toBe(true);
  expect(cases.some((c) => c.expected.returned !== null)).toBe(true);
  expect(cases.filter((c) => c.expected.calls.some((call) => call.validated !== null)).length).toBeGreaterThan(RUNS / 5);
  expect(all.some((a) => JSON.stringify(a).includes('\\ud800') || JSON.stringify(a).includes('\\udfff'))).toBe(true);
  expect(all.some((a) => JSON.stringify(a).includes('\\"\\"\\"'))).toBe(true);
});

test('json_actions are the recorded actions without their result samples, response_format filled only by inference', () => {
  for (const c of cases) {
    c.recorded.forEach((r, i) => {
      const { [RESULT_SAMPLE]: _, ...params } = r;
      const exported = c.exported.json_actions[i];
      if (c.infer && exported.response_format !== (r.response_format ?? undefined)) {
        expect({ ...exported, response_format: r.response_format ?? null }).toEqual({ ...params, response_format: r.response_format ?? null });
      } else expect(exported).toEqual(params);
    });
  }
});

/**
 * One Python batch of every case, made once for the file. A run reports the syntax error and the
 * comments before it runs a script, as a parse-only batch does, so where Pydantic is here the run's
 * batch serves both tests (a batch of 600 scripts costs a Python start and a pass over them).
 */
const batches = new Map<boolean, ExportReport[]>();
function reportsOf(run: boolean): ExportReport[] {
  if (!batches.has(run)) batches.set(run, runExports(cases.map((c): ExportCase => ({ script: c.exported.python_script, asWorkflow: c.asWorkflow, run, samples: run ? c.samples : undefined }))));
  return batches.get(run)!;
}

describe('every export, given to Python', () => {
  testWithPython('parses, and carries each unsupported action as a comment that reads back to it', () => {
    const reports = reportsOf(HAS_PYDANTIC);
    cases.forEach((c, i) => {
      const context = { session: c.n, asWorkflow: c.asWorkflow, infer: c.infer, seed: SEED };
      expect({ ...context, syntax_error: reports[i].syntax_error, comments: reports[i].comments }).toEqual({ ...context, syntax_error: null, comments: c.expected.comments });
    });
  });

  testWithPydantic('runs: the SDK calls carry the recorded values unchanged, inferred models accept the samples, run() returns the typed result', () => {
    const reports = reportsOf(true);
    cases.forEach((c, i) => {
      const context = { session: c.n, asWorkflow: c.asWorkflow, infer: c.infer, seed: SEED };
      const { error, warnings, calls, returned } = reports[i];
      expect({ ...context, error, warnings, calls, returned }).toEqual({ ...context, error: null, warnings: [], ...c.expected, comments: undefined });
    });
  });
});
