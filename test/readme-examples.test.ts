/**
 * The documentation's examples are excerpts of files the suite runs: each code block marked
 * `<!-- example: FILE -->`, on any page (README.md, CONTRIBUTING.md, docs/*.md), must appear in
 * FILE, line by line in order (comment lines and `// …` placeholders aside; an import may name
 * the package where the file imports ../src). docs/testing.md shows one per way of testing, as the
 * README's "Testing with the mock" did before it moved there.
 */
import { expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';
import { PAGES, blocks, readPage } from './doc-pages.js';

const examples = (page: string) => blocks(readPage(page)).filter((b) => b.marker?.kind === 'example').map((b) => ({ page, file: b.marker!.value, code: b.code, line: b.line }));
const all = PAGES.flatMap(examples);

/** A line as compared: trimmed; an import only up to its `from` (the package or ../src). */
const key = (line: string) => {
  const t = line.trim();
  return t.startsWith('import ') ? t.split(' from ')[0] : t;
};
const isComment = (t: string) => t.startsWith('//') || t.startsWith('#');

test('docs/testing.md shows one example per way of testing, each naming a file that exists', () => {
  expect(examples('docs/testing.md').map((b) => b.file)).toEqual(['examples/client.test.ts', 'examples/sidecar.test.ts', 'examples/testcontainers.test.ts', 'examples/python/test_client_flow.py']);
  for (const b of all) expect([b.file, existsSync(join(ROOT, b.file))]).toEqual([b.file, true]);
});

test('the README shows a snippet of each of the four ways too', () => {
  expect(new Set(examples('README.md').map((b) => b.file))).toEqual(new Set(['examples/client.test.ts', 'examples/sidecar.test.ts', 'examples/testcontainers.test.ts', 'examples/python/test_client_flow.py']));
});

test.each(all.map((b) => [`${b.page}:${b.line}`, b.file, b.code]))('the example at %s is an excerpt of %s', (_at, file, code) => {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').map(key);
  let at = 0;
  const missing: string[] = [];
  for (const line of code.split('\n').map(key)) {
    if (!line || isComment(line)) continue;
    const found = lines.indexOf(line, at);
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  expect(missing).toEqual([]);
});
