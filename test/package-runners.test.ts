/**
 * The package in other projects' test suites, as docs/testing.md shows it: the packed tarball installed
 * from the registry's way (npm install of the .tgz) with a test runner, and the page's block for that
 * runner run as written — jest in a default CommonJS project (no --experimental-vm-modules), vitest
 * in an ES-module project without globals, and node:test; and tsc picks the types of each condition.
 * One pack serves them all.
 *
 * One install serves them all too: the tarball (with its whole dependency tree) and vitest go into
 * one scratch root, and each runner's project is a folder in it with a package.json of its own
 * (`npm init -y`; the vitest one `type: module`) that resolves the package up to the root's
 * node_modules, as any nested project does. Three installs of the same tree cost about 36 CPU-s of
 * npm's reify, the one install about 12. Jest is this repository's own (the pinned version,
 * checked): what runs the block is the project's own configuration (none: jest's defaults, with
 * the project as rootDir) and the project's own resolution of `require('cloud-browser-mock')`,
 * wherever the jest binary lives.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { readPage } from './doc-pages.js';
import { ROOT } from './helpers.js';
import { packedTarball, run } from './packed.js';

// The runners, pinned: jest as this repository uses it, vitest 3 (its vite 7 installs on npm 11 here).
const JEST = '30.5.2';
const VITEST = 'vitest@3.2.7';

/** docs/testing.md's test-file blocks, by the file name on their first line (`// mock.test.js — jest, CommonJS`). */
function readmeBlocks(): Map<string, string> {
  const readme = readPage('docs/testing.md');
  const blocks = new Map<string, string>();
  for (const m of readme.matchAll(/```(?:js|ts)\n(\/\/ (\S+) — [^\n]+\n[\s\S]*?)```/g)) blocks.set(m[2], m[1]);
  return blocks;
}

let work: string;
const projects: Record<'jest' | 'vitest' | 'nodeTest', Promise<string>> = {} as never;

async function step(command: string, args: string[], dir: string): Promise<void> {
  const r = await run(command, args, dir);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} in ${dir} exited ${r.code}:\n${r.out}`);
}

/**
 * The package.json `npm init -y` writes, made once (in the first project's folder): each npm start
 * costs about a CPU-second, and the file differs between folders only in `name`, which npm takes
 * from the folder's name. The root and the other projects get it with their own name, as
 * `npm init -y` there would write it.
 */
let initialized: Promise<Record<string, unknown>>;
async function npmInitY(dir: string): Promise<void> {
  const pkg = { ...(await initialized), name: basename(dir) };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}

/** The scratch root: `npm init -y`'s package.json, then the tarball and vitest installed. */
async function installRoot(tarball: string): Promise<void> {
  await npmInitY(work);
  // From npm's cache where it holds the packages (no registry round trip per package), and
  // without install scripts: none of these packages needs one to run (esbuild, vitest's, finds
  // its platform's binary package without its postinstall check).
  await step('npm', ['install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel', 'error', tarball, VITEST], work);
}

/** A fresh `npm init -y` project `name` inside the root, once the root's install is done, with docs/testing.md's block for `file`. */
async function project(name: string, file: string, esm: boolean, installed: Promise<void>): Promise<string> {
  const dir = join(work, name);
  await npmInitY(dir);
  // What `npm pkg set type=module` writes.
  if (esm) writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ ...JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), type: 'module' }, null, 2)}\n`);
  const block = readmeBlocks().get(file);
  if (block === undefined) throw new Error(`docs/testing.md has no block starting with "// ${file} — …"`);
  writeFileSync(join(dir, file), block);
  await installed;
  return dir;
}

