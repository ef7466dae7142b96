/**
 * What a data directory holds, read the way the store reads it (each workspace's snapshot with
 * its change log replayed), without opening it: for the benchmark, which counts acknowledged
 * writes on disk, and for tests that look at the disk after a crash. Nothing is changed — a torn
 * last line is skipped here, not cut off.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceData } from '../model/records.js';
import { recoverWorkspace } from './change-log.js';

/** Every stored workspace of the data directory's current state, by principal. */
export function readStoredWorkspaces(dataDir: string): Map<string, WorkspaceData> {
  const meta = JSON.parse(readFileSync(join(dataDir, 'meta.json'), 'utf8')) as { state: string };
  const wsDir = join(dataDir, meta.state, 'workspaces');
  const out = new Map<string, WorkspaceData>();
  for (const n of readdirSync(wsDir)) {
    if (!n.endsWith('.json') || n.startsWith('.')) continue;
    const { data } = recoverWorkspace(wsDir, n.slice(0, -'.json'.length), join(wsDir, n), { repair: false });
    out.set(data.principal, data);
  }
  return out;
}
