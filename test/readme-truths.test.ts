/**
 * The documentation's commands as a reader runs them, from the repository root: the files the
 * shell blocks of every page (README.md, CONTRIBUTING.md, docs/*.md) name exist, the "Try it"
 * block of docs/getting-started.md answers as its comments say when run against a started mock,
 * the Compose commands come in both spellings, and the served document marks POST /token as open.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { MockServer } from '../src/server.js';
import { ROOT, testServer } from './helpers.js';
import { testNeeding } from './needs-tool.js';
import { PAGES, codeBlocks, readPage, section } from './doc-pages.js';

const shBlocks = PAGES.flatMap((page) => codeBlocks(readPage(page), 'sh'));
const HAS_CURL = spawnSync('curl', ['--version']).status === 0;
const testWithCurl = testNeeding(HAS_CURL, 'curl is not installed (.ci/run installs it)', 'CBM_REQUIRE_CURL');

let mock: MockServer;
beforeAll(async () => {
  mock = await testServer();
});
afterAll(() => mock.close());

test('every local file a shell example names exists in the repository', () => {
  const named = shBlocks.flatMap((block) => [
    ...[...block.matchAll(/[=\s']@([\w./-]+)/g)].map((m) => m[1]), // curl -F 'file=@PATH' / -d @PATH
    ...[...block.matchAll(/\s-f\s+([\w./-]+)/g)].map((m) => m[1]), // docker compose -f PATH
    ...[...block.matchAll(/\$PWD\/([\w./-]+?)[:"]/g)].map((m) => m[1]), // docker run -v "$PWD/PATH:…"
  ]);
  expect(named.length).toBeGreaterThan(2);
  expect(named.filter((p) => !p.startsWith('/') && !p.startsWith('mock-data') && !existsSync(join(ROOT, p)))).toEqual([]);
});

test('each `docker compose` command is also given in the `docker-compose` spelling', () => {
  const commands = shBlocks.flatMap((b) => b.split('\n')).filter((l) => l.startsWith('docker compose '));
  expect(commands.length).toBeGreaterThan(0);
  const lines = new Set(shBlocks.flatMap((b) => b.split('\n')));
  expect(commands.filter((c) => !lines.has(c.replace('docker compose ', 'docker-compose ')))).toEqual([]);
});

/** The "Try it" block's curl commands, each with what its comment says it answers. */
function tryItCommands(block: string) {
  const lines = block.split('\n');
  const commands: { command: string; status?: number; body?: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('curl ')) continue;
    let command = lines[i];
    while (command.trimEnd().endsWith('\\')) command += `\n${lines[++i]}`;
    const said = /# → (.*)$/.exec(command)?.[1] ?? /^# → (.*)$/.exec(lines[i + 1] ?? '')?.[1];
    const status = said && /^\d{3}\b/.test(said) ? Number(said.slice(0, 3)) : undefined;
    const body = said?.startsWith('{') && !said.includes('…') ? said : undefined;
    commands.push({ command, status, body });
  }
  return commands;
}

testWithCurl('the "Try it" block of docs/getting-started.md runs as written from the repository root, and each command answers as its comment says', async () => {
  const block = codeBlocks(section('docs/getting-started.md', 'Try it'), 'sh')[0];
  const commands = tryItCommands(block);
  expect(commands.length).toBeGreaterThan(10);
  // The block as written, pointed at this mock; each curl also prints its status after its output.
  const script = `curl() { command curl -w '\\n@@status %{http_code}\\n' "$@"; }\n${block.replace(/^B=.*$/m, `B=${mock.url}`)}`;
  const child = spawn('bash', ['-c', script], { cwd: ROOT });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise((resolve) => child.on('close', resolve));
  const answers = out.split(/\n@@status (\d{3})\n/);
  const got = commands.map((c, i) => ({ command: c.command, status: Number(answers[2 * i + 1]), body: answers[2 * i] }));
  // Every command succeeds except the validation example, whose 422 body the page shows.
  const is2xx = (s: number) => s >= 200 && s < 300;
  const expected = commands.map((c, i) => ({
    command: c.command,
    status: c.status ?? (c.command.includes('limit=2000') ? 422 : is2xx(got[i].status) ? got[i].status : 'a 2xx status'),
    body: c.body ?? expect.any(String),
  }));
  expect(got).toEqual(expected);
});

test('GET /openapi.json marks POST /token as needing no credentials (security: []), and only it', async () => {
  const doc = await (await fetch(`${mock.url}/openapi.json`)).json();
  const open = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, ops]) =>
    Object.entries(ops).filter(([, op]) => op.security?.length === 0).map(([method]) => `${method.toUpperCase()} ${path}`),
  );
  expect(open).toEqual(['POST /token']);
});
