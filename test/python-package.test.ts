/**
 * The Python package (python/) checked the way a Python user meets it: `python -m build` makes the
 * sdist and the wheel; mypy --strict passes; the package's own pytest tests drive every MockControl
 * method against the built CLI; and the pytest plugin, from the built wheel in a fresh virtual
 * environment, runs a scratch project with no conftest.py of its own: connecting with CBM_URL,
 * starting the mock with --cbm-command, one mock per worker under `pytest -n 2`, and a clear error
 * when nothing is configured. The tools come from pip's configured index. Skipped with the reason
 * without python3's venv, unless CBM_REQUIRE_PYTHON=1 (.ci/run).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, startCli } from './cli-process.js';
import { ROOT } from './helpers.js';
import { spawnSync } from 'node:child_process';
import { describeNeeding, testNeeding } from './needs-tool.js';
import { HAS_VENV, NO_VENV, builtPackage, makeVenv, run, type BuiltPackage } from './python-venv.js';

const describeWithVenv = describeNeeding(HAS_VENV, NO_VENV);
/** The oldest Python the package supports, where this machine has it (pyenv, deadsnakes). */
const HAS_PY39 = HAS_VENV && spawnSync('python3.9', ['-c', 'import venv, ensurepip']).status === 0;
const testWithPy39 = testNeeding(HAS_PY39, 'python3.9 with venv is not on PATH', 'CBM_REQUIRE_PYTHON39');

/** On Python 3.9, without pytest (pip's index here has no tomli, which pytest needs there). */
const PY39_CHECK = `
import sys, typing
from datetime import timedelta
import cloud_browser_mock.control_plane as types
from cloud_browser_mock import MockControlError, start_mock_server
assert sys.version_info[:2] == (3, 9), sys.version
for name in types.__all__:
    value = getattr(types, name)
    if isinstance(value, type):
        typing.get_type_hints(value)  # every annotation evaluates on 3.9
assert types.FaultRequest.__required_keys__ == frozenset({"operationId", "status"}), types.FaultRequest.__required_keys__
with start_mock_server(command=sys.argv[1:], admin_token="t") as mock:
    mock.clock.set("2030-01-01T00:00:00Z")
    assert mock.clock.advance(timedelta(days=8))["now"].startswith("2030-01-09T00:00:00")
    fault = mock.faults.add("listSecrets", 503, times=1)
    assert [f["id"] for f in mock.faults.list()] == [fault["id"]]
    try:
        mock.faults.remove("flt_nope")
        raise AssertionError("no error")
    except MockControlError as e:
        assert e.status == 404
    assert mock.principal_of("sk_test_demo") == "user:dev@example.com"
    assert mock.requests() == [] and mock.drift() == [] and mock.coverage()["exercised"] == 0
print("python 3.9: ok")
`;
const COMMAND = `node ${CLI}`;

