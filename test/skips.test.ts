/**
 * A test whose tool is missing is a visible skip, never a pass with no assertion: the suites that
 * need python3 run in a child jest on a PATH without it, whose summary must name each skipped
 * test with the reason; with CBM_REQUIRE_PYTHON=1 (as .ci/run sets) the same run must fail.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

let bin: string;
beforeAll(() => {
  // A PATH holding node and nothing else: no python3.
  bin = mkdtempSync(join(tmpdir(), 'cbm-nopython-'));
  symlinkSync(process.execPath, join(bin, 'node'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function jestWithoutPython(files: string[], extraEnv: Record<string, string> = {}, jestArgs: string[] = []): Promise<{ code: number | null; out: string }> {
  const env: Record<string, string | undefined> = { ...process.env, PATH: bin, NODE_OPTIONS: '--experimental-vm-modules', ...extraEnv };
  if (!('CBM_REQUIRE_PYTHON' in extraEnv)) delete env.CBM_REQUIRE_PYTHON;
  // In band: two small files do not need jest's worker processes (each one more Node, swc and module graph to start).
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--runInBand', ...jestArgs, '--runTestsByPath', ...files], { cwd: ROOT, env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

const FILES = ['test/python-compat.test.ts', 'test/workflow-code.test.ts'];

test('without python3 the tests that need it are skipped, and the summary names each with its reason', async () => {
  const { code, out } = await jestWithoutPython(FILES);
  expect([code, out]).toEqual([0, expect.stringContaining('Skipped tests (')]);
  const skipped = out.split('\n').filter((l) => l.startsWith('  ○ '));
  const inFile = (file: string, reason: string) => skipped.filter((l) => l.includes(file) && l.includes(`[SKIPPED: ${reason}`));
  // python-compat: its three comparisons; workflow-code: parse, run, and sess_demo's model.
  expect(inFile('python-compat.test.ts', 'python3 is not installed').length).toBe(3);
  expect(inFile('workflow-code.test.ts', 'python3 is not installed').length).toBe(1);
  expect(inFile('workflow-code.test.ts', 'python3 >= 3.10 with pydantic 2 is not available').length).toBe(2);
  expect(out).toMatch(/Tests:\s+6 skipped, \d+ passed/);
}, 120_000);

test('with CBM_REQUIRE_PYTHON=1 a missing python3 fails them, naming what is missing', async () => {
  // Only the tests whose title says they failed for the missing tool run (the others pass or skip
  // as in the case above, which runs them all): a test that needs python3 but ignored
  // CBM_REQUIRE_PYTHON=1 would be skipped or pass without that mark and be missing from the count.
  // The rest of workflow-code.test.ts (every script of every scenario: most of this child's CPU)
  // is not run a second time.
  const { code, out } = await jestWithoutPython(FILES, { CBM_REQUIRE_PYTHON: '1' }, ['--testNamePattern', String.raw`\[FAILED: `]);
  expect(code).toBe(1);
  expect(out).toContain('python3 is not installed (.ci/run installs it), and CBM_REQUIRE_PYTHON=1 requires it');
  // workflow-code: its three; python-compat: one failure for its whole block.
  expect(out).toMatch(/Tests:\s+4 failed/);
}, 120_000);

test('no test returns early with a warning (which jest counts as a pass)', () => {
  const files = ['test', 'test/robustness', 'examples'].flatMap((d) =>
    readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.ts')).map((f) => join(d, f)),
  );
  const offenders = files.filter((f) => /return\s+(void\s+)?console\./.test(readFileSync(join(ROOT, f), 'utf8')));
  expect(offenders).toEqual([]);
});
