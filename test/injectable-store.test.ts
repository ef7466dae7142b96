/**
 * createApp({ store }) (json-server's createApp(db)): a test opens a store, arranges data in it
 * directly, and reads that data over HTTP from the app made around it.
 */
import { afterEach, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createStore, type MockApp } from '../src/index.js';
import { Clock } from '../src/primitives/clock.js';
import { keyHint } from '../src/model/secret-rules.js';
import { codeBlocks, section } from './doc-pages.js';
import { ROOT, testApp } from './helpers.js';

let app: MockApp | undefined;
afterEach(async () => {
  await app?.mock.close();
  app = undefined;
});

test('when a test arranges a secret in a store it passes in, GET /secrets lists it', async () => {
  const clock = new Clock();
  clock.set(Date.parse('2026-05-01T09:30:00Z'));
  const store = await createStore({ scenario: 'empty', clock });
  // A scenario's API key is its owner's: the workspace of principal user:<owner> (CONTRACT §3).
  const owner = store.scenario.apiKeys.get('sk_test_demo');
  expect(owner).toBe('dev@example.com');
  const ws = await store.workspace(`user:${owner}`);
  const value = 'sk-arranged-0123456789';
  ws.addSecret({ id: 'sec_arranged', namespace: 'llm_provider', name: 'ARRANGED_KEY', value, key_hint: keyHint(value), created_at: store.clock.now(), last_used_at: null });

  app = await testApp({ store });
  expect(app.mock.store).toBe(store);
  expect(app.mock.clock).toBe(store.clock);
  const res = await request(app).get('/secrets').set('Authorization', 'Bearer sk_test_demo');
  expect(res.status).toBe(200);
  expect(res.body.items).toEqual([expect.objectContaining({ name: 'ARRANGED_KEY', namespace: 'llm_provider', key_hint: 'sk-***', created_at: '2026-05-01T09:30:00Z' })]);
  expect(res.text).not.toContain(value);
});

test('when the store passed in has a clock, a different options.clock is refused in one line', async () => {
  const store = await createStore({ scenario: 'empty' });
  try {
    await expect(testApp({ store, clock: new Clock() })).rejects.toThrow(/^createApp: options\.clock is not the clock of options\.store; [^\n]*$/);
  } finally {
    await store.close();
  }
});

test('the createStore block of docs/testing.md runs as written: the app it makes lists the arranged secret', () => {
  const block = codeBlocks(section('docs/testing.md', 'In a fresh project: jest (CommonJS), vitest (ES modules), node:test'), 'ts').find((b) => b.includes('createStore('));
  expect(block).toContain("from 'cloud-browser-mock'");
  // A project where 'cloud-browser-mock' is this repository (built: dist/src), the block as its
  // module, then a check of what the comment on its last line says.
  const dir = mkdtempSync(join(tmpdir(), 'cbm-arrange-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(ROOT, join(dir, 'node_modules', 'cloud-browser-mock'), 'dir');
    const check = [
      "const { createServer } = await import('node:http');",
      "const server = createServer(app).listen(0, '127.0.0.1');",
      "await new Promise((resolve) => server.once('listening', resolve));",
      "const res = await fetch(`http://127.0.0.1:${server.address().port}/secrets`, { headers: { Authorization: 'Bearer sk_test_demo' } });",
      'console.log(JSON.stringify({ status: res.status, names: (await res.json()).items.map((s) => s.name) }));',
      'server.close();',
      'await app.mock.close();',
    ].join('\n');
    writeFileSync(join(dir, 'arrange.mjs'), `${block}\n${check}\n`);
    const r = spawnSync(process.execPath, ['arrange.mjs'], { cwd: dir, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    // The app logs its requests to stdout too (the block sets no logLevel), and pino may write its
    // line after the check's: the check's line is the one that is not a log record.
    const lines = r.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.filter((line) => !('msg' in line))).toEqual([{ status: 200, names: ['KEY'] }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
