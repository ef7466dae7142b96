/**
 * The pytest example (examples/python) as a Python user runs it: the package packed from a copy
 * of the tree (prepack deletes dist/ while other jest workers import it), then pytest, whose
 * conftest starts that tarball through npx, against the example's client flow. Skipped with the
 * reason when python3 with pytest and requests is missing, unless CBM_REQUIRE_PYTHON=1 (.ci/run).
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT } from './helpers.js';

const HAS_PYTEST = spawnSync('python3', ['-c', 'import pytest, requests']).status === 0;
const REQUIRED = process.env.CBM_REQUIRE_PYTHON === '1';
const run = HAS_PYTEST || REQUIRED ? test : test.skip;
const title = HAS_PYTEST || REQUIRED
  ? 'examples/python: pytest with the conftest fixture (npx of the packed tarball) passes the client flow'
  : 'examples/python (skipped: python3 with pytest and requests is not installed; CBM_REQUIRE_PYTHON=1 makes it required)';

/** The environment of a user's shell: none of the npm_* variables that `npm test` sets for us. */
const userEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD'));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cbm-pytest-'));
}, 10_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

run(
  title,
  async () => {
    expect(HAS_PYTEST).toBe(true); // CBM_REQUIRE_PYTHON=1 without pytest: fail, naming it
    const tree = join(work, 'tree');
    const skip = new Set(['node_modules', 'dist', '.git', 'test-output', '.cloud-browser-mock', 'coverage']);
    cpSync(ROOT, tree, { recursive: true, filter: (src) => !skip.has(relative(ROOT, src).split(/[\\/]/)[0]) && !src.endsWith('.tgz') });
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const packed = spawnSync('npm', ['pack', '--loglevel', 'error', '--pack-destination', work], { cwd: tree, env: userEnv(), encoding: 'utf8', timeout: 180_000 });
    expect([packed.status, packed.stderr]).toEqual([0, packed.stderr]);

    // pytest from the repository's examples/python, writing nothing there (no cache, no .pyc).
    const pytest = spawn('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(ROOT, 'examples', 'python')], {
      cwd: work,
      env: { ...userEnv(), PYTHONDONTWRITEBYTECODE: '1', CBM_TARBALL: join(work, `${pkg.name}-${pkg.version}.tgz`), CBM_IMAGE: '' },
    });
    let out = '';
    pytest.stdout.on('data', (d) => (out += d));
    pytest.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => pytest.on('exit', resolve));
    expect([code, out]).toEqual([0, expect.stringMatching(/\b3 passed\b/)]);
  },
  300_000,
);
