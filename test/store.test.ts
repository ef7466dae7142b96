/** The file-backed store: what survives a restart, and what stops start-up. */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { StartupError } from '../src/store/store.js';
import { bearer, testApp } from './helpers.js';
import { blobFiles, stateDir, workspacesDir } from './data-layout.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function withApp<T>(options: Parameters<typeof testApp>[0], fn: (app: MockApp) => Promise<T>): Promise<T> {
  const app = await testApp({ dataDir: dir, ...options });
  try {
    return await fn(app);
  } finally {
    await app.mock.close();
  }
}

test('acknowledged writes and a token issued before the restart survive close and reopen', async () => {
  const before = await withApp({}, async (app) => {
    const { access_token } = (await request(app).post('/token').type('form').send({ username: 'dev@example.com', password: 'password' })).body;
    const auth = bearer(access_token);
    await request(app).post('/secrets').set(auth).send({ name: 'PERSISTED', value: 'persisted-value' });
    const up = await request(app).post('/sessions/sess_demo/files').set(auth).attach('file', Buffer.from('kept bytes'), 'kept.txt');
    await request(app).delete('/mailboxes/mbx_outlook').set(auth);
    return { access_token, fileId: up.body.id as string };
  });
  await withApp({ auth: 'strict' }, async (app) => {
    const auth = bearer(before.access_token);
    expect((await request(app).get('/secrets/PERSISTED?namespace=function_env').set(auth)).body).toEqual({ value: 'persisted-value' });
    const down = await request(app).get(`/sessions/sess_demo/files/${before.fileId}`).set(auth);
    expect([down.status, down.text]).toEqual([200, 'kept bytes']);
    expect((await request(app).get('/mailboxes').set(auth)).body.items.map((m: any) => m.id)).toEqual(['mbx_gmail']);
  });
});

test('ids never repeat after a restart, and a fresh data directory with the same seed repeats them', async () => {
  const store = (app: MockApp, name: string) => request(app).post('/secrets').set(bearer('k')).send({ name, value: 'value-value' });
  const first = await withApp({}, async (app) => (await store(app, 'A')).body.id);
  const second = await withApp({}, async (app) => (await store(app, 'B')).body.id);
  expect(second).not.toBe(first);
  rmSync(dir, { recursive: true, force: true });
  const again = await withApp({}, async (app) => (await store(app, 'A')).body.id);
  expect(again).toBe(first);
});

test('each workspace is its own JSON file beside meta.json, and uploads are blobs, not JSON', async () => {
  await withApp({}, async (app) => {
    await request(app).get('/mailboxes').set(bearer('one'));
    await request(app).post('/sessions/sess_demo/files').set(bearer('two')).attach('file', Buffer.from('blob bytes'), 'b.txt');
  });
  expect(readdirSync(dir).sort()).toEqual(['meta.json', stateDir(dir).slice(dir.length + 1), 'tmp']);
  expect(readdirSync(workspacesDir(dir))).toHaveLength(2);
  expect(blobFiles(dir)).toHaveLength(1);
  for (const f of readdirSync(workspacesDir(dir))) expect(readFileSync(join(workspacesDir(dir), f), 'utf8')).not.toContain('blob bytes');
});

describe('start-up refuses what it cannot trust, and names it', () => {
  test('another scenario than the data directory holds stops with the --reset-data message', async () => {
    await withApp({}, async () => undefined);
    await expect(testApp({ dataDir: dir, scenario: 'empty' })).rejects.toThrow(/holds scenario "default" with seed 1, not "empty" with seed 1; start with --reset-data/);
  });

  test('another seed stops likewise; --reset-data starts over', async () => {
    await withApp({}, async (app) => {
      await request(app).post('/secrets').set(bearer('k')).send({ name: 'GONE', value: 'value-value' });
    });
    await expect(testApp({ dataDir: dir, seed: 2 })).rejects.toThrow(StartupError);
    await withApp({ seed: 2, resetData: true }, async (app) => {
      expect((await request(app).get('/secrets/GONE?namespace=function_env').set(bearer('k'))).status).toBe(404);
    });
  });

  test.each([
    ['truncated JSON', '{"format":1,"principal":"key:x","next_id":0,"sess'],
    ['a foreign shape', '{"hello":"world"}'],
    ['an older format', '{"format":0,"principal":"key:x","next_id":0,"sessions":[],"mailboxes":[],"secrets":[]}'],
  ])('a workspace file with %s is refused on first use, naming the file, and is left untouched', async (_, text) => {
    await withApp({}, async (app) => void (await request(app).get('/mailboxes').set(bearer('x'))));
    const [name] = readdirSync(workspacesDir(dir));
    const file = join(workspacesDir(dir), name);
    writeFileSync(file, text);
    // Read on first use, not at start-up: everyone else is served; its principal gets one line.
    await withApp({}, async (app) => {
      expect((await request(app).get('/mailboxes').set(bearer('someone-else'))).status).toBe(200);
      const res = await request(app).get('/mailboxes').set(bearer('x'));
      expect(res.status).toBe(500);
      expect(res.body.detail).toContain(`data file ${file}`);
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
