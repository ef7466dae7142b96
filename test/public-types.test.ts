/**
 * The public types as a user's TypeScript meets them: test/fixtures/types/surface/public-surface.ts
 * uses them as a test suite would, and marks with `@ts-expect-error` what must not compile (a
 * journal cursor given as a number, a snapshot to import passed off as an export). tsc fails on
 * an error, and on an expected error that does not occur.
 */
import { expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

test('the public types compile as a user writes them: req_N cursors, ClockState, WorkspaceExport/WorkspaceImport, the container as a MockControl, …Ms options', () => {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'test', 'fixtures', 'types', 'surface', 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
  expect([run.status, run.stdout]).toEqual([0, '']);
});
