/**
 * The types of the CommonJS build (dist/src/index.cjs, `require('cloud-browser-mock')`): tsc makes
 * index.d.cts from this file (tsconfig.json includes it); the bundle itself is esbuild's
 * (scripts/build-cjs.mjs). Its exports are the ES module's, so its types are too.
 */
export * from './index.js';
