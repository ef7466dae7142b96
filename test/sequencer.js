/**
 * The order jest starts the test files in: the slow ones first, so that with two workers the run
 * does not end on one of them alone (jest's own order needs timings from an earlier run, which a
 * fresh clone lacks); then the others, larger files first. Files it does not name keep that order.
 */
import { statSync } from 'node:fs';
import { relative } from 'node:path';

/** Slowest first (measured on a 2-core machine); each pays for a child process, a build or an install. */
const SLOW = [
  'test/package-runners.test.ts',
  'test/python-package.test.ts',
  'test/python-example.test.ts',
  // Every browser case (Swagger UI, the inspector, its pins) shares one Chromium here: ~60 s alone.
  'test/browser.test.ts',
  'test/npx.test.ts',
  'test/robustness/crash-instants.test.ts',
  'test/robustness/control-plane-input.test.ts',
  'test/robustness/kill-points.test.ts',
  'test/robustness/crash-safety.test.ts',
  'test/robustness/connection-flood.test.ts',
  // Then the others that took ~9 s or more under two workers (a full run of session 35), longest
  // first: ordered by size alone they started among the last (skips.test.ts, 11 s, third from the
  // end), so one worker ran them while the other had nothing left.
  'test/cli-flags.test.ts',
  'test/robustness/fuzz-http.test.ts',
  'test/answers.test.ts',
  'test/robustness/control-plane-fuzz.test.ts',
  'test/cli-shutdown.test.ts',
  'test/parity-fuzz.test.ts',
  'test/robustness/concurrency.test.ts',
  'test/skips.test.ts',
  'test/workflow-property.test.ts',
];

export default class SlowFirst {
  sort(tests) {
    const rank = (t) => {
      const i = SLOW.indexOf(relative(t.context.config.rootDir, t.path));
      return i < 0 ? SLOW.length : i;
    };
    const size = (t) => {
      try {
        return statSync(t.path).size;
      } catch {
        return 0;
      }
    };
    return [...tests].sort((a, b) => rank(a) - rank(b) || size(b) - size(a));
  }

  /** jest calls these when present; nothing is kept between runs. */
  cacheResults() {}
}
