/**
 * The package as npx users get it: `npm pack` (its prepack builds from scratch; test/packed.ts
 * packs the build's stamped dist/ instead where it is what that build makes), then
 * `npx --yes ./cloud-browser-mock-<version>.tgz --port 0` from an empty directory. The tarball
 * must hold exactly what the CLI needs (CONTRACT §7: compiled code with .d.ts and source maps,
 * openapi.json, fixtures, README, LICENSE; and control-plane.openapi.json, which /__mock reads),
 * the docs/ pages the README links to (issue 23 extends §7 with them), and nothing else.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, multipart } from './helpers.js';
import { TARBALL, packedTarball, userEnv } from './packed.js';
import { links, readPage, resolvePath } from './doc-pages.js';
import { HAS_CHROMIUM, expectInspectorWorks } from './inspector-check.js';
import { STAMP, outputsHash, stampMatches, writeStamp } from '../scripts/build-stamp.mjs';

if (!HAS_CHROMIUM) test.skip('the inspector page from the tarball loads in a browser [SKIPPED: /usr/bin/chromium is missing (apt-get install -y chromium)]', () => {});

let work: string;
let files: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cbm-npx-'));
  const packed = await packedTarball();
  files = packed.files;
  copyFileSync(packed.tarball, join(work, TARBALL));
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** src/**\/*.ts as module paths without the extension, e.g. `store/store`. */
function sourceModules(dir = join(ROOT, 'src'), prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceModules(join(dir, e.name), `${prefix}${e.name}/`) : e.name.endsWith('.ts') ? [`${prefix}${e.name.slice(0, -3)}`] : [],
  );
}

test('the tarball ships compiled code with .d.ts and maps, the CommonJS bundle with .d.cts, the command\'s bundle, both OpenAPI documents, fixtures, README, the docs pages, LICENSE, and nothing else', () => {
  const fixtures = readdirSync(join(ROOT, 'fixtures')).filter((f) => f.endsWith('.json')).map((f) => `fixtures/${f}`);
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  expect(docs.length).toBeGreaterThan(8);
  const compiled = sourceModules().flatMap((m) => ['.js', '.js.map', '.d.ts', '.d.ts.map'].map((ext) => `dist/src/${m}${ext}`));
  // The CommonJS build for `require`: a bundle per entry point (the package, its testcontainers
  // subpath), each with its map and its types.
  const commonJs = ['index', 'testcontainers'].flatMap((m) => ['.cjs', '.cjs.map', '.d.cts', '.d.cts.map'].map((ext) => `dist/src/${m}${ext}`));
  // The command (bin): one bundle and the chunks it reads on first use (named by content hash).
  const bin = files.filter((f) => f.startsWith('dist/bin/'));
  expect(bin).toContain('dist/bin/cli.js');
  expect(bin.filter((f) => f !== 'dist/bin/cli.js' && !/^dist\/bin\/chunks\/[\w-]+\.js$/.test(f))).toEqual([]);
  // control-plane.openapi.json describes /__mock, which createApp reads at start-up.
  expect(files.filter((f) => !f.startsWith('dist/bin/'))).toEqual(['LICENSE', 'README.md', 'control-plane.openapi.json', 'openapi.json', 'package.json', ...fixtures, ...docs, ...compiled, ...commonJs].sort());
  expect(files.filter((f) => /^(test|src|scripts|examples)\/|\.ts$(?<!\.d\.ts)|\.cloud-browser-mock|^dist\/scripts/.test(f))).toEqual([]);
});

test('packed.ts reuses dist/ only as the build stamped it for the sources as they are: a changed, added or removed file under dist/, or other sources, make it build afresh', () => {
  // The build stamps what it made last (scripts/build-stamp.mjs), so the stamp names dist/ as it is.
  const stamped = JSON.parse(readFileSync(join(ROOT, 'dist', STAMP), 'utf8')) as { inputs: string; outputs: string };
  expect(stamped.outputs).toBe(outputsHash(join(ROOT, 'dist')));
  // Copies of dist/ stamped for the sources as they are (as the build would, were it run now).
  const copy = (name: string) => {
    const dist = join(work, name);
    cpSync(join(ROOT, 'dist'), dist, { recursive: true });
    writeStamp(ROOT, dist);
    return dist;
  };
  expect(stampMatches(ROOT, copy('same'))).toBe(true);
  const changed = copy('changed');
  appendFileSync(join(changed, 'src', 'index.js'), '\n');
  const added = copy('added');
  writeFileSync(join(added, 'src', 'left-over.js'), 'export {};\n');
  const removed = copy('removed');
  rmSync(join(removed, 'bin', 'cli.js'));
  const otherSources = copy('other-sources');
  const stamp = JSON.parse(readFileSync(join(otherSources, STAMP), 'utf8')) as { inputs: string; outputs: string };
  writeFileSync(join(otherSources, STAMP), JSON.stringify({ ...stamp, inputs: `other ${stamp.inputs}` }));
  const unstamped = copy('unstamped');
  rmSync(join(unstamped, STAMP));
  expect([changed, added, removed, otherSources, unstamped].map((d) => stampMatches(ROOT, d))).toEqual([false, false, false, false, false]);
});

test('every link between the README and the docs pages lands on a page the tarball holds, so they work in node_modules', () => {
  const shipped = files.filter((f) => f.endsWith('.md'));
  const targets = shipped.flatMap((page) =>
    links(readPage(page)).map((l) => l.target.split('#')[0]).filter((path) => path !== '').map((path) => resolvePath(page, path)),
  );
  const toPages = targets.filter((t) => t === 'README.md' || t.startsWith('docs/'));
  expect(toPages.length).toBeGreaterThan(10);
  expect(toPages.filter((t) => t.endsWith('.md') && !shipped.includes(t))).toEqual([]);
});

test(
  'npx --yes ./<tarball> --port 0 from an empty directory starts the CLI: /health 200, an upload 201, the inspector page connects',
  async () => {
    // The README's command: npx takes a path that starts with "./" or "../" as a package (an
    // absolute path it would run as a command), relative to the nearest directory holding a
    // package.json, so the empty directory sits outside the tree, beside the tarball.
    const empty = join(work, 'empty');
    mkdirSync(empty);
    const child = spawn('npx', ['--yes', `../${TARBALL}`, '--port', '0'], { cwd: empty, env: userEnv(), detached: true });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        // A cold npx installs the dependencies from the registry first.
        const timer = setTimeout(() => reject(new Error(`no listening line in 240 s; output:\n${out}`)), 240_000);
        child.stdout.on('data', () => {
          const m = /cloud-browser-mock listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]), clearTimeout(timer);
        });
        child.on('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`npx exited ${code}:\n${out}`));
        });
      });
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const upload = await fetch(`${url}/sessions/sess_demo/files`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sk_test_demo', 'Content-Type': 'multipart/form-data; boundary=npx' },
        body: multipart('npx', [{ name: 'file', filename: 'from-npx.txt', type: 'text/plain', content: 'hello' }]),
      });
      expect(upload.status).toBe(201);
      expect(await upload.json()).toMatchObject({ filename: 'from-npx.txt', size: 5 });
      // The inspector page from the packed build (its script is the compiled functions' source).
      await expectInspectorWorks(url);

      // npm runs the CLI as its child: signal the whole process group, or node outlives npm.
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      await expect(fetch(`${url}/health`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  },
  300_000,
);
