/**
 * The scenario format's `content_base64` (what a recording writes for downloaded bytes): any
 * bytes, binary included, served as they are; a wrong size or checksum, bad base64, or both
 * content fields stop start-up with one line naming the file and the JSON path.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testServer } from './helpers.js';

const BYTES = Buffer.from([0, 255, 128, 10, 13, 0xc3, 0x28, 0xff, 0xfe]);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-base64-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenario(file: Record<string, unknown>) {
  const path = join(dir, `s-${Math.random().toString(36).slice(2)}.json`);
  const record = { id: 'file_bin', filename: 'blob.bin', mime_type: 'application/octet-stream', size: BYTES.length, checksum: sha(BYTES), created_at: '2025-01-01T11:00:00Z', expires_at: '2099-01-01T00:00:00Z', source: 'session_download', ...file };
  writeFileSync(path, JSON.stringify({ name: 'b64', generated_at: '2025-01-01T12:00:00Z', users: [], api_keys: [], sessions: [{ id: 'sess_b', actions: [], files: [record] }], mailboxes: [], secrets: [] }));
  return path;
}

test('a file given as content_base64 is served byte for byte, and its note is ignored', async () => {
  const mock = await testServer({ scenario: scenario({ content_base64: BYTES.toString('base64'), note: 'recorded' }) });
  try {
    const res = await fetch(`${mock.url}/sessions/sess_b/files/file_bin`, { headers: { Authorization: 'Bearer any' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(BYTES);
    const listed = (await (await fetch(`${mock.url}/sessions/sess_b/files`, { headers: { Authorization: 'Bearer any' } })).json()) as { files: Record<string, unknown>[] };
    expect(listed.files[0].checksum).toBe(sha(BYTES));
    expect(listed.files[0]).not.toHaveProperty('note');
  } finally {
    await mock.close();
  }
});

describe('a bad content_base64 stops start-up with one line', () => {
  test.each([
    ['a size that does not match', { content_base64: BYTES.toString('base64'), size: 3 }, /\$\.sessions\[0\]\.files\[0\]\.size is 3 but content_base64 has 9 bytes$/],
    ['a checksum that does not match', { content_base64: BYTES.toString('base64'), checksum: 'a'.repeat(64) }, /\$\.sessions\[0\]\.files\[0\]\.checksum is not the SHA-256 of content_base64$/],
    ['text that is not base64', { content_base64: 'not base64!' }, /\$\.sessions\[0\]\.files\[0\]\.content_base64 is not base64$/],
    ['both content and content_base64', { content: 'x', content_base64: 'eA==', size: 1 }, /\$\.sessions\[0\]\.files\[0\] has both content and content_base64; give one$/],
  ])('%s', async (_name, file, message) => {
    const path = scenario(file);
    const error = await testServer({ scenario: path }).then(
      async (m) => (await m.close(), null),
      (e: Error) => e,
    );
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain(path);
    expect(error?.message.split('\n')).toHaveLength(1);
  });
});
