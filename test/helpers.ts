/** Shared test helpers: an app with a fresh in-memory store, raw HTTP, and a few builders. */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// Types only: the app and the server are imported when first used (testApp, testServer). About
// half the test files take only ROOT or a builder from here, and a static import made each of
// them load the whole app (express, the validators, the documents) into its own module registry:
// ~0.35 CPU-s per file (issue 31).
import type { MockApp } from '../src/app.js';
import type { MockServer, ServerOptions } from '../src/server.js';
import type { MockOptions } from '../src/options.js';

export const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
/** Test data kept in the repository: the suite reads nothing outside it (a plain clone passes). */
export const FIXTURES = join(ROOT, 'test', 'fixtures');

/** An app as the tests use it: in memory, quiet, every response validated against openapi.json. */
export async function testApp(options: MockOptions = {}): Promise<MockApp> {
  const { createApp } = await import('../src/app.js');
  return createApp({ logLevel: 'silent', validateResponses: true, ...options });
}

export async function testServer(options: ServerOptions = {}): Promise<MockServer> {
  const { startMockServer } = await import('../src/server.js');
  return startMockServer({ logLevel: 'silent', validateResponses: true, ...options });
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

/** Exactly the request given: method, path as written (no re-encoding), headers and body bytes. */
export function rawRequest(
  base: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer | null },
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, setHost: !req.headers?.Host },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    if (req.body !== null && req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** A multipart body with the given parts. */
export function multipart(boundary: string, parts: { name: string; filename?: string; type?: string; content: string | Buffer }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.type) head += `Content-Type: ${p.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(p.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * Waits for `count()` to fall to `limit` or below, polling every 50 ms, and gives up after
 * `deadlineMs` — a liveness deadline, not a speed claim (a count that settles does so in well under
 * a second): past it the caller's assertion fails with the counts in its message, not a jest timeout.
 * Returns the last count read.
 */
export async function settlesTo(count: () => number, limit: number, deadlineMs = 60_000): Promise<number> {
  const giveUpAt = Date.now() + deadlineMs;
  let n = count();
  while (n > limit && Date.now() < giveUpAt) {
    await new Promise((r) => setTimeout(r, 50));
    n = count();
  }
  return n;
}

/**
 * `promise`, or a failure naming `what` once `ms` have passed without it settling — a liveness
 * bound on waiting for an event, not a speed claim.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const late = Symbol('late');
  const settled = await orAfter(promise, ms, late);
  if (settled === late) throw new Error(`${what}: not within ${ms / 1000} s`);
  return settled as T;
}

/**
 * `promise`, or `fallback` once `ms` have passed without it settling. The timer is cleared either
 * way: a pending one keeps the jest worker alive after its file, until jest kills it ("A worker
 * process has failed to exit gracefully").
 */
export function orAfter<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
