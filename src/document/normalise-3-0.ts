/**
 * An OpenAPI 3.0 document read in 3.1's meaning, so that everything downstream (validation, the
 * answer generator, the served document) knows one dialect: `nullable: true` becomes a `null`
 * type (or an anyOf with a null branch where the schema has no `type` of its own), a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` becomes the number it qualified, and a `format: binary`
 * string (a file) becomes `contentMediaType: application/octet-stream`. A copy is returned.
 */
import type { OpenApiDocument } from './openapi.js';

type Node = Record<string, any>;

function normaliseSchema(s: Node): Node {
  const out: Node = { ...s };
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] && typeof out[bound] === 'number') {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  if (out.type === 'string' && out.format === 'binary') {
    delete out.format;
    out.contentMediaType = 'application/octet-stream';
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
    if (Array.isArray(out.type)) return out.type.includes('null') ? out : { ...out, type: [...out.type, 'null'] };
    // A $ref or a composition: 3.0's nullable says the value may also be null.
    return { anyOf: [out, { type: 'null' }] };
  }
  if ('nullable' in out) delete out.nullable;
  return out;
}

/** Schema-looking objects anywhere in the document are rewritten; everything else is copied. */
function walk(node: unknown, inExample: boolean): unknown {
  if (Array.isArray(node)) return node.map((v) => walk(v, inExample));
  if (node === null || typeof node !== 'object') return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) out[k] = walk(v, inExample || k === 'example' || k === 'examples' || k === 'default' || k === 'enum' || k === 'const');
  if (inExample) return out;
  const looksLikeSchema = 'nullable' in out || typeof out.exclusiveMinimum === 'boolean' || typeof out.exclusiveMaximum === 'boolean' || (out.type === 'string' && out.format === 'binary');
  return looksLikeSchema ? normaliseSchema(out) : out;
}

export function normalise30(doc: OpenApiDocument): OpenApiDocument {
  const out = walk(doc, false) as OpenApiDocument;
  out.openapi = '3.1.0';
  return out;
}
