/**
 * The documentation as tests read it: README.md, CONTRIBUTING.md and docs/*.md, their headings
 * (outside code blocks), their sections by heading, their fenced code blocks with the marker that
 * says how each is checked, and their relative links. Pure functions over text, so the checks
 * can be shown failing on a small planted page in the test that uses them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

/** Every page, as a path from the repository root. */
export const PAGES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

export const readPage = (page: string) => readFileSync(join(ROOT, page), 'utf8');

const FENCE = /^\s*```/;

/** Lines with whether each is inside a fenced code block (fence lines count as inside). */
function linesWithFences(text: string) {
  let inside = false;
  return text.split('\n').map((line) => {
    if (FENCE.test(line)) {
      inside = !inside;
      return { line, code: true };
    }
    return { line, code: inside };
  });
}

/** The page's headings, in order: level, text, and line index. */
export function headings(text: string) {
  return linesWithFences(text).flatMap(({ line, code }, index) => {
    const m = code ? null : /^(#{1,6}) (.+?)\s*#*\s*$/.exec(line);
    return m ? [{ level: m[1].length, text: m[2], index }] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');

/** The anchors a page has, with GitHub's -1, -2 … for repeated headings. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const base = slug(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The text of the section under the heading `heading` (any level) of `page`, up to the next heading of the same or a higher level. */
export function section(page: string, heading: string): string {
  const text = readPage(page);
  const all = headings(text);
  const at = all.findIndex((h) => h.text === heading);
  if (at < 0) throw new Error(`${page} has no heading "${heading}"`);
  const end = all.slice(at + 1).find((h) => h.level <= all[at].level);
  return text.split('\n').slice(all[at].index, end?.index).join('\n');
}

export type Block = { lang: string; code: string; line: number; marker?: { kind: 'example' | 'run-by' | 'not-run'; value: string } };

/** The fenced code blocks of a page, each with the marker on the nearest non-blank line above it. */
export function blocks(text: string): Block[] {
  const lines = text.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)/.exec(lines[i]);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !FENCE.test(lines[j])) j++;
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const m = k >= 0 ? /^\s*<!-- (example|run-by|not-run): (.+?) -->\s*$/.exec(lines[k]) : null;
    out.push({
      lang: open[1],
      code: lines.slice(i + 1, j).map((l) => l.slice(lines[i].length - lines[i].trimStart().length)).join('\n') + '\n',
      line: i + 1,
      marker: m ? { kind: m[1] as 'example' | 'run-by' | 'not-run', value: m[2].trim() } : undefined,
    });
    i = j;
  }
  return out;
}

/** The blocks of `lang` in `text`, in order (`text` is usually a section). */
export const codeBlocks = (text: string, lang: string) => blocks(text).filter((b) => b.lang === lang).map((b) => b.code);

/** Relative links outside code: `[text](target)` and images, with their line numbers. Inline code spans are skipped. */
export function links(text: string) {
  return linesWithFences(text).flatMap(({ line, code }, index) => {
    if (code) return [];
    const prose = line.replace(/`[^`]*`/g, '');
    return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((m) => m[1])
      .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
      .map((target) => ({ target, line: index + 1 }));
  });
}

/** Posix path join and normalisation for repository paths (`docs/../README.md` → `README.md`). */
export function resolvePath(fromPage: string, target: string): string {
  const parts = fromPage.split('/').slice(0, -1);
  for (const p of target.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') {
      if (parts.length === 0) return target; // above the repository
      parts.pop();
    } else parts.push(p);
  }
  return parts.join('/');
}

/**
 * The links of `page` that do not resolve: a missing file, or an #anchor its page lacks.
 * `read(path)` gives a page's text (or undefined when there is no such file), `exists(path)` any file.
 */
export function brokenLinks(page: string, text: string, read: (path: string) => string | undefined, exists: (path: string) => boolean): string[] {
  const broken: string[] = [];
  for (const { target, line } of links(text)) {
    const [path, anchor] = target.split('#', 2);
    const file = path === '' ? page : resolvePath(page, decodeURI(path));
    const where = `${page}:${line} → ${target}`;
    if (path !== '' && (file.startsWith('..') || !exists(file))) {
      broken.push(`${where}: no file ${file}`);
      continue;
    }
    if (anchor === undefined) continue;
    const body = path === '' ? text : read(file);
    if (body === undefined || !file.endsWith('.md')) broken.push(`${where}: ${file} is not a page with headings`);
    else if (!anchors(body).has(anchor)) broken.push(`${where}: ${file} has no heading with the anchor #${anchor}`);
  }
  return broken;
}

export const repoExists = (path: string) => existsSync(join(ROOT, path));
export const repoRead = (path: string) => (path.endsWith('.md') && repoExists(path) ? readPage(path) : undefined);
