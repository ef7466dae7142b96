/**
 * The Python package (python/) as a user gets it: built into an sdist and a wheel with
 * `python -m build`, installed into fresh virtual environments with pip from its configured
 * index. For test/python-package.test.ts and test/python-example.test.ts, which share what
 * `builtPackage()` makes: the tools' environment, the build, and a user's environment with the
 * wheel, each made once per content (build-cache.ts).
 */
import { spawnSync, spawn, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cached, hashFiles } from './build-cache.js';
import { ROOT } from './helpers.js';
import { HAS_VENV, PYTHON3, PYTHON_HAS_PIP, PYTHON_VERSION } from './python3.js';

/** The tools, pinned: what .ci/run's pip index serves. */
export const PY_TOOLS = ['build==1.6.1', 'hatchling==1.32.4', 'mypy==2.4.0', 'pytest==9.1.1', 'pytest-xdist==3.8.0'];
export const PYTEST = ['pytest==9.1.1', 'pytest-xdist==3.8.0'];
/** What examples/python's client flow needs beside pytest. */
export const REQUESTS = 'requests==2.34.2';

// python3's executable, version and pip, from the one start of it python3.ts makes.
export { HAS_VENV };
export const NO_VENV = 'python3 with venv and ensurepip is not installed (apt-get install python3-venv; .ci/run installs it)';

/** The environment of a user's shell: none of the npm_* variables that `npm test` sets for us. */
export const userEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD' && !k.startsWith('CBM_')));

/**
 * pip without retries unless told otherwise: the configured index here is local, and an
 * unreachable default index would cost pip about 50 s of retries per install.
 */
const pipEnv = () => ({ ...userEnv(), PIP_RETRIES: process.env.PIP_RETRIES ?? '0', PIP_DISABLE_PIP_VERSION_CHECK: '1', PYTHONDONTWRITEBYTECODE: '1' });

function check(what: string, run: SpawnSyncReturns<string>): string {
  if (run.status !== 0) throw new Error(`${what} failed (${run.status ?? run.signal}):\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/**
 * A fresh virtual environment of `interpreter` under `dir` with `packages` installed; returns its
 * python. Given `pipOf`, the python of an environment that has pip, the new one is made without
 * pip of its own (`--without-pip`: seeding pip into a venv costs about 6 s of CPU, as much as the
 * rest of the environment) and that pip installs into it (`pip --python`).
 */
export function makeVenv(dir: string, packages: string[], interpreter = PYTHON3, pipOf?: string, opts: { compile?: boolean } = {}): string {
  check(`${interpreter} -m venv`, spawnSync(interpreter, ['-m', 'venv', ...(pipOf ? ['--without-pip'] : []), dir], { encoding: 'utf8' }));
  const python = join(dir, 'bin', 'python');
  const pip = pipOf ? [pipOf, ['-m', 'pip', '--python', python]] as const : [python, ['-m', 'pip']] as const;
  const compile = opts.compile === false ? ['--no-compile'] : [];
  if (packages.length) check(`pip install ${packages.join(' ')}`, spawnSync(pip[0], [...pip[1], 'install', '--quiet', ...compile, ...packages], { encoding: 'utf8', env: pipEnv() }));
  return python;
}

/** A copy of python/ (build and mypy write caches beside the sources), without build output. */
export function copyPackage(to: string): string {
  const skip = new Set(['dist', '.mypy_cache', '.pytest_cache', '__pycache__']);
  cpSync(join(ROOT, 'python'), to, { recursive: true, filter: (src) => !relative(join(ROOT, 'python'), src).split(/[\\/]/).some((part) => skip.has(part) || part.endsWith('.egg-info')) });
  return to;
}

/**
 * `python -m build` of a copy of python/ with the tools venv's hatchling; returns [sdist, wheel].
 * Bytecode may be written here: the tools venv is installed without it (see builtPackage), and
 * build's four hook processes each import hatchling, which the first one then compiles for all.
 */
export function buildPackage(toolsPython: string, source: string, outDir: string): { sdist: string; wheel: string } {
  check('python -m build', spawnSync(toolsPython, ['-m', 'build', '--no-isolation', '--sdist', '--wheel', '--outdir', outDir, source], { encoding: 'utf8', env: { ...pipEnv(), PYTHONDONTWRITEBYTECODE: '' } }));
  const files = readdirSync(outDir);
  const find = (suffix: string) => {
    const name = files.find((f) => f.endsWith(suffix));
    if (!name) throw new Error(`python -m build made no ${suffix} in ${outDir}: ${files.join(', ')}`);
    return join(outDir, name);
  };
  return { sdist: find('.tar.gz'), wheel: find('.whl') };
}

/** Runs a command to its end, waiting for its exit (asynchronously, so jest stays responsive). */
export function run(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string }> {
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...pipEnv(), ...opts.env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/** Files python -m build leaves out of a copy (copyPackage) are left out of the key too. */
const notBuilt = (rel: string) => rel.split(/[\\/]/).some((part) => ['dist', '.mypy_cache', '.pytest_cache', '__pycache__'].includes(part) || part.endsWith('.egg-info'));

export interface BuiltPackage {
  /** The tools' python (PY_TOOLS): build, hatchling, mypy, pytest. */
  tools: string;
  /** A copy of python/ as it was built (mypy and the package's own tests run in it). */
  source: string;
  sdist: string;
  wheel: string;
  /** The python of a user's environment: the wheel installed with pytest, pytest-xdist and requests. */
  user: string;
}

/**
 * The tools' environment (keyed by the pinned tools), the sdist and wheel of python/ as it is,
 * and a user's environment with that wheel (both keyed by python/'s files and the tools) — each
 * made once, whichever test file asks first.
 */
export async function builtPackage(): Promise<BuiltPackage> {
  const interpreter = PYTHON_VERSION;
  // Where python3 has a pip of its own (pyenv, python.org builds; Debian's has none), it fills
  // both environments, neither of which then needs pip seeded into it.
  const systemPip = PYTHON_HAS_PIP ? PYTHON3 : undefined;
  // The tools' packages are not byte-compiled at install (pip's default): mypy, most of what is
  // installed, runs compiled extension modules that Python imports before any .py, so compiling
  // its sources cost about 3.5 CPU-s for nothing; build, run once per content, writes its own.
  const toolsKey = hashFiles([], undefined, [interpreter, systemPip ? 'system pip' : 'own pip', 'no-compile', ...PY_TOOLS]);
  const toolsDir = await cached('py-tools', toolsKey, (dir) => void makeVenv(join(dir, 'venv'), PY_TOOLS, PYTHON3, systemPip, { compile: false }));
  const tools = join(toolsDir, 'venv', 'bin', 'python');
  const key = hashFiles(['python'], notBuilt, [interpreter, ...PY_TOOLS, ...PYTEST, REQUESTS]);
  const dir = await cached('py-package', key, (d) => {
    const { wheel } = buildPackage(tools, copyPackage(join(d, 'source')), join(d, 'dist'));
    makeVenv(join(d, 'user'), [wheel, ...PYTEST, REQUESTS], PYTHON3, systemPip ?? tools);
  });
  const files = readdirSync(join(dir, 'dist'));
  const find = (suffix: string) => join(dir, 'dist', files.find((f) => f.endsWith(suffix))!);
  return { tools, source: join(dir, 'source'), sdist: find('.tar.gz'), wheel: find('.whl'), user: join(dir, 'user', 'bin', 'python') };
}
