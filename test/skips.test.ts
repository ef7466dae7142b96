/**
 * A test whose tool is missing is a visible skip, never a pass with no assertion: the suites that
 * need python3 run in a child jest on a PATH without it, whose summary must name each skipped
 * test with the reason; with CBM_REQUIRE_PYTHON=1 (as .ci/run sets) the same run must fail.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

const FILES = ['test/python-compat.test.ts', 'test/workflow-code.test.ts'];
/** The two ways the child runs FILES, each a jest project (its name heads each file's PASS/FAIL line). */
const WITHOUT = 'without-python3';
const REQUIRED = 'CBM_REQUIRE_PYTHON=1';

/**
 * One child jest on that PATH, both ways at once: the repository's jest configuration as two
 * projects over FILES, the second with CBM_REQUIRE_PYTHON=1 set in each test file's environment
 * (jest gives every test file its own copy of process.env; a setup file sets it there, before the
 * file's imports read it). One jest start instead of two (~2 CPU-s with the transforms and
 * module graph it loads); the second way now also runs the files' tests that need no tool.
 */
let child: Promise<{ code: number | null; out: string }> | undefined;
function jestWithoutPython(): Promise<{ code: number | null; out: string }> {
  child ??= (async () => {
    const { default: config } = (await import('../jest.config.js')) as { default: Record<string, unknown> };
    // What jest takes per project: the reporters are the run's (named below); in band, its sequencer and workers do not apply.
    const { reporters: _r, testSequencer: _s, maxWorkers: _w, ...project } = config;
    const requirePython = join(bin, 'require-python.cjs');
    writeFileSync(requirePython, "process.env.CBM_REQUIRE_PYTHON = '1';\n");
    const projects = [
      { name: WITHOUT, setupFiles: [] as string[] },
      { name: REQUIRED, setupFiles: [requirePython] },
    ].map(({ name, setupFiles }) => {
      const file = join(bin, `${name.replace(/\W/g, '-')}.config.json`);
      writeFileSync(file, JSON.stringify({ ...project, rootDir: ROOT, displayName: name, setupFiles }));
      return file;
    });
    const env: Record<string, string | undefined> = { ...process.env, PATH: bin, NODE_OPTIONS: '--experimental-vm-modules' };
    delete env.CBM_REQUIRE_PYTHON;
    // In band: four small files do not need jest's worker processes (each one more Node, swc and module graph to start).
    // Given projects, jest takes no run options from jest.config.js: its reporters are named here.
    const reporters = (config.reporters as string[]).map((r) => `--reporters=${r.replace('<rootDir>', ROOT)}`);
    const proc = spawn(process.execPath, [join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--runInBand', ...reporters, '--projects', ...projects, '--runTestsByPath', ...FILES], { cwd: ROOT, env });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    return new Promise((resolve) => proc.on('close', (code) => resolve({ code, out })));
  })();
  return child;
}

/** The files jest reports as failed, by project: `<project> <file>`. */
const failedFiles = (out: string) => [...out.matchAll(/^FAIL (\S+) (test\/\S+)/gm)].map((m) => `${m[1]} ${m[2]}`).sort();

test('without python3 the tests that need it are skipped, and the summary names each with its reason', async () => {
  const { out } = await jestWithoutPython();
  // Its run passes: none of its files fails (python-compat, all skipped, counts as a skipped suite).
  expect([failedFiles(out).filter((f) => f.startsWith(`${WITHOUT} `)), out]).toEqual([[], expect.stringContaining('Skipped tests (')]);
  expect(out).toMatch(/Test Suites:\s+2 failed, 1 skipped, 1 passed, 3 of 4 total/);
  const skipped = out.split('\n').filter((l) => l.startsWith('  ○ '));
  const inFile = (file: string, reason: string) => skipped.filter((l) => l.includes(file) && l.includes(`[SKIPPED: ${reason}`));
  // python-compat: its three comparisons; workflow-code: parse, run, and sess_demo's model.
  expect(inFile('python-compat.test.ts', 'python3 is not installed').length).toBe(3);
  expect(inFile('workflow-code.test.ts', 'python3 is not installed').length).toBe(1);
  expect(inFile('workflow-code.test.ts', 'python3 >= 3.10 with pydantic 2 is not available').length).toBe(2);
  // Both projects together: the second skips nothing (what the first skips, it fails: the next case).
  expect(out).toMatch(/Tests:\s+4 failed, 6 skipped, \d+ passed/);
}, 120_000);

test('with CBM_REQUIRE_PYTHON=1 a missing python3 fails them, naming what is missing', async () => {
  // A test that needs python3 but ignored CBM_REQUIRE_PYTHON=1 would be skipped or pass without
  // the [FAILED: …] mark and be missing from the count of failures (the first project, the case
  // above, fails none).
  const { code, out } = await jestWithoutPython();
  expect(code).toBe(1);
  expect(failedFiles(out).filter((f) => f.startsWith(`${REQUIRED} `))).toEqual(FILES.map((f) => `${REQUIRED} ${f}`));
  expect(out).toContain('python3 is not installed (.ci/run installs it), and CBM_REQUIRE_PYTHON=1 requires it');
  // workflow-code: its three; python-compat: one failure for its whole block.
  expect(out).toMatch(/Tests:\s+4 failed/);
  expect(out.split('\n').filter((l) => /^\s+● .*\[FAILED: /.test(l))).toHaveLength(4);
}, 120_000);

test('no test returns early with a warning (which jest counts as a pass)', () => {
  const files = ['test', 'test/robustness', 'examples'].flatMap((d) =>
    readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.ts')).map((f) => join(d, f)),
  );
  const offenders = files.filter((f) => /return\s+(void\s+)?console\./.test(readFileSync(join(ROOT, f), 'utf8')));
  expect(offenders).toEqual([]);
});
