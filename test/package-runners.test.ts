/**
 * The package in other projects' test suites, as docs/testing.md shows it: the packed tarball installed
 * into fresh projects with a test runner from the registry, and the page's block for that runner
 * run as written — jest in a default CommonJS project (no --experimental-vm-modules), vitest in an
 * ES-module project without globals, and node:test; and tsc picks the types of each condition.
 * One pack serves them all.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPage } from './doc-pages.js';
import { ROOT } from './helpers.js';
import { packedTarball, run } from './packed.js';

// The runners, pinned: jest as this repository uses it, vitest 3 (its vite 7 installs on npm 11 here).
const JEST = 'jest@30.5.2';
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

/** A fresh `npm init -y` project with the tarball and `packages` installed, and docs/testing.md's block for `file`. */
async function project(name: string, file: string, packages: string[], esm: boolean, tarball: string): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  const steps: [string, string[]][] = [
    ['npm', ['init', '-y']],
    ...(esm ? [['npm', ['pkg', 'set', 'type=module']] as [string, string[]]] : []),
    // From npm's cache where it holds the packages (no registry round trip per package), and
    // without install scripts: none of these packages needs one to run (esbuild, vitest's, finds
    // its platform's binary package without its postinstall check). Together the two cut this
    // file's CPU by about a quarter.
    ['npm', ['install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel', 'error', tarball, ...packages]],
  ];
  for (const [command, args] of steps) {
    const r = await run(command, args, dir);
    if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} in ${name} exited ${r.code}:\n${r.out}`);
  }
  const block = readmeBlocks().get(file);
  if (block === undefined) throw new Error(`docs/testing.md has no block starting with "// ${file} — …"`);
  writeFileSync(join(dir, file), block);
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cbm-runners-'));
  const packed = packedTarball();
  // The three installs run at once, once the tarball is there; each test awaits its own.
  projects.jest = packed.then((p) => project('jest-cjs', 'mock.test.js', [JEST], false, p.tarball));
  projects.vitest = packed.then((p) => project('vitest-esm', 'mock.test.ts', [VITEST], true, p.tarball));
  projects.nodeTest = packed.then((p) => project('node-test', 'mock.test.mjs', [], false, p.tarball));
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
  const r = await run(join(dir, 'node_modules', '.bin', 'jest'), ['--ci'], dir);
  expect([r.code, r.out]).toEqual([0, expect.stringMatching(/Tests:\s+2 passed, 2 total/)]);
}, 600_000);

test.concurrent('vitest in an ES-module project without globals runs the block of docs/testing.md', async () => {
  const dir = await projects.vitest;
  const r = await run(join(dir, 'node_modules', '.bin', 'vitest'), ['run'], dir);
  expect([r.code, r.out]).toEqual([0, expect.stringMatching(/Tests\s+1 passed \(1\)/)]);
}, 600_000);

test.concurrent('node --test runs the node:test block of docs/testing.md', async () => {
  const dir = await projects.nodeTest;
  const r = await run(process.execPath, ['--test', 'mock.test.mjs'], dir);
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
  const r = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--explainFiles'], dir);
  expect(r.code).toBe(0);
  // Which declaration file each consumer's import resolved to, as tsc explains it.
  const resolved = [...r.out.matchAll(/^(\S+\/dist\/src\/index\.d\.c?ts)\n((?:   .*\n)+)/gm)].flatMap((m) =>
    [...m[2].matchAll(/Imported via 'cloud-browser-mock' from file '(consumer\.[cm]ts)'/g)].map((i) => `${i[1]} → ${m[1].replace(/^.*\//, '')}`),
  );
  expect(resolved.sort()).toEqual(['consumer.cts → index.d.cts', 'consumer.mts → index.d.ts']);
}, 600_000);
