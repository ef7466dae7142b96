/**
 * Tests that need a tool this machine may lack (python3, Pydantic 2). Where it is missing they are
 * skipped visibly, the reason in the title (jest has no skip-reason API; test/skipped-reporter.js
 * lists skipped titles in the summary), never passed with no assertion. Where CI requires the tool
 * (CBM_REQUIRE_PYTHON=1, set by .ci/run) a missing one fails them instead.
 */
import { describe, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';

type TestBody = Parameters<typeof test>[1];
type DescribeBody = Parameters<typeof describe>[1];

const required = (variable: string) => !!process.env[variable] && process.env[variable] !== '0';
const failure = (missing: string, variable: string) => () => {
  throw new Error(`${missing}, and ${variable}=1 requires it`);
};

/** What `test` becomes for a test that needs the tool: a test, a named skip, or a named failure. */
export function testNeeding(have: boolean, missing: string, variable = 'CBM_REQUIRE_PYTHON') {
  return (title: string, fn: TestBody, timeout?: number): void => {
    if (have) test(title, fn, timeout);
    else if (required(variable)) test(`${title} [FAILED: ${missing}]`, failure(missing, variable));
    else test.skip(`${title} [SKIPPED: ${missing}]`, fn, timeout);
  };
}

/** The same for a whole describe block. */
export function describeNeeding(have: boolean, missing: string, variable = 'CBM_REQUIRE_PYTHON') {
  return (title: string, fn: DescribeBody): void => {
    if (have) describe(title, fn);
    else if (required(variable)) describe(title, () => test(`needs python [FAILED: ${missing}]`, failure(missing, variable)));
    else describe.skip(`${title} [SKIPPED: ${missing}]`, fn);
  };
}

/**
 * One python3 start answers both questions (through a version manager's shim each start costs
 * ~0.65 CPU-s, and every file that imports this module asks): it runs, and it has Pydantic 2 —
 * generated scripts' models need Pydantic 2, and their `X | None` annotations Python 3.10.
 */
const PROBE = spawnSync('python3', ['-c', 'import sys\ntry:\n    import pydantic\n    ok = sys.version_info >= (3, 10) and pydantic.VERSION.startswith("2.")\nexcept Exception:\n    ok = False\nprint("pydantic" if ok else "no pydantic")'], { encoding: 'utf8' });
export const HAS_PYTHON = PROBE.status === 0;
export const HAS_PYDANTIC = HAS_PYTHON && PROBE.stdout.trim() === 'pydantic';

export const NO_PYTHON = 'python3 is not installed (.ci/run installs it)';
export const NO_PYDANTIC = 'python3 >= 3.10 with pydantic 2 is not available (pip install "pydantic>=2"; .ci/run makes a venv)';

export const testWithPython = testNeeding(HAS_PYTHON, NO_PYTHON);
export const testWithPydantic = testNeeding(HAS_PYDANTIC, NO_PYDANTIC);
export const describeWithPython = describeNeeding(HAS_PYTHON, NO_PYTHON);
export const describeWithPydantic = describeNeeding(HAS_PYDANTIC, NO_PYDANTIC);
