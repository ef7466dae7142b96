/**
 * Imports point one way (issues 13 and 25). Three checks on every relative import in src/,
 * `import type` and dynamic `import()` included:
 * - layers: every src/ file is on a layer of the table, and imports only its own layer or lower
 *   ones; the pipeline, the control plane, the proxy and validation are layers of their own;
 * - rooms: no two rooms import each other, directly or round a longer loop (a folder directly
 *   under src/ is a room; a loose file of src/ is a room of its own), so two rooms on one layer
 *   cannot lean on each other either;
 * - loose files: at most LOOSE_FILE_LIMIT source files directly in src/.
 * Each check carries a list of known exceptions, each with its reason and the change that removes
 * it (issue 25's branches and its phase 2); an exception that no longer occurs fails the test, so
 * each list only shrinks, and the checks hold in full once it is empty.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { ROOT } from './helpers.js';

/**
 * Top first. A folder entry ends in "/" and covers everything under it; a file entry is a
 * top-level module. CONTRIBUTING.md's "How it is built" draws the same table. `generated/` is for the
 * operation types generated from the documents (issue 13), which import nothing of ours; `model/`
 * is the workspace data model that both store/ and scenarios/ build on.
 */
const LAYERS: Array<[name: string, members: string[]]> = [
  ['entry', ['cli/', 'index.ts', 'index.cts', 'server.ts', 'testcontainers.ts', 'testcontainers.cts', 'control-client.ts']],
  ['app', ['app.ts', 'app/', 'options.ts', 'web/', 'guards/', 'ui/']],
  ['control plane', ['control-plane/']],
  ['pipeline', ['pipeline/']],
  ['runtime', ['runtime/']],
  ['proxy', ['proxy/']],
  ['validation', ['validation/']],
  ['records', ['records/']],
  ['operations', ['operations/', 'workflow/', 'answers/']],
  ['http', ['http/']],
  ['store', ['store/']],
  ['scenarios', ['scenarios/']],
  ['model', ['model/']],
  ['primitives', ['primitives/', 'python/', 'errors/', 'generated/', 'document/']],
];

/**
 * Imports between rooms that would break the rules, as "from-room → to-room", each with its
 * reason: none today (issue 25 removed the last). An entry no longer needed fails the test.
 */
const KNOWN_ROOM_IMPORTS: Record<string, string> = {
};

/** At most this many source files (.ts and .cts) directly in src/ (issue 25, item 6). */
const LOOSE_FILE_LIMIT = 8;

/**
 * Loose files of src/ on their way into a folder, with where each goes, not counted against the
 * limit while listed: none today (issue 25 moved the command to cli/, the pages to web/, the
 * connection limits to http/, auth to operations/, openapi.ts to document/).
 */
const LOOSE_FILES_TO_MOVE: Record<string, string> = {};

const SRC = join(ROOT, 'src');

/** The layer index of a path relative to src/ (0 is the top), or -1 when no entry covers it. */
export function layerOf(path: string): number {
  return LAYERS.findIndex(([, members]) => members.some((m) => (m.endsWith('/') ? path.startsWith(m) : path === m)));
}

/** The room of a path relative to src/: its top folder ("store/"), or the loose file itself. */
export function roomOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? path : path.slice(0, slash + 1);
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

/** Every import of `files` as [from, to], both relative to src/ with the source extension. */
function importEdges(files: Map<string, string>): Array<[from: string, to: string]> {
  return [...files].flatMap(([file, text]) =>
    importsOf(text).map((spec): [string, string] => [file, posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts')]),
  );
}

const roomEdge = (from: string, to: string) => `${roomOf(from)} → ${roomOf(to)}`;

/** "from → to (layer → layer)" for every import in `files` that points up a layer, known exceptions left out. */
export function upwardImports(files: Map<string, string>, known: Record<string, string> = {}): string[] {
  return importEdges(files)
    .filter(([from, to]) => !(roomEdge(from, to) in known))
    .flatMap(([from, to]) => {
      const [a, b] = [layerOf(from), layerOf(to)];
      return b >= 0 && b < a ? [`${from} → ${to} (${LAYERS[a][0]} → ${LAYERS[b][0]})`] : [];
    });
}

/**
 * The loops among rooms, known exceptions left out: each group of rooms that reach one another
 * (Tarjan's strongly connected components), as "a ⇄ b ⇄ …: file → file; …" naming the imports
 * between them.
 */
export function roomCycles(files: Map<string, string>, known: Record<string, string> = {}): string[] {
  const imports = new Map<string, string[]>();
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of importEdges(files)) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (a === b || roomEdge(from, to) in known) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)!.add(b);
    imports.set(`${a} ${b}`, [...(imports.get(`${a} ${b}`) ?? []), `${from} → ${to}`]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      group.push(w);
      if (w === v) break;
    }
    if (group.length < 2) return;
    group.sort();
    const between = group.flatMap((a) => group.flatMap((b) => imports.get(`${a} ${b}`) ?? []));
    cycles.push(`${group.join(' ⇄ ')}: ${between.join('; ')}`);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

const files = new Map(sourceFiles(SRC).map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));
const looseFiles = [...files.keys()].filter((f) => !f.includes('/'));

