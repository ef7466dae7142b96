/**
 * Operations racing on one workspace (issue 15 item 5, issue 11 item 6): a reset racing a save
 * in flight does not come back after a restart; writes racing `reset?principal=` never answer
 * 500; a workspace import racing a file delete leaves a state one of their orders would give
 * (every listed file downloads with its checksum).
 */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockServer, type MockServer } from '../../src/server.js';

let dir: string;
let server: MockServer;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-races-'));
});
afterEach(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Writes are appended lines (log-format.ts), but a workspace written whole — a principal's first
// write after each reset copies the scenario into a snapshot of its own, and an import writes one —
// takes a while with the paging scenario's 5,000 file records: that is what lets a second operation
// arrive while such a save is on its way to disk.
const start = (scenario = 'paging') => startMockServer({ port: 0, dataDir: dir, scenario, logLevel: 'silent' });
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const secretNames = async (url: string, token: string) =>
  (((await (await fetch(`${url}/secrets?namespace=function_env`, { headers: auth(token) })).json()) as any).items as any[]).map((s) => s.name).sort();
const addSecret = (url: string, token: string, name: string) =>
  fetch(`${url}/secrets`, { method: 'POST', headers: { ...auth(token), 'Content-Type': 'application/json' }, body: JSON.stringify({ name, value: `value-of-${name}` }) });

test('a reset racing a save in flight stays a reset after a restart (issue 11 item 6)', async () => {
  server = await start('default');
  const principals = Array.from({ length: 5 }, (_, i) => `user:resurrect-${i}@example.com`);
  for (const p of principals) {
    // As the issue reproduced it: a secret stored, its save not awaited, then the reset.
    const ws = await server.app.mock.store.workspace(p);
    ws.addSecret({ id: `sec_${p.length}`, namespace: 'function_env', name: 'SECRET', value: 'resurrected-value', key_hint: 'lue', created_at: 0, last_used_at: null });
    void ws.save();
    await server.reset(p);
  }
  await server.close();
  server = await start('default');
  for (const p of principals) {
    const ws = await server.app.mock.store.workspace(p);
    expect([p, ws.secret('function_env', 'SECRET')]).toEqual([p, undefined]);
  }
}, 120_000);

test('writes racing reset?principal= answer 201, never 500', async () => {
  server = await start();
  const principal = await principalOf('racer');
  const statuses = new Map<number, number>();
  let resets = 0;
  let done = false;
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; i < 40; i++) {
      const res = await addSecret(server.url, 'racer', `W${w}_${i}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  });
  const resetter = (async () => {
    while (!done) {
      expect((await fetch(`${server.url}/__mock/reset?principal=${encodeURIComponent(principal)}`, { method: 'POST' })).status).toBe(204);
      resets++;
    }
  })();
  await Promise.all(writers);
  done = true;
  await resetter;
  expect(resets).toBeGreaterThan(1);
  expect(Object.fromEntries(statuses)).toEqual({ 201: 160 });
}, 120_000);

test('a workspace import racing a file delete leaves every listed file downloadable with its checksum', async () => {
  server = await start('default');
  const token = 'importer';
  const principal = await principalOf(token);
  const session = 'sess_demo';
  const upload = async (text: string) => {
    const form = new FormData();
    form.append('file', new Blob([text]), `${text}.txt`);
    const res = await fetch(`${server.url}/sessions/${session}/files`, { method: 'POST', headers: auth(token), body: form });
    expect(res.status).toBe(201);
    return ((await res.json()) as any).id as string;
  };
  for (let round = 0; round < 6; round++) {
    const doomed = await upload(`doomed-${round}`);
    await upload(`other-${round}`);
    const snapshot = (await (await fetch(`${server.url}/__mock/workspaces/${encodeURIComponent(principal)}`)).json()) as any;
    // The doomed file travels without bytes (kept from the store); the others with theirs.
    for (const f of snapshot.sessions.flatMap((s: any) => s.files)) if (f.id === doomed) delete f.content_base64;
    const [put, del] = await Promise.all([
      fetch(`${server.url}/__mock/workspaces/${encodeURIComponent(principal)}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(snapshot) }),
      fetch(`${server.url}/sessions/${session}/files/${doomed}`, { method: 'DELETE', headers: auth(token) }),
    ]);
    expect([put.status, del.status]).toEqual([204, 204]);
    const listed = (await (await fetch(`${server.url}/__mock/workspaces/${encodeURIComponent(principal)}?content=false`)).json()) as any;
    const files = listed.sessions.flatMap((s: any) => s.files.map((f: any) => ({ ...f, session: s.id })));
    for (const f of files) {
      const res = await fetch(`${server.url}/sessions/${f.session}/files/${f.id}`, { headers: auth(token) });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect([f.id, res.status, createHash('sha256').update(bytes).digest('hex')]).toEqual([f.id, 200, f.checksum]);
    }
  }
}, 120_000);

/** The principal id the mock gives a token (from the journal, as a user would look it up). */
async function principalOf(token: string): Promise<string> {
  await fetch(`${server.url}/mailboxes`, { headers: auth(token) });
  const journal = (await (await fetch(`${server.url}/__mock/requests?limit=1`)).json()) as any;
  // Newest first.
  return (journal.items ?? journal)[0].principal;
}
