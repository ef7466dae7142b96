/** Jest 30 in ESM mode, TypeScript through @swc/jest (ts-jest does not work with TypeScript 7). */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/examples/**/*.test.ts'],
  // What jest's file map crawls at every start (this run's, and each child jest a test starts):
  // the tests and the sources, not node_modules' ~14,000 files or dist/ (~0.45 CPU-s a start).
  // Imports from elsewhere (scripts/, bench/, dist/, node_modules) resolve as usual.
  roots: ['<rootDir>/test', '<rootDir>/examples', '<rootDir>/src'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  // A generous bound, never a speed check: on a busy 2-core machine with three workers a heavy case
  // (a document's every operation for one seed, a CLI child's start) can take well past 30 s.
  testTimeout: 120000,
  // Three workers on two cores: with two, a fresh clone's run left the cores idle ~6% of the time
  // (a file waiting on a child's start, an install's network round trips, Chromium); a third
  // worker fills those gaps (267–285 s with two, 256 s with three, issue 31). The slow files
  // start first (test/sequencer.js). A fourth gained nothing: 241 s and 254 s against 236, 238
  // and 248 s with three on the same tests (session 36).
  maxWorkers: 3,
  // A worker ends the run holding a ~350–480 MB heap (--logHeapUsage), which takes a loaded
  // two-core machine longer to free than jest's default 500 ms grace: every run printed "A worker
  // process has failed to exit gracefully" though nothing outlives a file (a probe of each worker's
  // live resources every 100 ms saw only its three pipes at the end). A full run with 3 s did not.
  workerGracefulExitTimeout: 3000,
  testSequencer: '<rootDir>/test/sequencer.js',
  // Jest's runtime, compiling each dependency's CommonJS code once per worker instead of once per
  // test file, and reading and transforming each file of the project once per worker
  // (test/jest-runtime.cjs; every file still gets its own module registry).
  runtime: '<rootDir>/test/jest-runtime.cjs',
  // The default summary only counts skipped tests; this names them, and a skip's reason is in its title.
  reporters: ['default', '<rootDir>/test/skipped-reporter.js'],
};
