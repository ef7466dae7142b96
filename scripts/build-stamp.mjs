/**
 * The build's last step: dist/build-stamp.json records what this build of dist/ was made from (a
 * hash of the package's files: everything but what is installed, built or made by running it, and
 * the tests, examples, benchmarks and Python package, none of which the build reads or the tarball
 * ships) and what it made (a hash of every file under dist/). The build starts from an empty
 * dist/, so a dist/ whose files and sources still hash to its stamp is what `npm pack`'s prepack
 * (which deletes dist/ and builds) would make of these sources: test/packed.ts then packs a copy of
 * the tree with that dist/ instead of building it a second time. The stamp itself is not shipped
 * (package.json's `files` takes dist/src and dist/bin).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = 'build-stamp.json';

/**
 * Whether a repository-relative path is installed, built or made by running the package: never
 * part of its sources (test/packed.ts leaves it out of the tree it packs).
 */
export const notSource = (rel) => /^(node_modules|dist|\.git|test-output|\.cloud-browser-mock|coverage)([\\/]|$)|\.tgz$/.test(rel);

/**
 * What the package's hash leaves out: what is not a source, and the sources neither read by the
 * build nor shipped. test/packed.ts keys the tarball by the same files.
 */
export const notInput = (rel) => notSource(rel) || /^(test|examples|bench|python)([\\/]|$)/.test(rel);

/** sha256 over the files under `dir` (sorted; path and bytes) whose path relative to `dir` passes `keep`. */
function hashTree(dir, keep) {
  const hash = createHash('sha256');
  const walk = (abs) => {
    const rel = relative(dir, abs);
    if (rel !== '' && !keep(rel)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) walk(join(abs, name));
    } else {
      hash.update(`${rel.split('\\').join('/')}\0`);
      hash.update(readFileSync(abs));
      hash.update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex');
}

/** The hash of what a build of the package at `root` is made from (and what `npm pack` ships beside dist/). */
export const inputsHash = (root) => hashTree(root, (rel) => !notInput(rel));
/** The hash of every file under `dist` but the stamp. */
export const outputsHash = (dist) => hashTree(dist, (rel) => rel !== STAMP);

/**
 * Whether `dist` (default: root's dist/) holds what the build made from the package at `root` as it
 * is now: a stamp whose inputs are root's files now and whose outputs are dist's files now.
 */
export function stampMatches(root, dist = join(root, 'dist')) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dist, STAMP), 'utf8'));
  } catch {
    return false;
  }
  return stamp.outputs === outputsHash(dist) && stamp.inputs === inputsHash(root);
}

/** Stamps `dist` (default: root's dist/) as the build of the package at `root` as it is now. */
export function writeStamp(root, dist = join(root, 'dist')) {
  writeFileSync(join(dist, STAMP), `${JSON.stringify({ inputs: inputsHash(root), outputs: outputsHash(dist) }, null, 2)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeStamp(fileURLToPath(new URL('..', import.meta.url)));