describe('layers', () => {
  test('every src/ file is on a layer of the table', () => {
    expect([...files.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  test('no src/ file imports a module on a layer above its own', () => {
    expect(upwardImports(files, KNOWN_ROOM_IMPORTS)).toEqual([]);
  });

  test('the check sees an upward import, a type import and a dynamic import, and one between the split layers', () => {
    const planted = new Map([
      ['store/x.ts', "import { a } from '../operations/types.js';"],
      ['primitives/y.ts', "import type {\n  Clock,\n} from '../store/store.js';"],
      ['http/z.ts', "const m = await import('../app.js');\nexport { b } from '../primitives/clock.js';"],
      ['validation/v.ts', "import type { J } from '../pipeline/service-request.js';"],
      ['proxy/p.ts', "import { d } from '../control-plane/dispatch.js';"],
    ]);
    expect(upwardImports(planted)).toEqual([
      'store/x.ts → operations/types.ts (store → operations)',
      'primitives/y.ts → store/store.ts (primitives → store)',
      'http/z.ts → app.ts (http → app)',
      'validation/v.ts → pipeline/service-request.ts (validation → pipeline)',
      'proxy/p.ts → control-plane/dispatch.ts (proxy → control plane)',
    ]);
  });
});

describe('rooms', () => {
  test('no two rooms of src/ import each other, directly or round a loop', () => {
    expect(roomCycles(files, KNOWN_ROOM_IMPORTS)).toEqual([]);
  });

  test('the check sees two folders, and two loose files, importing each other (type imports count), and a loop of three', () => {
    const planted = new Map([
      ['store/a.ts', "import { s } from '../scenarios/s.js';"],
      ['scenarios/s.ts', "import type { A } from '../store/a.js';"],
      ['one.ts', "export * from './two.js';"],
      ['two.ts', "import type { One } from './one.js';"],
      ['x/x.ts', "import { y } from '../y/y.js';"],
      ['y/y.ts', "import { z } from '../z.js';"],
      ['z.ts', "const x = await import('./x/x.js');"],
      ['lone/l.ts', "import { s } from '../scenarios/s.js';\nimport { l } from './m.js';"],
    ]);
    expect(roomCycles(planted).sort()).toEqual([
      'one.ts ⇄ two.ts: one.ts → two.ts; two.ts → one.ts',
      'scenarios/ ⇄ store/: scenarios/s.ts → store/a.ts; store/a.ts → scenarios/s.ts',
      'x/ ⇄ y/ ⇄ z.ts: x/x.ts → y/y.ts; y/y.ts → z.ts; z.ts → x/x.ts',
    ]);
  });

  test('every known exception still occurs (an entry whose import is gone must be removed)', () => {
    const occurring = new Set(importEdges(files).map(([from, to]) => roomEdge(from, to)));
    expect(Object.keys(KNOWN_ROOM_IMPORTS).filter((edge) => !occurring.has(edge))).toEqual([]);
  });
});

describe('loose files', () => {
  test(`at most ${LOOSE_FILE_LIMIT} source files directly in src/, besides those listed to move`, () => {
    const counted = looseFiles.filter((f) => !(f in LOOSE_FILES_TO_MOVE));
    expect(counted.length <= LOOSE_FILE_LIMIT ? 'within the limit' : `${counted.length} loose files: ${counted.join(', ')}`).toBe('within the limit');
  });

  test('every file listed to move is still a loose file of src/ (a moved one must leave the list)', () => {
    expect(Object.keys(LOOSE_FILES_TO_MOVE).filter((f) => !looseFiles.includes(f))).toEqual([]);
  });
});
