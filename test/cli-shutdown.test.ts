/**
 * SIGTERM while an 8 MB upload streams, on the real CLI: one line saying what it waits for, the
 * upload answered if it completes within the grace period and cut off (logged, its temporary
 * blob removed) if not, exit 0.
 */
import { afterAll, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type RunningCli } from './cli-process.js';

// Each case has a directory of its own. The first case spends most of its time waiting out the
// 8 s grace period, so the third runs beside it (test.concurrent: jest runs a block's concurrent
// cases together, where the first of them stands); the second runs alone, as its second half must
// arrive within that grace period.
const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-stop-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const MB = 1024 * 1024;
/**
 * The upload's size: what these cases test is the grace period and a request under way when the
 * signal comes (each waits until the mock is writing the blob), not the size — 50 MB written three
 * times was most of this file's CPU.
 */
const SIZE = 8 * MB;
const HALF = SIZE / 2;
const HEAD = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n');
const TAIL = Buffer.from('\r\n--b--\r\n');
// Uploads under way are written to the data directory's tmp/ (docs/guarantees.md).
const blobsDir = (dir: string) => join(dir, 'data', 'tmp');
const temps = (dir: string) => readdirSync(blobsDir(dir)).filter((f) => f.startsWith('.tmp-'));

/** Starts an upload of SIZE bytes and sends its first half; resolves once the mock is writing it to disk. */
async function halfUpload(url: string, dir: string): Promise<{ req: ClientRequest; answer: Promise<IncomingMessage> }> {
  const u = new URL(`${url}/sessions/sess_demo/files`);
  const req = request({
    host: u.hostname,
    port: u.port,
    path: u.pathname,
    method: 'POST',
    headers: { Authorization: 'Bearer sk_test_demo', 'Content-Type': 'multipart/form-data; boundary=b', 'Content-Length': HEAD.length + SIZE + TAIL.length },
  });
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  const writing = new Promise<void>((resolve) => {
    const watcher = watch(blobsDir(dir), () => {
      if (temps(dir).length) watcher.close(), resolve();
    });
    if (temps(dir).length) watcher.close(), resolve();
  });
  req.write(HEAD);
  req.write(Buffer.alloc(HALF, 1));
  await writing;
  return { req, answer };
}

const logLines = (cli: RunningCli) => cli.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const ARGS = ['--port', '0', '--data-dir', 'data'];

test.concurrent('an upload still streaming 8 s after SIGTERM is cut off, logged, its temporary blob removed; exit 0', async () => {
  const dir = newDir();
  const cli = await startCli(ARGS, { cwd: dir });
  expect(existsSync(blobsDir(dir))).toBe(true);
  const { answer } = await halfUpload(cli.url, dir);
  cli.child.kill('SIGTERM');
  await cli.waitFor(/^cloud-browser-mock stopping: waiting for 1 request \(up to 8 s\)$/m);
  await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET|EPIPE/);
  expect(await cli.exited).toBe(0);
  const lines = logLines(cli);
  expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', url: '/sessions/sess_demo/files', operationId: 'uploadSessionFile', status: 0 }));
  expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', url: '/sessions/sess_demo/files', msg: 'shutdown: request cut off after 8 s' }));
  expect(temps(dir)).toEqual([]);
});

test('an upload that completes after SIGTERM, within the grace period, is answered 201 and kept', async () => {
  const dir = newDir();
  const cli = await startCli(ARGS, { cwd: dir });
  const { req, answer } = await halfUpload(cli.url, dir);
  cli.child.kill('SIGTERM');
  await cli.waitFor(/stopping: waiting for 1 request/);
  req.end(Buffer.concat([Buffer.alloc(HALF, 2), TAIL]));
  const res = await answer;
  expect(res.statusCode).toBe(201);
  const body = JSON.parse(await new Promise<string>((resolve) => {
    let text = '';
    res.on('data', (c) => (text += c));
    res.on('end', () => resolve(text));
  }));
  expect(body.size).toBe(SIZE);
  expect(await cli.exited).toBe(0);
  expect(temps(dir)).toEqual([]);

  const again = await startCli([...ARGS, '--log-level', 'silent'], { cwd: dir });
  try {
    const listed = (await (await fetch(`${again.url}/sessions/sess_demo/files`, { headers: { Authorization: 'Bearer sk_test_demo' } })).json()) as any;
    expect(listed.files.map((f: any) => f.id)).toContain(body.id);
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

test.concurrent('a second signal while it waits ends the process at once (the half-written upload goes at the next start)', async () => {
  const dir = newDir();
  const cli = await startCli(ARGS, { cwd: dir });
  const { answer } = await halfUpload(cli.url, dir);
  cli.child.kill('SIGTERM');
  await cli.waitFor(/stopping: waiting for 1 request/);
  cli.child.kill('SIGINT');
  expect(await cli.exited).toBeNull();
  expect(cli.child.signalCode).toBe('SIGINT');
  await expect(answer).rejects.toThrow();
  const again = await startCli([...ARGS, '--log-level', 'silent'], { cwd: dir });
  expect(temps(dir)).toEqual([]);
  again.child.kill('SIGTERM');
  expect(await again.exited).toBe(0);
});
