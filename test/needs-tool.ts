/**
 * Tests that need a tool this machine may lack (python3 and Pydantic 2, which test/python3.ts
 * looks for; curl). Where it is missing they are skipped visibly, the reason in the title (jest
 * has no skip-reason API; test/skipped-reporter.js lists skipped titles in the summary), never
 * passed with no assertion. Where CI requires the tool (CBM_REQUIRE_PYTHON=1, set by .ci/run) a
 * missing one fails them instead.
 */
import { describe, test } from '@jest/globals';

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
