/**
 * Each operation's knowledge in one place (issue 25): no string literal in code outside
 * src/operations/, src/generated/ and src/ui/ equals a service operation id (from openapi.json)
 * or starts with a service path (`/token`, `/secrets`, `/mailboxes`, `/sessions/`) — no
 * comparison with an id, no `case 'getSecret':`, no table keyed by `'/token'`. What the mock knows
 * of an operation lives in its descriptor (src/operations/descriptors.ts); a table of another
 * concern is keyed by identifiers and typed by the generated ids. The source is read by the
 * TypeScript scanner, so comments and TSDoc are not code, and a regular expression is not a string.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringLiterals } from './string-literals.js';
import { ROOT } from './helpers.js';

const SRC = join(ROOT, 'src');
/** Where operation ids and paths belong: the operations, the generated types, the inspector page. */
const EXEMPT = ['operations/', 'generated/', 'ui/'];
const SERVICE_PATHS = ['/token', '/secrets', '/mailboxes', '/sessions/'];

/**
 * Literals that may stay, each with why: text the scanner cannot tell from code (help or log
 * text that is exactly an id or starts with a path). `file` is relative to src/.
 */
interface Allowed {
  file: string;
  literal: string;
  reason: string;
}
const ALLOWED: Allowed[] = [];

const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
const OPERATION_IDS = new Set(Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : []))));

const named = (value: string, ids: ReadonlySet<string>) => ids.has(value) || SERVICE_PATHS.some((p) => value.startsWith(p));

/**
 * "file:line: literal" for each literal of `files` (path relative to src/ → text) that names an
 * operation or a service path, outside the exempt folders and the allow-list; an allow-list
 * entry without a reason, or that matches nothing, is reported too.
 */
export function operationLiterals(files: Map<string, string>, ids: ReadonlySet<string>, allowed: readonly Allowed[]): string[] {
  const found: string[] = [];
  const used = new Set<Allowed>();
  for (const [file, text] of files) {
    if (EXEMPT.some((folder) => file.startsWith(folder))) continue;
    for (const { value, line } of stringLiterals(text)) {
      if (!named(value, ids)) continue;
      const entry = allowed.find((a) => a.file === file && a.literal === value);
      if (entry?.reason.trim()) used.add(entry);
      else found.push(`${file}:${line}: ${JSON.stringify(value)}`);
    }
  }
  for (const a of allowed) {
    if (!a.reason.trim()) found.push(`allow-list entry without a reason: ${a.file} ${JSON.stringify(a.literal)}`);
    else if (!used.has(a)) found.push(`allow-list entry that matches nothing: ${a.file} ${JSON.stringify(a.literal)}`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.c?ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [relative(SRC, p).split('\\').join('/')] : [];
  });
}

test('no code outside src/operations/, src/generated/ and src/ui/ names a service operation id or path', () => {
  const files = new Map(sourceFiles(SRC).map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));
  expect(files.size).toBeGreaterThan(50);
  expect(OPERATION_IDS.has('createToken')).toBe(true);
  expect(operationLiterals(files, OPERATION_IDS, ALLOWED)).toEqual([]);
});

describe('the check, on planted source', () => {
  const ids = new Set(['createToken', 'getSecret']);
  const planted = (text: string, allowed: Allowed[] = []) => operationLiterals(new Map([['pipeline/x.ts', text]]), ids, allowed);

  test('finds a comparison, a switch case, a string table key and paths in templates', () => {
    const text = [
      "if (op.id === 'createToken') go();",
      'switch (id) {',
      '  case "getSecret": break;',
      '}',
      "const t = { '/secrets': 1, other: `/mailboxes/${id}`, deep: `${a ? `x${'/token'}` : ''}/sessions/${s}` };",
    ].join('\n');
    expect(planted(text)).toEqual(['pipeline/x.ts:1: "createToken"', 'pipeline/x.ts:3: "getSecret"', 'pipeline/x.ts:5: "/secrets"', 'pipeline/x.ts:5: "/mailboxes/"', 'pipeline/x.ts:5: "/token"', 'pipeline/x.ts:5: "/sessions/"']);
  });

  test('ignores comments, TSDoc, identifiers, regular expressions and text that only mentions an id', () => {
    const text = [
      "/** Answers like `createToken` does at '/token'. */",
      "// case 'getSecret':",
      'const createToken = handlers.createToken; /* "getSecret" */',
      "const re = /'createToken'|\"\\/secrets\"/; const half = total / 2; const q = 'a' / 'b';",
      "log.info('read through getSecret', `at /api/sessions/${id}`);",
    ].join('\n');
    expect(planted(text)).toEqual([]);
  });

  test('a literal in an exempt folder, or allow-listed with a reason, passes; an entry without one does not', () => {
    expect(operationLiterals(new Map([['operations/x.ts', "case 'createToken':"]]), ids, [])).toEqual([]);
    expect(planted("help('createToken')", [{ file: 'pipeline/x.ts', literal: 'createToken', reason: 'help text naming the operation' }])).toEqual([]);
    expect(planted("help('createToken')", [{ file: 'pipeline/x.ts', literal: 'createToken', reason: ' ' }])).toEqual(['pipeline/x.ts:1: "createToken"', 'allow-list entry without a reason: pipeline/x.ts "createToken"']);
    expect(planted('ok()', [{ file: 'pipeline/x.ts', literal: 'getSecret', reason: 'gone' }])).toEqual(['allow-list entry that matches nothing: pipeline/x.ts "getSecret"']);
  });
});
