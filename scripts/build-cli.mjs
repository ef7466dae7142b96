/**
 * The command's build: `cloud-browser-mock` (bin) runs dist/bin/cli.js, one esbuild bundle of
 * src/cli/cli.ts with its dependencies inside, so that a start reads a few files instead of the ~400
 * modules it otherwise resolves and loads one by one (most of a cold start; BENCHMARKS.md, issue
 * 12). What a start does not need stays in chunks read on first use: express-openapi-validator and
 * multer (loaded after the first answer, or on the first request that needs them), the proxy and
 * the response validator. Library users (`import … from 'cloud-browser-mock'`) get tsc's dist/src.
 */
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * express-openapi-validator 5.6.2 (pinned) builds an OpenAPISchemaValidator on its first request
 * even with `validateApiSpec: false`, which we always pass (src/validation/eov.ts): that compiles
 * the whole OpenAPI 3.1 meta-schema with Ajv, about half of what the first validated request
 * waits for, to validate nothing. In the bundle that class is one that compiles nothing and
 * refuses to be asked to validate. The build stops if eov's use of it is not the one read here.
 */
const eovFramework = join(dirname(createRequire(import.meta.url).resolve('express-openapi-validator/package.json')), 'dist/framework');
const frameworkSource = readFileSync(join(eovFramework, 'index.js'), 'utf8');
const guarded = /if \(validateApiSpec\) \{\s*const apiDocValidation = validator\.validate\(apiDoc\);/;
if (!guarded.test(frameworkSource) || frameworkSource.split('validator.validate(').length !== 2) {
  throw new Error('express-openapi-validator changed how it uses OpenAPISchemaValidator: review scripts/build-cli.mjs');
}
const noApiSpecValidation = {
  name: 'eov-no-api-spec-validation',
  setup(b) {
    b.onResolve({ filter: /^\.\/openapi\.schema\.validator$/ }, (args) =>
      args.resolveDir === eovFramework ? { path: 'openapi-schema-validator', namespace: 'cbm-eov' } : undefined);
    // src/validation/eov.ts makes the same class lazy for in-process use: in the bundle it gets this one.
    b.onResolve({ filter: /^express-openapi-validator\/dist\/framework\/openapi\.schema\.validator\.js$/ }, () => ({ path: 'openapi-schema-validator', namespace: 'cbm-eov' }));
    b.onLoad({ filter: /.*/, namespace: 'cbm-eov' }, () => ({
      loader: 'js',
      contents: `exports.OpenAPISchemaValidator = class OpenAPISchemaValidator {
        constructor(opts) { if (opts.validateApiSpec) throw new Error('cloud-browser-mock runs express-openapi-validator with validateApiSpec: false'); }
        validate() { throw new Error('cloud-browser-mock runs express-openapi-validator with validateApiSpec: false'); }
      };`,
    }));
  },
};

/**
 * A large JSON file a dependency requires (mime-db's two copies, ~390 KB, which express and multer
 * read as they load) goes into the bundle as `JSON.parse` of its text, not as an object literal:
 * V8 parses JSON several times faster than it compiles and runs a literal of the same object
 * (~25 ms of a start that loads both, ~10% of it). Smaller files stay literals.
 */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(b) {
    b.onLoad({ filter: /\.json$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (text.length < 10_000) return undefined;
      return { loader: 'js', contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});` };
    });
  },
};

rmSync('dist/bin', { recursive: true, force: true });
await build({
  entryPoints: { cli: 'dist/src/cli/cli.js' },
  outdir: 'dist/bin',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // swagger-ui-dist is files served as they are (resolved at run time); pino-pretty only runs in a
  // terminal; ajv for a user's scenario file is required from node_modules when one is given.
  external: ['swagger-ui-dist', 'swagger-ui-dist/*', 'pino-pretty'],
  plugins: [noApiSpecValidation, jsonAsParse],
  sourcemap: false,
  // Whitespace and syntax minified (names kept: errors and logs name the same classes and
  // functions): 2.9 → 2.1 MB of JavaScript that every start reads and compiles, ~8% of the CPU a
  // start, one request and a stop take (0.59 → 0.54 s; BENCHMARKS.md, issue 31). Licence
  // comments stay (esbuild's default, at the end of each file).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // Bundled CommonJS modules require Node's built-ins; in an ES module that takes a require.
  banner: { js: "import { createRequire as __cbmCreateRequire } from 'node:module';\nconst require = __cbmCreateRequire(import.meta.url);" },
});
