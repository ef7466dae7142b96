/**
 * Starting, watching and stopping the servers under test. Every server runs in a child process of
 * its own, so autocannon (in this process) and the server never share an event loop.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

/** Every server child still running: whatever happens to the benchmark, none outlives it. */
const children = new Set();
/** Kills every child still running, at once (for an exit, or a signal that ends the benchmark). */
export function killAll() {
  for (const c of children) c.kill('SIGKILL');
}
process.on('exit', killAll);

/**
 * Stops every child still running (SIGTERM, SIGKILL 5 s later): the benchmark calls it when it
 * ends, failed or not, so that a phase that threw never leaves its server behind (a running child
 * would also keep this process, and so the 'exit' handler above, from ever ending).
 */
export async function stopAll() {
  await Promise.all(
    [...children].map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
          c.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One GET; resolves with the status (and body), rejects when nothing listens yet. */
export function get(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

export function send(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `url` every 2 ms until it answers 200; resolves with the milliseconds since `since`. */
export async function waitFor200(url, since, child, timeoutMs = 120_000) {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${child.spawnargs.join(' ')} exited with ${child.exitCode} before answering ${url}`);
    try {
      const r = await get(url);
      if (r.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > timeoutMs) throw new Error(`no 200 from ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

function procStatus(pid, field) {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
/** Resident set size in MiB. */
export const rssMiB = (pid) => procStatus(pid, 'VmRSS');
/** Peak resident set size since start (or since resetPeak) in MiB. */
export const peakRssMiB = (pid) => procStatus(pid, 'VmHWM');
/** Resets the kernel's peak-RSS mark of a process (Linux `clear_refs` 5); false where not allowed. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * A server under test: `node <script> <args>` with its stdout and stderr in `logFile`, ready when
 * `healthUrl` answers 200. `coldStartMs` is process start (spawn) to that first 200.
 */
export async function startServer({ name, script, args, port, healthPath = '/health', logFile, env }) {
  const fd = openSync(logFile, 'a');
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', fd, fd], env: { ...process.env, ...env } });
  closeSync(fd);
  children.add(child);
  child.on('exit', () => children.delete(child));
  const url = `http://127.0.0.1:${port}`;
  let coldStartMs;
  try {
    coldStartMs = await waitFor200(`${url}${healthPath}`, t0, child);
  } catch (e) {
    child.kill('SIGKILL');
    const log = readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
    throw new Error(`${name}: ${e.message}\n--- last lines of ${logFile}:\n${log}`);
  }
  return {
    name,
    url,
    pid: child.pid,
    logFile,
    coldStartMs,
    /** performance.now() when the process was spawned. */
    startedAt: t0,
    rss: () => rssMiB(child.pid),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
