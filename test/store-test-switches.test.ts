/**
 * The store's test-only switches reach it as an option, never from the environment (issue 32,
 * item 5): every jest run sets NODE_ENV=test, and a user's process may hold CBM_TEST_* for any
 * reason — only the command reads them (src/cli/serve.ts), for the CLI children the crash tests start.
 */
import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../src/app/create-store.js';
import type { Compaction } from '../src/store/log-writer.js';
import { testHooks } from '../src/store/test-hooks.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-switches-'));
});
afterEach(() => {
  delete process.env.CBM_TEST_COMPACT_BYTES;
  rmSync(dir, { recursive: true, force: true });
});

/** Compactions seen while 200 secrets are stored, each an acknowledged write (its own log line). */
async function compactionsOver200Writes(options: Parameters<typeof createStore>[0]): Promise<number> {
  const compactions: Compaction[] = [];
  const store = await createStore({ scenario: 'empty', dataDir: dir, ...options }, { onCompaction: (c) => compactions.push(c) });
  try {
    const ws = await store.workspace('user:dev@example.com');
    for (let i = 0; i < 200; i++) await ws.storeSecret('function_env', `S_${i}`, `value-${i}`, store.clock.now());
  } finally {
    await store.close();
  }
  return compactions.length;
}

test('with NODE_ENV=test and CBM_TEST_COMPACT_BYTES=1024 in the environment, the store compacts nothing: it never reads them', async () => {
  expect(process.env.NODE_ENV).toBe('test');
  process.env.CBM_TEST_COMPACT_BYTES = '1024';
  expect(await compactionsOver200Writes({})).toBe(0);
});

test('the same threshold given as the testHooks option compacts the log', async () => {
  expect(await compactionsOver200Writes({ testHooks: testHooks({ compactionBytes: 1024 }) })).toBeGreaterThan(0);
});
