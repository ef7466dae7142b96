/**
 * The mock's own paths spelt once (issue 32): no string literal in code outside
 * src/primitives/own-paths.ts and src/generated/ holds `/__mock` or `/health`, or starts with
 * `/docs` or `/openapi.json` — routing, the guards, the near-miss hint and the pages all read the
 * table. The source is read by the TypeScript scanner, so comments and TSDoc are prose, not code,
 * and a regular expression is not a string. And the table is what the mock answers: each of its
 * pages is there at its path, and the landing page links the table's paths.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import request from 'supertest';
import { stringLiterals } from './string-literals.js';
import { createApp, type MockApp } from '../src/app.js';
import { OWN_PATHS } from '../src/primitives/own-paths.js';
import { ROOT } from './helpers.js';

const SRC = join(ROOT, 'src');
const EXEMPT = ['primitives/own-paths.ts', 'generated/'];

/** Whether a literal spells one of the mock's own paths. */
const spellsOwnPath = (value: string) => value.includes('/__mock') || value.includes('/health') || /^\/(docs|openapi\.json)\b/.test(value);

/** "file:line: literal" for each literal of `files` (path relative to src/ → text) that spells an own path outside the table. */
function ownPathLiterals(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    if (EXEMPT.some((e) => file.startsWith(e))) continue;
    for (const { value, line } of stringLiterals(text)) if (spellsOwnPath(value)) found.push(`${file}:${line}: ${JSON.stringify(value)}`);
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

test('no code outside src/primitives/own-paths.ts and src/generated/ spells one of the mock\'s own paths', () => {
  const files = new Map(sourceFiles(SRC).map((f) => [f, readFileSync(join(SRC, f), 'utf8')]));
  expect(files.size).toBeGreaterThan(50);
  expect(ownPathLiterals(files)).toEqual([]);
});

test('the check finds own paths in strings and templates, and leaves comments and regular expressions alone', () => {
  const text = [
    "/** GET /__mock/ui and /health, in prose. */",
    "// app.get('/health')",
    "app.get('/health', ok); const re = /^\\/__mock/;",
    'const u = `${base}/__mock${path}`;',
    "router.get('/docs/', x); const y = '/openapi.json';",
    "const notOurs = '/sessions/docs';",
  ].join('\n');
  expect(ownPathLiterals(new Map([['web/x.ts', text]]))).toEqual(['web/x.ts:3: "/health"', 'web/x.ts:4: "/__mock"', 'web/x.ts:5: "/docs/"', 'web/x.ts:5: "/openapi.json"']);
});

describe('each path of the table is where the mock answers it', () => {
  let app: MockApp;
  beforeAll(async () => {
    app = await createApp({ logLevel: 'silent' });
  });
  afterAll(() => app.mock.close());

  test.each([
    ['health', 200, /json/],
    ['document', 200, /json/],
    ['docs', 200, /html/],
    ['controlPlaneDocs', 200, /html/],
    ['inspector', 200, /html/],
    ['controlPlaneDocument', 200, /json/],
  ] as const)('%s answers %i', async (name, status, type) => {
    const res = await request(app).get(OWN_PATHS[name]);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(type);
  });

  test('the landing page links the inspector and both Swagger UIs at their paths', async () => {
    const res = await request(app).get(OWN_PATHS.landing).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    const links = [...res.text.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(expect.arrayContaining(['/docs', '/openapi.json', '/__mock/ui', '/__mock/docs']));
  });
});