describeWithVenv('the Python package and its pytest plugin', () => {
  let work: string;
  let built: BuiltPackage;

  // The tools, the build and a user's environment with the wheel are shared with
  // python-example.test.ts (python-venv.ts: made once per content); what runs here gets its own
  // directories. The cases are independent and run at once.
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cbm-python-'));
    built = await builtPackage();
  }, 600_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** A scratch project: one test file using only the `mock` fixture, nothing else. */
  function scratch(name: string): string {
    const dir = join(work, name);
    cpSync(join(ROOT, 'test', 'fixtures', 'python-scratch'), dir, { recursive: true });
    expect(readdirSync(dir)).toEqual(['test_with_the_mock.py']);
    return dir;
  }
  // The mocks pytest starts skip the CLI's warm-up (its test switch, as cli-process.ts's children):
  // about half of a short-lived mock's CPU, and none of these tests is about it.
  const NO_WARM = { NODE_ENV: 'test', CBM_TEST_NO_WARM: '1' };
  const pytest = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) => run(built.user, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...args], { cwd, env: { ...NO_WARM, ...env } });

  test.concurrent('python -m build makes an sdist and a wheel; the wheel declares the pytest11 plugin and is typed', async () => {
    expect(built.sdist).toMatch(/cloud_browser_mock-\d+\.\d+\.\d+\.tar\.gz$/);
    const listing = await run(built.tools, ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print("\\n".join(z.namelist())); print(next(z.read(n).decode() for n in z.namelist() if n.endswith("entry_points.txt")))', built.wheel], { cwd: work });
    expect(listing.code).toBe(0);
    for (const file of ['cloud_browser_mock/__init__.py', 'cloud_browser_mock/plugin.py', 'cloud_browser_mock/control_plane.py', 'cloud_browser_mock/py.typed']) expect(listing.out).toContain(file);
    expect(listing.out).toMatch(/\[pytest11\]\ncloud_browser_mock = cloud_browser_mock\.plugin/);
  });

  test.concurrent('mypy --strict passes on the package and its tests', async () => {
    // No cache written: the built copy is shared.
    const mypy = await run(built.tools, ['-m', 'mypy', '--strict', '--no-incremental', '--cache-dir', '/dev/null', 'src', 'tests'], { cwd: built.source });
    expect([mypy.code, mypy.out]).toEqual([0, expect.stringMatching(/^Success: no issues found/m)]);
  }, 300_000);

  test.concurrent("the package's own tests pass against the built CLI: every MockControl method over HTTP, admin token, errors", async () => {
    // In the user's environment: the tests import the package as installed from the wheel.
    const tests = await run(built.user, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rs', 'tests'], { cwd: built.source, env: { ...NO_WARM, CBM_COMMAND: COMMAND } });
    // test_docker.py's five need CBM_IMAGE: .ci/run's docker-smoke step runs them with the image.
    expect([tests.code, tests.out]).toEqual([0, expect.stringMatching(/^\d+ passed, 5 skipped in /m)]);
    expect(tests.out).not.toMatch(/\b(failed|error)\b/);
    expect(tests.out.match(/^SKIPPED \[1\] tests\/test_docker\.py:\d+: CBM_IMAGE is not set: the Docker mode runs in \.ci\/run's docker-smoke step$/gm)).toHaveLength(5);
  }, 300_000);

  test.concurrent('the plugin from the wheel, in a project with no conftest.py: CBM_URL connects to a running mock, and --cbm-admin-token is sent to one that requires it, which refuses the fixtures without it', async () => {
    const cli = await startCli(['--port', '0', '--in-memory', '--log-level', 'warn', '--admin-token', 's3cret'], { cwd: work });
    try {
      const without = await pytest(scratch('url-without-token'), [], { CBM_URL: cli.url });
      expect(without.code).toBe(1);
      expect(without.out).toMatch(/MockControlError: POST \/__mock\/reset -> 401: /);
      const withToken = await pytest(scratch('url-with-token'), ['--cbm-admin-token', 's3cret'], { CBM_URL: cli.url });
      expect([withToken.code, withToken.out]).toEqual([0, expect.stringMatching(/^4 passed in /m)]);
      expect(withToken.out).not.toContain('no way to reach');
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  }, 300_000);

  /** The tests a fixture project's file defines, by name (read from the file, so a test added there is checked too). */
  const testsOf = (fixture: string, file: string) =>
    [...readFileSync(join(ROOT, 'test', 'fixtures', fixture, file), 'utf8').matchAll(/^def (test_\w+)\(/gm)].map((m) => m[1]);
  /** Each test of `file` has its own PASSED line in `-rA`'s summary of `out`; returns how many there are. */
  function expectPassed(out: string, fixture: string, file: string): number {
    const names = testsOf(fixture, file);
    for (const name of names) expect(out).toMatch(new RegExp(`^PASSED ${file.replace('.', '\\.')}::${name}$`, 'm'));
    return names.length;
  }

  /**
   * A project holding the strict, the spec and the scratch test files, with issue 30's test
   * document beside them, run once with `args` and `env` (and `-rA`, a PASSED line per test): the
   * command-mode cases below share these runs, one mock each, instead of a run and a mock per case.
   * Its result and the id of the first secret the strict file created (CBM_SCRATCH_OUT).
   */
  async function commandProject(name: string, files: string[], args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; secretId: string }> {
    const dir = join(work, name);
    for (const fixture of ['python-strict', 'python-spec', 'python-scratch']) cpSync(join(ROOT, 'test', 'fixtures', fixture), dir, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'whole-service', 'service.openapi.json'), join(dir, 'service.openapi.json'));
    const out = join(dir, 'out');
    mkdirSync(out);
    const result = await pytest(dir, ['-rA', ...files, ...args], { CBM_SCRATCH_OUT: out, ...env });
    return { ...result, secretId: readFileSync(join(out, 'secret-id'), 'utf8') };
  }
  const once = <T,>(make: () => Promise<T>) => {
    let made: Promise<T> | undefined;
    return () => (made ??= make());
  };
  // The strict file first in each, so the first secret is made at the same point of every run.
  const withFlags = once(() =>
    commandProject('command-flags', ['test_strict_mock.py', 'test_whole_service.py', 'test_with_the_mock.py'], ['--cbm-command', COMMAND, '--cbm-auth', 'strict', '--cbm-seed', '7', '--cbm-spec', 'service.openapi.json']),
  );
  const withVariables = once(() =>
    commandProject('command-variables', ['test_strict_mock.py', 'test_whole_service.py'], [], { CBM_COMMAND: COMMAND, CBM_AUTH: 'strict', CBM_SEED: '7', CBM_SPEC: 'service.openapi.json' }),
  );

  test.concurrent('the plugin from the wheel: --cbm-command starts the mock itself', async () => {
    const result = await withFlags();
    expect(expectPassed(result.out, 'python-scratch', 'test_with_the_mock.py')).toBe(4);
    expect([result.code, result.out]).toEqual([0, expect.stringMatching(/^7 passed in /m)]);
  }, 300_000);

  test.concurrent('pytest -n 2 with --cbm-command: each xdist worker starts a mock of its own', async () => {
    const out = join(work, 'xdist-records');
    mkdirSync(out);
    const result = await pytest(scratch('with-xdist'), ['-n', '2', '--cbm-command', COMMAND], { CBM_SCRATCH_OUT: out });
    expect([result.code, result.out]).toEqual([0, expect.stringMatching(/^4 passed in /m)]);
    const records = readdirSync(out).map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as { worker: string; url: string });
    const urlsByWorker = new Map<string, Set<string>>();
    for (const { worker, url } of records) urlsByWorker.set(worker, (urlsByWorker.get(worker) ?? new Set()).add(url));
    expect([...urlsByWorker.keys()].sort()).toEqual(['gw0', 'gw1']);
    for (const urls of urlsByWorker.values()) expect(urls.size).toBe(1);
    expect(new Set(records.map((r) => r.url)).size).toBe(2);
  }, 300_000);

  test.concurrent('the plugin from the wheel, command mode: --cbm-auth strict and --cbm-seed (or CBM_AUTH and CBM_SEED) reach the mock it starts, which refuses an unknown key', async () => {
    const flags = await withFlags();
    expect(expectPassed(flags.out, 'python-strict', 'test_strict_mock.py')).toBe(2);
    expect([flags.code, flags.out]).toEqual([0, expect.stringMatching(/^7 passed in /m)]);
    const variables = await withVariables();
    expect(expectPassed(variables.out, 'python-strict', 'test_strict_mock.py')).toBe(2);
    expect([variables.code, variables.out]).toEqual([0, expect.stringMatching(/^3 passed in /m)]);
    expect(variables.secretId).toBe(flags.secretId);
    // Without them: an open mock takes the made-up key, and another seed makes other ids (the
    // same document as above, so only the seed differs in what makes the ids).
    const open = await commandProject('open-other-seed', ['test_strict_mock.py'], ['--cbm-command', COMMAND, '--cbm-seed', '8', '--cbm-spec', 'service.openapi.json']);
    expect([open.code, open.out]).toEqual([1, expect.stringMatching(/^E +assert 200 == 401$/m)]);
    expect(open.out).toMatch(/^FAILED test_strict_mock\.py::test_a_strict_mock_refuses_a_key_the_scenario_does_not_have(?: - .*)?$/m);
    expect(open.out).toMatch(/^1 failed, 1 passed in /m);
    expect(open.secretId).not.toBe(flags.secretId);
  }, 300_000);

  test.concurrent('the plugin from the wheel, command mode: --cbm-spec (or CBM_SPEC), a path relative to where pytest runs, is the mock\'s --spec (issue 30)', async () => {
    const flag = await withFlags();
    expect(expectPassed(flag.out, 'python-spec', 'test_whole_service.py')).toBe(1);
    expect([flag.code, flag.out]).toEqual([0, expect.stringMatching(/^7 passed in /m)]);
    const variable = await withVariables();
    expect(expectPassed(variable.out, 'python-spec', 'test_whole_service.py')).toBe(1);
    expect([variable.code, variable.out]).toEqual([0, expect.stringMatching(/^3 passed in /m)]);
  }, 300_000);

  test.concurrent('a --cbm-seed the CLI refuses: each test errors with the CLI\'s own line, without a traceback', async () => {
    const result = await pytest(scratch('bad-seed'), ['--cbm-command', COMMAND, '--cbm-seed', 'seven']);
    expect([result.code, result.out]).toEqual([1, expect.stringMatching(/^4 errors in /m)]);
    expect(result.out).toMatch(/^cloud-browser-mock: --seed must be an integer, not "seven" \(exit code 2: node \S+cli\.js .*--seed seven/m);
    expect(result.out).not.toContain('Traceback');
    expect(result.out).not.toContain('During handling');
  }, 300_000);

  test.concurrent('with --cbm-url, the options for a mock the plugin starts are a one-line usage error', async () => {
    const result = await pytest(scratch('url-with-start-options'), ['--cbm-url', 'http://127.0.0.1:9', '--cbm-auth', 'strict', '--cbm-seed', '7']);
    expect(result.code).toBe(4);
    expect(result.out).toContain('ERROR: cloud-browser-mock: --cbm-auth, --cbm-seed are for a mock the plugin starts, and with --cbm-url it starts none: give them to the mock you run\n');
    expect(result.out).not.toContain('Traceback');
    // Their variables are the CLI's own (a sidecar may be configured by them): no error (collected only: nothing answers there).
    const variables = await pytest(scratch('url-with-start-variables'), ['--collect-only'], { CBM_URL: 'http://127.0.0.1:9', CBM_AUTH: 'strict', CBM_SEED: '7' });
    expect([variables.code, variables.out]).toEqual([0, expect.stringMatching(/^4 tests collected in /m)]);
  }, 300_000);

  testWithPy39('on Python 3.9 the built wheel imports, its TypedDicts evaluate, and the handle drives the CLI', async () => {
    const python = makeVenv(join(work, 'py39'), ['--no-deps', built.wheel], 'python3.9');
    const check = await run(python, ['-c', PY39_CHECK, 'node', CLI], { cwd: work });
    expect([check.code, check.out]).toEqual([0, 'python 3.9: ok\n']);
  }, 300_000);

  test.concurrent('with no way to reach or start the mock configured, each test errors naming the options', async () => {
    const result = await pytest(scratch('unconfigured'), []);
    expect(result.code).toBe(1);
    expect(result.out).toContain("cloud-browser-mock: no way to reach or start the mock is configured; give one of --cbm-url URL (CBM_URL), --cbm-command 'node path/to/dist/bin/cli.js' (CBM_COMMAND)");
    expect(result.out).toMatch(/^4 errors in /m);
    expect(result.out).not.toContain('Traceback');
  }, 300_000);
});
