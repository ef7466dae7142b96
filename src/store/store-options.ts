/** What a Store is opened with, and what it keeps of a data directory it opened. */
import type { Clock } from '../primitives/clock.js';
import type { DataDir, Meta } from './data-dir.js';
import type { DataDirLock } from './data-dir-lock.js';
import type { Compaction } from './log-writer.js';
import type { LoadedScenario } from '../scenarios/scenario.js';
import type { TestHooks } from './test-hooks.js';

export interface StoreOptions {
  /** Absolute path of the data directory; ignored when inMemory. */
  dataDir?: string;
  inMemory: boolean;
  scenario: string;
  seed: number;
  resetData?: boolean;
  clock: Clock;
  cwd?: string;
  /** Workspaces kept in memory beyond those in use (least recently used go first). */
  workspacesInMemory?: number;
  /** One line for the operator (a record whose bytes were missing, a lock being waited for). */
  warn?: (line: string) => void;
  /**
   * A young-generation collection every 8 MiB of an upload (store/blobs.ts), which keeps peak
   * memory down but sets V8's --expose-gc for the whole process: the CLI's choice, off by default.
   */
  gcDuringUploads?: boolean;
  /**
   * Compaction of the workspaces' change logs into their snapshots (default on). Off, a log only
   * grows: the benchmark's way to make a workspace whose log holds 100k changes.
   */
  compactLogs?: boolean;
  /** Told of every compaction (the app logs it at debug level: `workspace compacted`). */
  onCompaction?: (c: Compaction) => void;
  /**
   * Sees the scenario as loaded, before a data directory is opened or made, and may refuse it by
   * throwing (the app: pins that could never answer), so a refused start leaves nothing behind.
   */
  acceptScenario?: (scenario: LoadedScenario) => void;
  /**
   * Under test only: named crash instants and a smaller compaction threshold (test-hooks.ts).
   * The store never reads the environment; the command passes these on from CBM_TEST_* under
   * NODE_ENV=test.
   */
  testHooks?: TestHooks;
}

export interface OnDisk {
  dir: DataDir;
  meta: Meta;
  lock: DataDirLock;
}
