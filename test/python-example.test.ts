/**
 * The pytest example (examples/python) as a Python user runs it: the npm package packed from a copy
 * of the tree (prepack deletes dist/ while other jest workers import it), the Python package built
 * into a wheel and installed with pytest, pytest-xdist and requests in a fresh virtual environment,
 * then `pytest -n 2` with CBM_PACKAGE: the plugin installs the tarball once in the controller and
 * each worker starts the installed CLI. No conftest.py: the fixtures are the plugin's. The same
 * tarball then runs by npx without xdist, under its former variable CBM_TARBALL, strict. Skipped
 * with the reason without python3's venv, unless CBM_REQUIRE_PYTHON=1 (.ci/run).
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './helpers.js';
import { testNeeding } from './needs-tool.js';
import { HAS_VENV, NO_VENV, PYTEST, buildPackage, copyPackage, makeVenv, run, userEnv } from './python-venv.js';

const testWithVenv = testNeeding(HAS_VENV, NO_VENV);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
let work: string;
/** What the first test made, for the second: the packed tarball and the venv with the plugin. */
let made: { tarball: string; python: string } | undefined;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cbm-pytest-'));
}, 10_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

testWithVenv(
  'examples/python: pytest -n 2 with the plugin from the built wheel (npx of the packed tarball, installed once) passes the client flow',
  async () => {
    expect(existsSync(join(ROOT, 'examples', 'python', 'conftest.py'))).toBe(false);
    const tree = join(work, 'tree');
    const skip = new Set(['node_modules', 'dist', '.git', 'test-output', '.cloud-browser-mock', 'coverage', 'python']);
    cpSync(ROOT, tree, { recursive: true, filter: (src) => !skip.has(relative(ROOT, src).split(/[\\/]/)[0]) && !src.endsWith('.tgz') });
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const packed = spawnSync('npm', ['pack', '--loglevel', 'error', '--pack-destination', work], { cwd: tree, env: userEnv(), encoding: 'utf8', timeout: 180_000 });
    expect([packed.status, packed.stderr]).toEqual([0, packed.stderr]);

    const tools = makeVenv(join(work, 'tools'), ['build==1.6.1', 'hatchling==1.32.4']);
    const { wheel } = buildPackage(tools, copyPackage(join(work, 'python')), join(work, 'wheel'));
    const python = makeVenv(join(work, 'venv'), [wheel, ...PYTEST, 'requests==2.34.2']);

    // pytest from the repository's examples/python, writing nothing there (no cache, no .pyc).
    const tarball = join(work, `${pkg.name}-${pkg.version}.tgz`);
    made = { tarball, python };
    const pytest = await run(python, ['-m', 'pytest', '-p', 'no:cacheprovider', '-n', '2', join(ROOT, 'examples', 'python')], {
      cwd: work,
      env: { CBM_PACKAGE: tarball },
    });
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b3 passed\b/)]);
    expect(pytest.out).toMatch(/^cloud-browser-mock: --cbm-package \S+\.tgz, installed once for the xdist workers, each of which runs \S*node \S+cli\.js$/m);
  },
  600_000,
);

testWithVenv(
  'package mode by npx, under the former CBM_TARBALL, with --cbm-auth strict: the mock it starts refuses an unknown key',
  async () => {
    expect(made).toBeDefined(); // made by the test above
    const project = join(work, 'strict');
    cpSync(join(ROOT, 'test', 'fixtures', 'python-strict'), project, { recursive: true });
    const pytest = await run(made!.python, ['-m', 'pytest', '-p', 'no:cacheprovider', '--cbm-auth', 'strict', 'test_strict_mock.py'], { cwd: project, env: { CBM_TARBALL: made!.tarball } });
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b2 passed\b/)]);
    expect(pytest.out).toMatch(/^cloud-browser-mock: --cbm-package \S+\.tgz$/m);
  },
  300_000,
);

testWithVenv(
  'package mode by npx with --cbm-spec relative to where pytest runs (npx runs beside the tarball): the operations of that document answer (issue 30)',
  async () => {
    expect(made).toBeDefined(); // made by the first test
    const project = join(work, 'spec');
    cpSync(join(ROOT, 'test', 'fixtures', 'python-spec'), project, { recursive: true });
    cpSync(join(ROOT, 'test', 'fixtures', 'whole-service', 'service.openapi.json'), join(project, 'service.openapi.json'));
    const pytest = await run(made!.python, ['-m', 'pytest', '-p', 'no:cacheprovider', '--cbm-spec', 'service.openapi.json', 'test_whole_service.py'], { cwd: project, env: { CBM_PACKAGE: made!.tarball } });
    expect([pytest.code, pytest.out]).toEqual([0, expect.stringMatching(/\b1 passed\b/)]);
  },
  300_000,
);
