/**
 * Every fenced code block in README.md, CONTRIBUTING.md and docs/*.md says how it is checked —
 * `<!-- example: FILE -->` (an excerpt of a file the suite runs; test/readme-examples.test.ts
 * compares it), `<!-- run-by: TEST "title" -->` (a test that reads the page and runs the block
 * as written) or `<!-- not-run: REASON -->` — and every relative link and #anchor between the
 * pages resolves with GitHub's heading slugs. Each check is first shown failing on a planted page.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';
import { PAGES, anchors, blocks, brokenLinks, readPage, repoExists, repoRead, slug } from './doc-pages.js';

/** What is wrong with the markers of `page`'s blocks; `[]` when every block has a valid one. */
function markerProblems(page: string, text: string, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  return blocks(text).flatMap((b) => {
    const where = `${page}:${b.line} (\`\`\`${b.lang})`;
    if (!b.marker) return [`${where}: no <!-- example: FILE -->, <!-- run-by: TEST "title" --> or <!-- not-run: REASON --> above it`];
    const { kind, value } = b.marker;
    if (kind === 'example') return exists(value) ? [] : [`${where}: example file ${value} does not exist`];
    if (kind === 'not-run') return value.length >= 10 ? [] : [`${where}: not-run needs a reason, got "${value}"`];
    const m = /^(\S+) "(.+)"$/.exec(value);
    if (!m) return [`${where}: run-by must be TEST "title", got ${value}`];
    if (!exists(m[1])) return [`${where}: run-by test ${m[1]} does not exist`];
    const source = read(m[1]);
    const problems: string[] = [];
    if (!source.includes(m[2])) problems.push(`${where}: ${m[1]} has no test titled "${m[2]}…"`);
    if (!source.includes(`'${page}'`)) problems.push(`${where}: ${m[1]} does not read ${page}`);
    return problems;
  });
}

const readRepo = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('the checkers, on a planted page', () => {
  const files = new Set(['docs/a.md', 'docs/b.md', 'README.md', 'test/x.test.ts', 'examples/e.ts']);
  const pages: Record<string, string> = {
    'docs/b.md': '# Page B\n\n## Run it with `npx` (fast)\n\n## Run it with `npx` (fast)\n\n```sh\n# not a heading\n```\n',
    'test/x.test.ts': "readPage('docs/a.md'); test('runs the block', () => {});",
  };
  const exists = (p: string) => files.has(p);
  const read = (p: string) => pages[p] ?? '';

  test('slugs follow GitHub: lower case, punctuation and backticks dropped, spaces to hyphens, repeats numbered', () => {
    expect(slug('The inspector (`/__mock/ui`)')).toBe('the-inspector-__mockui');
    expect(slug('Behaviours the contract leaves to us ("chosen")')).toBe('behaviours-the-contract-leaves-to-us-chosen');
    expect([...anchors(pages['docs/b.md'])]).toEqual(['page-b', 'run-it-with-npx-fast', 'run-it-with-npx-fast-1']);
  });

  test('a block without a marker, a missing example file, a run-by test that lacks the title or does not read the page, all fail', () => {
    const page = [
      '<!-- example: examples/e.ts -->', '```ts', 'ok()', '```',
      '<!-- not-run: needs Docker, which npm test lacks -->', '```sh', 'docker ps', '```',
      '<!-- run-by: test/x.test.ts "runs the block" -->', '```sh', 'true', '```',
      '```sh', 'unmarked', '```',
      '<!-- example: examples/gone.ts -->', '```ts', 'x', '```',
      '<!-- run-by: test/x.test.ts "no such test" -->', '```sh', 'x', '```',
    ].join('\n');
    expect(markerProblems('docs/a.md', page, exists, read)).toEqual([
      'docs/a.md:13 (```sh): no <!-- example: FILE -->, <!-- run-by: TEST "title" --> or <!-- not-run: REASON --> above it',
      'docs/a.md:17 (```ts): example file examples/gone.ts does not exist',
      'docs/a.md:21 (```sh): test/x.test.ts has no test titled "no such test…"',
    ]);
    expect(markerProblems('docs/c.md', '<!-- run-by: test/x.test.ts "runs the block" -->\n```sh\ntrue\n```\n', exists, read)).toEqual([
      'docs/c.md:2 (```sh): test/x.test.ts does not read docs/c.md',
    ]);
  });

  test('a link to a missing file or a missing #anchor fails; good links, external ones, links in code and code spans pass', () => {
    const page = [
      '# A', '', '## Local part', '',
      'See [b](b.md), [its npx](b.md#run-it-with-npx-fast-1), [here](#local-part), [readme](../README.md), [web](https://example.com/x#y).',
      '`[not a link](nowhere.md)`', '```md', '[inside code](nowhere.md)', '```',
      'Broken: [gone](c.md), [no anchor](b.md#run-it-in-docker), [no local](#elsewhere), [above](../../x.md).',
    ].join('\n');
    expect(brokenLinks('docs/a.md', page, (p) => (files.has(p) ? read(p) : undefined), exists)).toEqual([
      'docs/a.md:10 → c.md: no file docs/c.md',
      'docs/a.md:10 → b.md#run-it-in-docker: docs/b.md has no heading with the anchor #run-it-in-docker',
      'docs/a.md:10 → #elsewhere: docs/a.md has no heading with the anchor #elsewhere',
      'docs/a.md:10 → ../../x.md: no file ../../x.md',
    ]);
  });
});

test('the documentation is README.md, CONTRIBUTING.md and the docs/ pages, each docs page opening with whom it is for', () => {
  expect(PAGES.slice(0, 2)).toEqual(['README.md', 'CONTRIBUTING.md']);
  expect(PAGES.length).toBeGreaterThan(8);
  for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
    const [title, , first] = readPage(page).split('\n');
    expect([page, title.startsWith('# '), first]).toEqual([page, true, expect.stringMatching(/^For /)]);
  }
});

test.each(PAGES)('every code block in %s says how it is checked', (page) => {
  expect(markerProblems(page, readPage(page), (p) => existsSync(join(ROOT, p)), readRepo)).toEqual([]);
});

test.each(PAGES)('every relative link and #anchor in %s resolves', (page) => {
  expect(brokenLinks(page, readPage(page), repoRead, repoExists)).toEqual([]);
});
