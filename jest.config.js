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
  // A generous bound, never a speed check: on a busy 2-core machine with two workers a heavy case
  // (a document's every operation for one seed, a CLI child's start) can take well past 30 s.
  testTimeout: 120000,
  // Two workers on two cores: most of the slow files wait on child processes, installs and the
  // network rather than compute, so a second worker nearly halves the run (issue 31). The slow
  // files start first (test/sequencer.js).
  maxWorkers: 3,
  testSequencer: '<rootDir>/test/sequencer.js',
  // The default summary only counts skipped tests; this names them, and a skip's reason is in its title.
  reporters: ['default', '<rootDir>/test/skipped-reporter.js'],
};
