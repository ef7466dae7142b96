/**
 * A plain `git clone` passes its tests: no test reads outside the repository. (.ci/run proves it
 * by running the suite in a clone with nothing beside it; this names the offending file sooner.)
 */
import { expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './helpers.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|js|mjs|py)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

test('no test or example names a path above the repository root (such as ../shared)', () => {
  const above = [/\.\.\/shared\b/, new RegExp(`['"]\\.\\.['"],\\s*['"]shared['"]`), /join\(ROOT,\s*['"]\.\.['"]/];
  const files = [...sources(join(ROOT, 'test')), ...sources(join(ROOT, 'examples'))].filter((f) => !f.endsWith('standalone.test.ts'));
  expect(files.length).toBeGreaterThan(20);
  const offenders = files.filter((f) => above.some((re) => re.test(readFileSync(f, 'utf8')))).map((f) => relative(ROOT, f));
  expect(offenders).toEqual([]);
});

test('the recorded FastAPI answers are in the repository, saying what they are', () => {
  const recorded = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'fastapi-examples.json'), 'utf8'));
  expect(recorded.description).toMatch(/^Answers recorded from a FastAPI application of the contract/);
  expect(recorded.examples.length).toBeGreaterThan(80);
});
