/**
 * The servers the phases measure: the mock's CLI (the working tree's build, or the baseline's),
 * the bare node:http ceiling and Stoplight Prism. Each runs in a child process (lib/processes.mjs
 * stops every one of them when the benchmark ends, however it ends).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort, startServer } from './processes.mjs';

export const PRISM_VERSION = '5.14';

/**
 * The server starters of one benchmark run, writing their logs and data under `work`.
 * `startMock` starts `cli` (the working tree's dist/bin/cli.js unless told otherwise) exactly as a
 * user does: a fresh data directory (or `dataDir`), default logging.
 */
export function createServers({ root, work }) {
  const workingCli = join(root, 'dist', 'bin', 'cli.js');
  let dirCount = 0;

  async function startMock({ name = 'mock', cli = workingCli, extra = [], scenario, dataDir = join(work, `data-${dirCount + 1}`) } = {}) {
    const port = await freePort();
    ++dirCount;
    const server = await startServer({
      name,
      script: cli,
      args: ['--port', String(port), '--data-dir', dataDir, ...(scenario ? ['--scenario', scenario] : []), ...extra],
      port,
      logFile: join(work, `${name.replace(/\W+/g, '-')}-${dirCount}.log`),
    });
    return { ...server, dataDir };
  }

  async function startBare(routesFile) {
    const port = await freePort();
    return startServer({ name: 'bare', script: join(root, 'bench', 'bare-server.mjs'), args: [String(port), routesFile], port, logFile: join(work, 'bare.log') });
  }

  async function startPrism(prism, doc, { name, verbose, dynamic = false }) {
    const port = await freePort();
    return startServer({
      name,
      script: prism.bin,
      args: ['mock', '-h', '127.0.0.1', '-p', String(port), ...(dynamic ? ['-d'] : []), ...(verbose ? ['-v', verbose] : []), doc],
      port,
      logFile: join(work, `${name.replace(/\W+/g, '-')}.log`),
    });
  }

  /**
   * Prism mocks a copy of openapi.json with one addition: GET /health answering {"status":"ok"},
   * which the mock serves outside its contract, so that both cold starts end at the same request.
   * Prism 5.14 takes the document as it is otherwise (the `x-route-order` root key and the
   * relative `tokenUrl` included).
   */
  function prismDocument() {
    const doc = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'));
    doc.paths = {
      '/health': {
        get: {
          operationId: 'health',
          responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' }, example: { status: 'ok' } } } } },
        },
      },
      ...doc.paths,
    };
    const file = join(work, 'openapi-for-prism.json');
    writeFileSync(file, JSON.stringify(doc));
    return file;
  }

  return { workingCli, startMock, startBare, startPrism, prismDocument };
}

/** Installs @stoplight/prism-cli@5.14 into a temporary directory of its own (kept for the next run). */
export function installPrism(log) {
  const dir = join(tmpdir(), `cloud-browser-mock-bench-prism-${PRISM_VERSION}`);
  const pkg = join(dir, 'node_modules', '@stoplight', 'prism-cli', 'package.json');
  if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version.startsWith(`${PRISM_VERSION}.`)) {
    log(`Prism ${JSON.parse(readFileSync(pkg, 'utf8')).version} already installed in ${dir}`);
  } else {
    log(`installing @stoplight/prism-cli@${PRISM_VERSION} into ${dir}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
    const r = spawnSync(npm[0], [...npm.slice(1), 'install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `@stoplight/prism-cli@${PRISM_VERSION}`], {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`npm install @stoplight/prism-cli@${PRISM_VERSION} failed`);
  }
  const meta = JSON.parse(readFileSync(pkg, 'utf8'));
  return { version: meta.version, bin: join(dirname(pkg), meta.bin.prism) };
}

export const settle = (ms) => new Promise((r) => setTimeout(r, ms));
/** A pause between runs, so one run's leftovers (sockets closing, GC) stay out of the next. */
export const SETTLE_MS = 500;
/** Flushes dirty pages (the mock's workspace files, logs) so their writeback is not measured. */
export const flushDisk = () => spawnSync('sync', [], { stdio: 'ignore' });
