/**
 * Crash instants a test can name (issue 26, item 6): kill points inside the store that timed
 * kills cannot hit (an append takes microseconds). They reach the store as an option
 * (StoreOptions.testHooks); the store never reads the environment. Only the command does, under
 * NODE_ENV=test (src/cli/serve.ts), for the CLI children the robustness tests start:
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

/** The switches as given: `crashAt` is `<point>[:<n>]`. */
export interface TestSwitches {
  crashAt?: string;
  compactionBytes?: number;
}

export function testHooks({ crashAt, compactionBytes }: TestSwitches): TestHooks {
  if (!crashAt && compactionBytes === undefined) return NO_HOOKS;
  const [point, nth] = (crashAt ?? '').split(':');
  let left = Number(nth ?? 1);
  return {
    compactionBytes,
    armed: (p) => p === point,
    reach(p) {
      if (p === point && --left === 0) process.kill(process.pid, 'SIGKILL');
    },
  };
}
