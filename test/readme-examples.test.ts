/**
 * The README's "Testing with the mock" examples are excerpts of files the suite runs: each code
 * block marked `<!-- example: FILE -->` must appear in FILE, line by line in order (comment lines
 * and `// …` placeholders aside; an import may name the package where the file imports ../src).
 */
import { expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/<!-- example: (\S+) -->\n```\w+\n([\s\S]*?)```/g)].map((m) => ({ file: m[1], code: m[2] }));

/** A line as compared: trimmed; an import only up to its `from` (the package or ../src). */
const key = (line: string) => {
  const t = line.trim();
  return t.startsWith('import ') ? t.split(' from ')[0] : t;
};
const isComment = (t: string) => t.startsWith('//') || t.startsWith('#');

test('the README shows one example per way of testing, each naming a file that exists', () => {
  expect(blocks.map((b) => b.file)).toEqual(['examples/client.test.ts', 'examples/sidecar.test.ts', 'examples/testcontainers.test.ts', 'examples/python/test_client_flow.py']);
  for (const b of blocks) expect([b.file, existsSync(join(ROOT, b.file))]).toEqual([b.file, true]);
});

test.each(blocks.map((b) => [b.file, b.code]))('the README example is an excerpt of %s', (file, code) => {
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
