/**
 * The types of the CommonJS build of `cloud-browser-mock/testcontainers`
 * (dist/src/testcontainers.cjs, esbuild's; see scripts/build-cjs.mjs): tsc makes
 * testcontainers.d.cts from this file. Its exports are the ES module's, so its types are too.
 */
export * from './testcontainers.js';
