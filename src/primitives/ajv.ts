/**
 * Ajv as the mock sets it up everywhere (scenario files, response validation, proxy drift): JSON
 * Schema 2020-12, OpenAPI 3.1's dialect, with ajv-formats, and strict mode off (OpenAPI keywords
 * such as `example` are not JSON Schema's), and no meta-schema check of the schemas compiled: they
 * are the mock's own documents or a --spec document already checked on load, and compiling the
 * 2020-12 meta-schema for the check was ~0.3 CPU-s per Ajv instance. Ajv is loaded on the first call, never on import:
 * with its compiled schemas it is the dearest part of start-up, and most runs never need it.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js';

export function createAjv(options: Options = {}): Ajv2020 {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => void;
  const ajv = new Ajv({ strict: false, validateSchema: false, ...options });
  addFormats(ajv);
  return ajv;
}

/** Compiles a schema whose `$ref`s point into the components it was made for (`#/components/…`). */
export interface ComponentsCompiler {
  compile(schema: unknown): ValidateFunction;
  errorsText: Ajv2020['errorsText'];
}

/** Sets of components whose compiled schemas are kept: a process has a few documents (service, control plane, a --spec union). */
const KEPT = 8;
const compilers = new Map<string, { ajv: Ajv2020; compiled: Map<string, ValidateFunction> }>();

/**
 * A compiler for schemas of a document with these `components`, shared in this process by every
 * caller with equal components and options: each app compiles the schemas it validates against,
 * and an app made again of the same document (a reset of an in-process mock, a test suite's next
 * app) takes them compiled instead of compiling them again — compiling is most of what validating
 * costs the first time. A compiled function is pure but for its `errors`, which a caller reads
 * right after the call. A pure cache, not state (it changes no answer), as eov.ts's compiled
 * chains are; the last eight sets of components are kept.
 */
export function componentsCompiler(components: unknown, options: Options = {}): ComponentsCompiler {
  const key = createHash('sha256').update(JSON.stringify(options)).update('\n').update(JSON.stringify(components ?? {})).digest('base64');
  let entry = compilers.get(key);
  if (entry) {
    compilers.delete(key); // most recently used last
  } else {
    const ajv = createAjv(options);
    ajv.addSchema({ $id: 'components', components: components ?? {} });
    entry = { ajv, compiled: new Map() };
    if (compilers.size >= KEPT) compilers.delete(compilers.keys().next().value!);
  }
  compilers.set(key, entry);
  const { ajv, compiled } = entry;
  return {
    compile(schema) {
      const text = JSON.stringify(schema ?? {}).replace(/"#\/components\//g, '"components#/components/');
      let validate = compiled.get(text);
      if (!validate) compiled.set(text, (validate = ajv.compile(JSON.parse(text))));
      return validate;
    },
    errorsText: (errors, opts) => ajv.errorsText(errors, opts),
  };
}
