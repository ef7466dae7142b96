/**
 * The pytest example (examples/python) as a Python user runs it: the npm package packed from a copy
 * of the tree (prepack deletes dist/ while other jest workers import it), the Python package built
 * into a wheel and installed with pytest, pytest-xdist and requests in a fresh virtual environment,
 * then `pytest -n 2` with CBM_PACKAGE: the plugin installs the tarball once in the controller and
 * each worker starts the installed CLI. No conftest.py: the fixtures are the plugin's. The tarball,
 * the wheel and its environment are the ones the other test files use (packed.ts, python-venv.ts:
 * made once per content). The same tarball then runs by npx without xdist, under its former
 * variable CBM_TARBALL, strict, and with --cbm-spec. Skipped with the reason without python3's venv, unless
 * CBM_REQUIRE_PYTHON=1 (.ci/run).
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ROOT } from './helpers.js';
import { testNeeding } from './needs-tool.js';
import { packedTarball } from './packed.js';
import { HAS_VENV, NO_VENV, builtPackage, run } from './python-venv.js';

const testWithVenv = testNeeding(HAS_VENV, NO_VENV);
/** The mocks the plugin starts skip the CLI's warm-up (its test switch, as test/cli-process.ts's children). */
const NO_WARM = { NODE_ENV: 'test', CBM_TEST_NO_WARM: '1' };
/**
 * The plugin's npm install and npx take what npm's cache already holds of the tarball's 140
 * dependencies (from the `npm install` before `npm test`, or this file's other install) without
 * asking the registry again about each (npm's own setting, as a user's .npmrc may set it; what is
 * missing is still fetched): about 2 CPU-s and 15-30 s of waiting per install, and nothing the
 * plugin does depends on it.
 */
const NPM_CACHED = { npm_config_prefer_offline: 'true' };
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cbm-pytest-'));
}, 10_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

testWithVenv(
  'examples/python: pytest -n 2 with the plugin from the built wheel (npx of the packed tarball, installed once) passes the client flow',
  async () => {
    expect(existsSync(join(ROOT, 'examples', 'python', 'conftest.py'))).toBe(false);
    const { tarball, python } = await tarballAndPython();

    // pytest from the repository's examples/python, writing nothing there (no cache, no .pyc).
    const pytest = await run(python, ['-m', 'pytest', '-p', 'no:cacheprovider', '-n', '2', join(ROOT, 'examples', 'python')], {
      cwd: work,
      env: { ...NO_WARM, ...NPM_CACHED, CBM_PACKAGE: tarball },
    });
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b3 passed\b/)]);
    expect(pytest.out).toMatch(/^cloud-browser-mock: --cbm-package \S+\.tgz, installed once for the xdist workers, each of which runs \S*node \S+cli\.js$/m);
  },
  600_000,
);

/**
 * The shared tarball copied once into this file's own directory (npx runs beside it: not in the
 * shared cache), and the wheel's environment. One copy for every case, not one in each project:
 * each project (where pytest runs) is then another directory than the one npx runs in.
 */
let copied: Promise<string> | undefined;
async function tarballAndPython(): Promise<{ tarball: string; python: string }> {
  copied ??= packedTarball().then((packed) => {
    const tarball = join(work, 'package', basename(packed.tarball));
    mkdirSync(join(work, 'package'));
    copyFileSync(packed.tarball, tarball);
    return tarball;
  });
  const [tarball, { user: python }] = await Promise.all([copied, builtPackage()]);
  return { tarball, python };
}

/**
 * One pytest run by npx for the two package-mode cases below (npx reinstalls a .tgz spec on every
 * run, about 6 CPU-s each: its cache never matches a file tarball): a project holding both test
 * files, the mock started strict with --cbm-spec, under the former variable CBM_TARBALL. `-rA`
 * prints a PASSED line per test, so each case asserts its own tests' outcome.
 */
let byNpx: Promise<{ code: number | null; out: string }> | undefined;
function packageModeRun(): Promise<{ code: number | null; out: string }> {
  byNpx ??= (async () => {
    const project = join(work, 'by-npx');
    cpSync(join(ROOT, 'test', 'fixtures', 'python-strict'), project, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'python-spec'), project, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'whole-service', 'service.openapi.json'), join(project, 'service.openapi.json'));
    const { tarball, python } = await tarballAndPython();
    const args = ['-m', 'pytest', '-p', 'no:cacheprovider', '-rA', '--cbm-auth', 'strict', '--cbm-spec', 'service.openapi.json', 'test_strict_mock.py', 'test_whole_service.py'];
    return run(python, args, { cwd: project, env: { ...NO_WARM, ...NPM_CACHED, CBM_TARBALL: tarball } });
  })();
  return byNpx;
}

testWithVenv(
  'package mode by npx, under the former CBM_TARBALL, with --cbm-auth strict: the mock it starts refuses an unknown key',
  async () => {
    const pytest = await packageModeRun();
    expect(pytest.out).toMatch(/^cloud-browser-mock: --cbm-package \S+\.tgz$/m);
    expect(pytest.out).toMatch(/^PASSED test_strict_mock\.py::test_a_strict_mock_refuses_a_key_the_scenario_does_not_have$/m);
    expect(pytest.out).toMatch(/^PASSED test_strict_mock\.py::test_the_first_secret_id_follows_the_seed$/m);
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b3 passed\b/)]);
  },
  300_000,
);

testWithVenv(
  'package mode by npx with --cbm-spec relative to where pytest runs (npx runs beside the tarball): the operations of that document answer (issue 30)',
  async () => {
    const pytest = await packageModeRun();
    expect(pytest.out).toMatch(/^PASSED test_whole_service\.py::test_an_operation_of_the_given_document_answers$/m);
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b3 passed\b/)]);
  },
  300_000,
);
