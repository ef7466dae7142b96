/**
 * Crash instants a test can name (issue 26, item 6): kill points inside the store that timed
 * kills cannot hit (an append takes microseconds). Read from the environment only when
 * NODE_ENV is "test" — a test sets it for the CLI it starts; a user's process never reads them:
 *
 *   CBM_TEST_CRASH_AT=<point>[:<n>]   SIGKILL at the n-th time (default 1st) the point is reached
 *   CBM_TEST_COMPACT_BYTES=<bytes>    compact a change log once it holds this many bytes
 *
 * Points: mid-append (half of a group's line written), between-groups (a group written, not yet
 * acknowledged), mid-compaction (part of a new snapshot in its temporary file), after-rename (the
 * new snapshot in place, the old log generations not yet deleted), mid-repair (recovery about to
 * cut a torn line off), after-snapshot (a whole document written at once — an import, a view's
 * first write — in place, the old log generations and the replaced records' blobs not yet
 * deleted), mid-reset (a reset committed — one workspace's snapshot removed, or meta.json switched
 * to a new state directory — what it replaced not yet deleted).
 */
export type CrashPoint = 'mid-append' | 'between-groups' | 'mid-compaction' | 'after-rename' | 'mid-repair' | 'after-snapshot' | 'mid-reset';

export interface TestHooks {
  /** Kills the process when `point` is the named one, at its n-th reaching. */
  reach(point: CrashPoint): void;
  armed(point: CrashPoint): boolean;
  compactionBytes?: number;
}

export const NO_HOOKS: TestHooks = { reach: () => undefined, armed: () => false };

export function testHooks(env: NodeJS.ProcessEnv = process.env): TestHooks {
  if (env.NODE_ENV !== 'test' || (!env.CBM_TEST_CRASH_AT && !env.CBM_TEST_COMPACT_BYTES)) return NO_HOOKS;
  const [point, nth] = (env.CBM_TEST_CRASH_AT ?? '').split(':');
  let left = Number(nth ?? 1);
  const compactionBytes = env.CBM_TEST_COMPACT_BYTES ? Number(env.CBM_TEST_COMPACT_BYTES) : undefined;
  return {
    compactionBytes,
    armed: (p) => p === point,
    reach(p) {
      if (p === point && --left === 0) process.kill(process.pid, 'SIGKILL');
    },
  };
}
