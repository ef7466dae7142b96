/**
 * The CommonJS build, for `require('cloud-browser-mock')` and
 * `require('cloud-browser-mock/testcontainers')` from test runners that cannot load ES modules
 * (jest without --experimental-vm-modules). One esbuild bundle per entry, src/index.ts at
 * dist/src/index.cjs and src/testcontainers.ts at dist/src/testcontainers.cjs; their types are
 * tsc's dist/src/*.d.cts, from src/index.cts and src/testcontainers.cts, which tsconfig.json
 * includes: one tsc run checks the program once for both (a second run over tsconfig of its own
 * checked the same ~200 files again, ~2.5 CPU-s per build). That run also emits a .cjs for each
 * .cts, which the bundles written here replace, so the build runs this script after tsc.
 *
 * Dependencies that are CommonJS stay external (required from node_modules at run time);
 * the ES-module-only ones (lowdb and its steno, json-schema-faker) are bundled in, because jest's CommonJS runtime
 * cannot load an ES module at all.
 */
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const ESM_ONLY = new Set(['lowdb', 'steno', '@faker-js/faker', 'json-schema-faker']);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// testcontainers is an optional peer dependency (CommonJS): the user's own copy is required.
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})]
  .filter((name) => !ESM_ONLY.has(name))
  .flatMap((name) => [name, `${name}/*`]);

for (const entry of ['index', 'testcontainers']) await build({
  entryPoints: [`src/${entry}.ts`],
  outfile: `dist/src/${entry}.cjs`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external,
  // jest's CommonJS runtime cannot run import() (express-openapi-validator and multer are
  // imported on first use): in this build every import() of a dependency is a require().
  supported: { 'dynamic-import': false },
  sourcemap: true,
  logLevel: 'warning',
  // import.meta.url (primitives/package-root.ts, web/docs.ts, scenarios/scenario.ts: where the package and its
  // dependencies are) has no CommonJS meaning; the bundle's own file URL is its equivalent.
  define: { 'import.meta.url': '__cbm_import_meta_url' },
  banner: { js: "const __cbm_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
});
