/**
 * Ajv as the mock sets it up everywhere (scenario files, response validation, proxy drift): JSON
 * Schema 2020-12, OpenAPI 3.1's dialect, with ajv-formats, and strict mode off (OpenAPI keywords
 * such as `example` are not JSON Schema's), and no meta-schema check of the schemas compiled: they
 * are the mock's own documents or a --spec document already checked on load, and compiling the
 * 2020-12 meta-schema for the check was ~0.3 CPU-s per Ajv instance. Ajv is loaded on the first call, never on import:
 * with its compiled schemas it is the dearest part of start-up, and most runs never need it.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, Options } from 'ajv/dist/2020.js';

export function createAjv(options: Options = {}): Ajv2020 {
  const require = createRequire(import.meta.url);
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => void;
  const ajv = new Ajv({ strict: false, validateSchema: false, ...options });
  addFormats(ajv);
  return ajv;
}
