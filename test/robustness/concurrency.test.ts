/** Many clients at once: nothing lost, nothing crossed, and all of it still there after a restart. */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { multipart, testServer } from '../helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-concurrency-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** POSTs `body` on a connection of its own and resolves with the answer's status. */
function postStatus(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('1,000 concurrent storeSecret from 10 principals: each lists exactly its own, also after a restart', async () => {
  const server = await testServer({ dataDir: dir, validateResponses: false });
  const tokens = Array.from({ length: 10 }, (_, i) => `principal-${i}`);
  // node:http, one connection each: fetch gives up on a connection not accepted within 10 s, which
  // a busy 2-core machine can take while the same process (the server is in-process) accepts 1,000.
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      postStatus(`${server.url}/secrets`, { ...auth(tokens[i % 10]), 'Content-Type': 'application/json' }, JSON.stringify({ name: `S_${i}`, value: `value-of-${i}` })),
    ),
  );
  expect(results.filter((s) => s === 201)).toHaveLength(1000);
  const check = async (url: string) => {
    for (const [p, token] of tokens.entries()) {
      const names = ((await (await fetch(`${url}/secrets?namespace=function_env`, { headers: auth(token) })).json()) as any).items.map((s: any) => s.name);
      const mine = names.filter((n: string) => n.startsWith('S_'));
      expect(mine.sort()).toEqual(Array.from({ length: 100 }, (_, k) => `S_${k * 10 + p}`).sort());
    }
  };
  await check(server.url);
  await server.close();
  const again = await testServer({ dataDir: dir, validateResponses: false });
  try {
    await check(again.url);
  } finally {
    await again.close();
  }
});

test('200 concurrent uploads to one session: 200 files, each downloads with its checksum', async () => {
  const server = await testServer({ dataDir: dir, validateResponses: false });
  try {
    const bodies = Array.from({ length: 200 }, (_, i) => Buffer.from(`file number ${i}\n`.repeat(1 + (i % 50))));
    const uploaded = await Promise.all(
      bodies.map((content, i) =>
        fetch(`${server.url}/sessions/sess_empty/files`, {
          method: 'POST',
          headers: { ...auth('uploader'), 'Content-Type': 'multipart/form-data; boundary=bb' },
          body: multipart('bb', [{ name: 'file', filename: `f${i}.txt`, type: 'text/plain', content }]),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
      ),
    );
    expect(uploaded.map((u) => u.status)).toEqual(Array(200).fill(201));
    expect(new Set(uploaded.map((u) => u.body.id)).size).toBe(200);
    const page = (await (await fetch(`${server.url}/sessions/sess_empty/files?limit=1000`, { headers: auth('uploader') })).json()) as any;
    expect(page.total).toBe(200);
    for (const [i, u] of uploaded.entries()) {
      const bytes = Buffer.from(await (await fetch(`${server.url}/sessions/sess_empty/files/${u.body.id}`, { headers: auth('uploader') })).arrayBuffer());
      expect(bytes.equals(bodies[i])).toBe(true);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(u.body.checksum);
    }
  } finally {
    await server.close();
  }
});
