/**
 * The package as users get it: `npm pack` run in a copy of the source tree (prepack deletes dist/
 * and rebuilds, which must not happen under the other test files importing it), with what must
 * not ship planted in the copy: a data directory, no dist/, the repository's node_modules linked.
 * Packed once per content (build-cache.ts): every test file that installs or inspects the tarball
 * shares the one `packedTarball()` makes. Where the repository's dist/ is what the build made of
 * the sources as they are (its stamp matches, scripts/build-stamp.mjs; `npm test`'s pretest has
 * just built it), the copy gets that dist/ and is packed without prepack's second build of the
 * same bytes (about 8 CPU-s of tsc and esbuild).
 */
import { expect } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cached, hashFiles } from './build-cache.js';
import { ROOT } from './helpers.js';
import { notInput, notSource, stampMatches } from '../scripts/build-stamp.mjs';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
export const TARBALL = `${pkg.name}-${pkg.version}.tgz`;

/** The environment of a user's shell: none of the npm_* variables (or NODE_OPTIONS) that `npm test` sets for us. */
export const userEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD'));

/**
 * Packs a copy of the tree into `work`; returns the tarball's file list (sorted). Given `builtDist`,
 * a dist/ the build made of these very sources (stampMatches), the copy gets it (all of it: what
 * must not ship, dist/scripts, is there as after prepack's build) and npm packs it without running
 * prepack; otherwise prepack builds the copy's dist/ from nothing.
 */
export function packCopy(work: string, builtDist?: string): string[] {
  const tree = join(work, 'tree');
  cpSync(ROOT, tree, { recursive: true, filter: (src) => !notSource(relative(ROOT, src)) });
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  mkdirSync(join(tree, '.cloud-browser-mock'));
  writeFileSync(join(tree, '.cloud-browser-mock', 'meta.json'), '{}');
  if (builtDist) cpSync(builtDist, join(tree, 'dist'), { recursive: true });
  const args = ['pack', '--json', '--loglevel', 'error', '--pack-destination', work, ...(builtDist ? ['--ignore-scripts'] : [])];
  const packed = spawnSync('npm', args, { cwd: tree, env: userEnv(), encoding: 'utf8', timeout: 120_000 });
  expect([packed.status, packed.stderr]).toEqual([0, packed.stderr]);
  return (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { files: { path: string }[] }[])[0].files.map((f) => f.path).sort();
}

/**
 * The tarball of `packCopy`, packed once for the sources as they are: keyed by every file the copy
 * holds except the tests, examples, benchmarks and the Python package (none of which the build
 * reads or the tarball ships), with node's and the lock file's versions in the key. Returns its
 * path and its file list (sorted).
 */
export async function packedTarball(): Promise<{ tarball: string; files: string[] }> {
  const key = hashFiles(['.'], (rel) => rel !== '' && notInput(rel), [process.version]);
  const dir = await cached('npm-pack', key, (work) => {
    const built = stampMatches(ROOT) ? join(ROOT, 'dist') : undefined;
    const files = packCopy(work, built);
    // Which way it was packed, for whoever looks into the cache.
    writeFileSync(join(work, 'packed-with.txt'), built ? `the repository's dist/ (stamp matched)\n` : `prepack's build\n`);
    rmSync(join(work, 'tree'), { recursive: true, force: true });
    writeFileSync(join(work, 'files.json'), JSON.stringify(files));
  });
  return { tarball: join(dir, TARBALL), files: JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8')) as string[] };
}

/**
 * Runs a command to its end: exit code and everything it printed, without terminal colours (some
 * runners colour their summary when CI=true is set, as CI sets it, even into a pipe).
 */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = userEnv()): Promise<{ code: number | null; out: string }> {
  const child = spawn(command, args, { cwd, env });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // eslint-disable-next-line no-control-regex
    child.on('close', (code) => resolve({ code, out: out.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}
