/**
 * Imports point one way (issue 13): every relative import in src/ goes to a module on its own
 * layer or a lower one, and every src/ file is placed on a layer, so a new file cannot slip past.
 */
import { expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { ROOT } from './helpers.js';

/**
 * Top first. A folder entry ends in "/" and covers everything under it; a file entry is a
 * top-level module. CONTRIBUTING.md's "How it is built" draws the same table. `generated/` is for the
 * operation types generated from the documents (issue 13), which import nothing of ours.
 */
const LAYERS: Array<[name: string, members: string[]]> = [
  ['entry', ['cli.ts', 'cli-args.ts', 'cli-flags.ts', 'startup-checks.ts', 'index.ts', 'index.cts', 'server.ts', 'server-limits.ts', 'testcontainers.ts', 'testcontainers.cts', 'control-client.ts', 'logging.ts']],
  ['app', ['app.ts', 'app/', 'options.ts', 'cors.ts', 'docs.ts', 'landing-page.ts', 'guards/', 'ui/']],
  ['pipeline and control plane', ['pipeline/', 'control-plane/', 'proxy/', 'validation/']],
  ['operations', ['operations/', 'records/', 'workflow/', 'auth.ts']],
  ['http', ['http/']],
  ['store', ['store/', 'scenarios/']],
  ['primitives', ['primitives/', 'python/', 'errors/', 'generated/', 'openapi.ts', 'package-root.ts']],
];

const SRC = join(ROOT, 'src');

/** The layer index of a path relative to src/ (0 is the top), or -1 when no entry covers it. */
export function layerOf(path: string): number {
  return LAYERS.findIndex(([, members]) => members.some((m) => (m.endsWith('/') ? path.startsWith(m) : path === m)));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.c?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [relative(SRC, p).split('\\').join('/')] : [];
  });
}

/** Relative specifiers of static imports, re-exports, `import type` and dynamic `import()`. */
export function importsOf(text: string): string[] {
  const specs: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/g, /\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g, /\bimport\s+['"](\.{1,2}\/[^'"]+)['"]/g];
  for (const re of patterns) for (const m of text.matchAll(re)) specs.push(m[1]);
  return specs;
}

/** "from → to (layer → layer)" for every import in `files` that points up a layer. */
export function upwardImports(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    for (const spec of importsOf(text)) {
      const target = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts');
      const from = layerOf(file);
      const to = layerOf(target);
      if (to >= 0 && to < from) found.push(`${file} → ${target} (${LAYERS[from][0]} → ${LAYERS[to][0]})`);
    }
  }
  return found;
}

const files = new Map(sourceFiles(SRC).map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));

test('every src/ file is on a layer of the table', () => {
  expect([...files.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
});

test('no src/ file imports a module on a layer above its own', () => {
  expect(upwardImports(files)).toEqual([]);
});

test('the check sees an upward import, a type import and a dynamic import', () => {
  const planted = new Map([
    ['store/x.ts', "import { a } from '../operations/types.js';"],
    ['primitives/y.ts', "import type {\n  Clock,\n} from '../store/store.js';"],
    ['http/z.ts', "const m = await import('../app.js');\nexport { b } from '../primitives/clock.js';"],
  ]);
  expect(upwardImports(planted)).toEqual([
    'store/x.ts → operations/types.ts (store → operations)',
    'primitives/y.ts → store/store.ts (primitives → store)',
    'http/z.ts → app.ts (http → app)',
  ]);
});
