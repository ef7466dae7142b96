/**
 * getSessionScript over HTTP: the four switch combinations for sess_demo against reviewed
 * expected scripts, json_actions against the contract, and every built-in scenario's scripts
 * parsed, run against a stand-in SDK and, where a model is inferred, validated by Pydantic.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { BUILT_IN_SCENARIOS, readScenarioFile } from '../src/scenarios/scenario.js';
import { ACTION_METHODS, FALLBACK_RESPONSE_FORMAT } from '../src/workflow/sdk.js';
import { ROOT, bearer, testApp } from './helpers.js';
import { codeBlocks, section } from './doc-pages.js';
import { HAS_PYDANTIC, testWithPydantic, testWithPython } from './python3.js';
import { runExports, type ExportReport } from './workflow-python.js';

const AUTH = bearer('sk_test_workflow');
let app: MockApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.mock.close());

const code = (session: string, query = '', target: MockApp = app) => request(target).get(`/sessions/${session}/workflow/code${query}`).set(AUTH);
const switches = (asWorkflow: boolean, infer: boolean) => `?as_workflow=${asWorkflow}&infer_response_format=${infer}`;
const expected = (name: string) => readFileSync(join(ROOT, 'test', 'expected', 'sess-demo', name), 'utf8');

/** The built-in scenario files, read once. */
const builtIn = new Map(await Promise.all(BUILT_IN_SCENARIOS.map(async (name) => [name, await readScenarioFile(name)] as const)));
const demoActions = builtIn.get('default')!.sessions.find((s) => s.id === 'sess_demo')!.actions;
const transactionsSample = demoActions.find((a) => 'result' in a)!.result;
/** The recorded result of each SDK call the script makes (actions of unknown types make none). */
const callSamples = (actions: Record<string, unknown>[]) => actions.filter((a) => ACTION_METHODS.has(a.type as string)).map((a) => a.result ?? null);

describe('sess_demo, each switch combination, is the reviewed script in test/expected/sess-demo/', () => {
  test.each([
    [true, true, 'workflow-inferred.py'],
    [true, false, 'workflow.py'],
    [false, true, 'replay-inferred.py'],
    [false, false, 'replay.py'],
  ])('as_workflow=%s infer_response_format=%s → %s', async (asWorkflow, infer, file) => {
    const res = await code('sess_demo', switches(asWorkflow, infer));
    expect(res.status).toBe(200);
    expect(res.body.python_script).toBe(expected(file));
  });
});

test('when infer_response_format is false, json_actions are the recorded actions, response_format: null untouched, the result sample left out', async () => {
  const res = await code('sess_demo', '?infer_response_format=false');
  const recorded = demoActions.map(({ result, ...params }) => params);
  expect(res.body.json_actions).toEqual(recorded);
  expect(res.body.json_actions.filter((a: any) => a.type === 'scrape').map((a: any) => a.response_format)).toEqual([
    null,
    recorded[6].response_format,
    null,
  ]);
  expect(JSON.stringify(res.body.json_actions)).not.toContain('Coffee Roasters');
});

describe('when infer_response_format is true', () => {
  let scrapes: any[];
  beforeAll(async () => {
    scrapes = (await code('sess_demo', '?infer_response_format=true')).body.json_actions.filter((a: any) => a.type === 'scrape');
  });

  test('a scrape with nothing to infer from gets the recorded fallback schema', () => {
    expect(scrapes[0].response_format).toEqual(FALLBACK_RESPONSE_FORMAT);
  });

  test('a scrape with its own response_format keeps it', () => {
    expect(scrapes[1].response_format).toEqual(demoActions[6].response_format);
  });

  test('a scrape with a recorded result gets a schema that the sample satisfies', () => {
    const schema = scrapes[2].response_format;
    expect(schema).toMatchObject({ type: 'object', title: 'ScrapeResult', required: ['account', 'currency', 'balance', 'transactions'] });
    expect(schema.properties.transactions.items.properties.from).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }], default: null });
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate(transactionsSample)).toBe(true);
    expect(validate({ ...(transactionsSample as object), balance: 'a lot' })).toBe(false);
  });
});

test('json_actions validate against the contract’s AgentFunctionCodeResponse in every switch combination', async () => {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const validate = ajv.compile({ $ref: 'openapi#/components/schemas/AgentFunctionCodeResponse' });
  for (const asWorkflow of [true, false]) {
    for (const infer of [true, false]) {
      const body = (await code('sess_demo', switches(asWorkflow, infer))).body;
      expect(validate(body) ? null : ajv.errorsText(validate.errors)).toBeNull();
    }
  }
});

test('the same session and switches give the same bytes, in any workspace', async () => {
  const first = (await code('sess_demo', switches(true, true))).text;
  expect((await code('sess_demo', switches(true, true))).text).toBe(first);
  expect((await request(app).get('/sessions/sess_demo/workflow/code?as_workflow=1&infer_response_format=1').set(bearer('sk_other'))).text).toBe(first);
});

