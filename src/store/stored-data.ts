/**
 * What a data directory holds, read the way the store reads it (each workspace's snapshot with
 * its change log replayed), without opening it: for the benchmark, which counts acknowledged
 * writes on disk, and for tests that look at the disk after a crash. Nothing is changed — a torn
 * last line is skipped here, not cut off. A running mock may put a new snapshot in place and delete
 * the log generations it took in between this reading the snapshot and the logs: such a reading
 * is made again.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceData } from '../model/records.js';
import { recoverWorkspace } from './recovery.js';

/** Every stored workspace of the data directory's current state, by principal. */
export function readStoredWorkspaces(dataDir: string): Map<string, WorkspaceData> {
  const meta = JSON.parse(readFileSync(join(dataDir, 'meta.json'), 'utf8')) as { state: string };
  const wsDir = join(dataDir, meta.state, 'workspaces');
  const out = new Map<string, WorkspaceData>();
  for (const n of readdirSync(wsDir)) {
    if (!n.endsWith('.json') || n.startsWith('.')) continue;
    const file = join(wsDir, n);
    for (let attempt = 1; ; attempt++) {
      const before = statSync(file, { bigint: true });
      try {
        const { data } = recoverWorkspace(wsDir, n.slice(0, -'.json'.length), file, { repair: false });
        const after = statSync(file, { bigint: true });
        if (before.ino === after.ino && before.mtimeNs === after.mtimeNs) {
          out.set(data.principal, data);
          break;
        }
      } catch (e) {
        if (attempt >= 5) throw e;
      }
      if (attempt >= 5) throw new Error(`${file} kept changing while it was read`);
    }
  }
  return out;
}