/**
 * The runners' children one at a time: with one install all four would start the moment it
 * finishes, and the docs' blocks keep their runners' default bounds (jest's 5 s per hook), which
 * four children at once on two busy cores can pass.
 */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(f: () => Promise<T>): Promise<T> {
  const next = queue.then(f, f);
  queue = next.catch(() => {});
  return next;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cbm-runners-'));
  for (const name of ['jest-cjs', 'vitest-esm', 'node-test']) mkdirSync(join(work, name));
  // The real `npm init -y`, in a project folder (npm takes the name from the folder).
  initialized = step('npm', ['init', '-y'], join(work, 'jest-cjs')).then(() => JSON.parse(readFileSync(join(work, 'jest-cjs', 'package.json'), 'utf8')) as Record<string, unknown>);
  initialized.catch(() => {}); // reported by the tests that await it
  const installed = packedTarball().then((p) => installRoot(p.tarball));
  installed.catch(() => {}); // reported by the tests that await it
  // The projects are made while the tarball is packed and installed; each test awaits its own.
  projects.jest = project('jest-cjs', 'mock.test.js', false, installed);
  projects.vitest = project('vitest-esm', 'mock.test.ts', true, installed);
  projects.nodeTest = project('node-test', 'mock.test.mjs', false, installed);
  for (const p of Object.values(projects)) p.catch(() => {}); // reported by the test that awaits it
});
afterAll(async () => {
  await Promise.allSettled(Object.values(projects));
  rmSync(work, { recursive: true, force: true });
}, 600_000);

test('docs/testing.md has one test-file block per runner', () => {
  expect([...readmeBlocks().keys()].sort()).toEqual(['mock.test.js', 'mock.test.mjs', 'mock.test.ts']);
});

test.concurrent('jest in a default CommonJS project (npm init -y) runs the block of docs/testing.md: require() loads the package', async () => {
  const dir = await projects.jest;
  expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
  // This repository's jest, the pinned version, from the project's directory: jest's defaults (the project has no jest configuration).
  const jest = join(ROOT, 'node_modules', 'jest');
  if (JSON.parse(readFileSync(join(jest, 'package.json'), 'utf8')).version !== JEST) throw new Error(`this repository's jest is not ${JEST}: update JEST`);
  const r = await oneAtATime(() => run(process.execPath, [join(jest, 'bin', 'jest.js'), '--ci'], dir));
  expect([r.code, r.out]).toEqual([0, expect.stringMatching(/Tests:\s+2 passed, 2 total/)]);
}, 600_000);

test.concurrent('vitest in an ES-module project without globals runs the block of docs/testing.md', async () => {
  const dir = await projects.vitest;
  const r = await oneAtATime(() => run(join(work, 'node_modules', '.bin', 'vitest'), ['run'], dir));
  expect([r.code, r.out]).toEqual([0, expect.stringMatching(/Tests\s+1 passed \(1\)/)]);
}, 600_000);

test.concurrent('node --test runs the node:test block of docs/testing.md', async () => {
  const dir = await projects.nodeTest;
  const r = await oneAtATime(() => run(process.execPath, ['--test', 'mock.test.mjs'], dir));
  expect([r.code, r.out]).toEqual([0, expect.stringMatching(/# pass 1\n# fail 0/)]);
}, 600_000);

test.concurrent('TypeScript (this repository’s tsc, nodenext) types require() from index.d.cts and import from index.d.ts', async () => {
  const dir = join(await projects.jest, 'types');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'consumer.cts'),
    "import mock = require('cloud-browser-mock');\nexport const started: Promise<mock.MockServer> = mock.startMockServer({ logLevel: 'silent' });\n",
  );
  writeFileSync(
    join(dir, 'consumer.mts'),
    "import { startMockServer, type MockServer } from 'cloud-browser-mock';\nexport const started: Promise<MockServer> = startMockServer({ logLevel: 'silent' });\n",
  );
  const compilerOptions = { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: [] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.cts', 'consumer.mts'] }));
  const r = await oneAtATime(() => run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--explainFiles'], dir));
  expect(r.code).toBe(0);
  // Which declaration file each consumer's import resolved to, as tsc explains it.
  const resolved = [...r.out.matchAll(/^(\S+\/dist\/src\/index\.d\.c?ts)\n((?:   .*\n)+)/gm)].flatMap((m) =>
    [...m[2].matchAll(/Imported via 'cloud-browser-mock' from file '(consumer\.[cm]ts)'/g)].map((i) => `${i[1]} → ${m[1].replace(/^.*\//, '')}`),
  );
  expect(resolved.sort()).toEqual(['consumer.cts → index.d.cts', 'consumer.mts → index.d.ts']);
}, 600_000);