test('an unknown session is 404 Session not found', async () => {
  const res = await code('sess_nope');
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ detail: 'Session not found' });
});

type Scripts = [string, { script: string; asWorkflow: boolean; samples: unknown[]; methods: string[] }][];
/**
 * The run of every built-in script (made by the first test that asks): the syntax error and the
 * comments a run reports are those a parse-only batch reports, as run_exports.py works them out
 * before it runs a script, so where Pydantic is here one Python batch serves the tests below.
 */
let runBatch: { entries: Scripts; reports: ExportReport[] } | undefined;
function reportsOf(entries: Scripts, run: boolean): ExportReport[] {
  if (!run) return runExports(entries.map(([, s]) => ({ ...s, run: false })));
  runBatch ??= { entries, reports: runExports(entries.map(([, s]) => ({ ...s, run: true }))) };
  return runBatch.reports;
}

describe('every script of every session of every built-in scenario', () => {
  const sessions = BUILT_IN_SCENARIOS.flatMap((scenario) => builtIn.get(scenario)!.sessions.map((s) => [scenario, s.id] as const));
  const combos = [true, false].flatMap((asWorkflow) => [true, false].map((infer) => [asWorkflow, infer] as const));
  const scripts = new Map<string, { script: string; asWorkflow: boolean; samples: unknown[]; methods: string[] }>();

  beforeAll(async () => {
    for (const scenario of new Set(sessions.map(([s]) => s))) {
      const scenarioApp = await testApp({ scenario });
      try {
        for (const [, id] of sessions.filter(([s]) => s === scenario)) {
          const recorded = builtIn.get(scenario)!.sessions.find((s) => s.id === id)!.actions;
          for (const [asWorkflow, infer] of combos) {
            const script = (await code(id, switches(asWorkflow, infer), scenarioApp)).body.python_script;
            const methods = recorded.filter((a) => ACTION_METHODS.has(a.type as string)).map((a) => ACTION_METHODS.get(a.type as string)!);
            scripts.set(`${scenario} ${id} ${asWorkflow} ${infer}`, { script, asWorkflow, samples: callSamples(recorded), methods });
          }
        }
      } finally {
        await scenarioApp.mock.close();
      }
    }
  });

  test('are listed: the default scenario’s three sessions and paging’s one at least', () => {
    expect(sessions.length).toBeGreaterThanOrEqual(4);
    expect(scripts.size).toBe(sessions.length * combos.length);
  });

  // The check of `python3 -c 'import ast,sys; ast.parse(sys.stdin.read())'`, made for all scripts
  // in one process: a python3 start costs a third of a second on a busy machine.
  testWithPython('parse with Python’s ast.parse', () => {
    const entries = [...scripts];
    const reports = reportsOf(entries, HAS_PYDANTIC);
    expect(entries.map(([name], i) => [name, reports[i].syntax_error]).filter(([, error]) => error !== null)).toEqual([]);
  });

  testWithPydantic('run against a stand-in SDK: one call per replayable action, no error or warning (inferred models accept the recorded results)', () => {
    const entries = [...scripts];
    const reports = reportsOf(entries, true);
    reports.forEach((report, i) => {
      const name = entries[i][0];
      const methods = report.calls.map((c) => c.method);
      expect({ name, error: report.error, warnings: report.warnings, methods }).toEqual({ name, error: null, warnings: [], methods: entries[i][1].methods });
    });
  });
});

testWithPydantic('sess_demo’s inferred model compiles in Pydantic, validates the recorded result, and run() returns it', async () => {
  const script = (await code('sess_demo', switches(true, true))).body.python_script;
  // The run of every script above holds this one, with the same samples, where it ran first.
  const batched = runBatch?.entries.findIndex(([name, s]) => name === 'default sess_demo true true' && s.script === script && s.asWorkflow);
  const [report] = runBatch && batched !== undefined && batched >= 0 ? [runBatch.reports[batched]] : runExports([{ script, asWorkflow: true, run: true, samples: callSamples(demoActions) }]);
  expect(report.error).toBeNull();
  expect(report.warnings).toEqual([]);
  const last = report.calls.at(-1)!;
  expect(last).toEqual({
    method: 'scrape',
    kwargs: { instructions: 'Extract the recent transactions', response_format: { $class: 'ScrapeResult' } },
    validated: transactionsSample,
  });
  expect(report.returned).toEqual({ $model: 'ScrapeResult', dump: transactionsSample });
  expect(report.calls.map((c) => c.method)).toEqual(demoActions.map((a) => a.type));
});

test('the example export in docs/workflow-export.md is what sess_demo exports with both switches on', async () => {
  const example = codeBlocks(section('docs/workflow-export.md', 'Workflow export'), 'python')[0];
  expect(example).toBe((await code('sess_demo', switches(true, true))).body.python_script);
});
