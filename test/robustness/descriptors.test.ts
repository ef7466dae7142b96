/**
 * Downloads never leak a file descriptor (issue 14, item 3), checked on the running CLI by
 * counting /proc/<pid>/fd: a part whose Content-Type cannot be a header value is stored as if it
 * had none, and a download the client abandons after its first chunk closes its file.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, multipart, rawRequest, settlesTo } from '../helpers.js';
import { startCli, type RunningCli } from '../cli-process.js';

const linux = process.platform === 'linux';
let cli: RunningCli;
let dir: string;

beforeAll(async () => {
  if (!linux) return;
  dir = mkdtempSync(join(tmpdir(), 'cbm-fds-'));
  cli = await startCli(['--port', '0', '--data-dir', 'data', '--log-level', 'silent'], { cwd: dir });
});
afterAll(async () => {
  if (!linux) return;
  cli.child.kill('SIGTERM');
  await cli.exited;
  rmSync(dir, { recursive: true, force: true });
});

const fds = () => readdirSync(`/proc/${cli.child.pid}/fd`);
const deletedOpen = () =>
  fds().filter((fd) => {
    try {
      return readlinkSync(`/proc/${cli.child.pid}/fd/${fd}`).endsWith('(deleted)');
    } catch {
      return false;
    }
  }).length;
const target = (fd: string) => {
  try {
    return readlinkSync(`/proc/${cli.child.pid}/fd/${fd}`);
  } catch {
    return '(closed)';
  }
};
/**
 * Waits (60 s at most, a liveness deadline) for the process to be back to `limit` descriptors or
 * fewer; the answer is 'settled', or what is still open, with the counts and where the descriptors point.
 */
async function settledTo(before: number, limit: number): Promise<string> {
  const n = await settlesTo(() => fds().length, limit);
  return n <= limit ? 'settled' : `${n} descriptors open after 60 s; ${before} before, at most ${limit} allowed: ${fds().map(target).join(', ')}`;
}

async function upload(filename: string, type: string, content: Buffer | string) {
  const res = await rawRequest(cli.url, {
    method: 'POST',
    path: '/sessions/sess_demo/files',
    headers: { ...bearer('fd-test'), 'Content-Type': 'multipart/form-data; boundary=B0und' },
    body: multipart('B0und', [{ name: 'file', filename, type, content }]),
  });
  return { status: res.status, json: JSON.parse(res.text) };
}

const describeLinux = linux ? describe : describe.skip;

describeLinux('descriptors (Linux: /proc/<pid>/fd)', () => {
  test.each(['text/plain\x01', 'text/plain\x7f', '😀', 'Ā/x'])('a part typed %j is stored as typed by its name, and downloads without a leak', async (type) => {
    const before = fds().length;
    const up = await upload('notes.txt', type, 'hello');
    expect(up.status).toBe(201);
    expect(up.json.mime_type).toBe('text/plain');
    for (let i = 0; i < 5; i++) {
      const down = await rawRequest(cli.url, { method: 'GET', path: `/sessions/sess_demo/files/${up.json.id}`, headers: bearer('fd-test') });
      expect(down.status).toBe(200);
      expect(down.text).toBe('hello');
    }
    expect(await settledTo(before, before + 2)).toBe('settled');
  }, 120_000);

  test('40 downloads abandoned after their first chunk leave no descriptor open, and no deleted blob held', async () => {
    const up = await upload('big.bin', 'application/octet-stream', Buffer.alloc(16 * 1024 * 1024, 7));
    expect(up.status).toBe(201);
    const before = fds().length;
    const url = new URL(cli.url);
    for (let i = 0; i < 40; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          socket.write(`GET /sessions/sess_demo/files/${up.json.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer fd-test\r\n\r\n`);
        });
        socket.once('data', () => {
          socket.destroy();
          resolve();
        });
        socket.on('error', reject);
      });
    }
    const del = await rawRequest(cli.url, { method: 'DELETE', path: `/sessions/sess_demo/files/${up.json.id}`, headers: bearer('fd-test') });
    expect(del.status).toBe(204);
    // The server learns of each abandoned socket asynchronously: wait for the count to settle.
    expect(await settledTo(before, before + 2)).toBe('settled');
    expect(deletedOpen()).toBe(0);
    expect((await fetch(`${cli.url}/health`)).status).toBe(200);
  }, 120_000);
});
