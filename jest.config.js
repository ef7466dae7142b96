/** Jest 30 in ESM mode, TypeScript through @swc/jest (ts-jest does not work with TypeScript 7). */
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/examples/**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testTimeout: 30000,
  // The default summary only counts skipped tests; this names them, and a skip's reason is in its title.
  reporters: ['default', '<rootDir>/test/skipped-reporter.js'],
};
