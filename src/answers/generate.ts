/**
 * One generated value: json-schema-faker (pinned; zero dependencies; a seeded PRNG and its options
 * per call, so no state is shared between calls or answerers) on a schema prepare-schema.ts made
 * ready, plus what the generator does not do itself, each named here:
 * - formats.ts: date-times from the mock's clock, `duration` in the form validators accept, `byte`
 *   as base64 and the formats it does not know;
 * - property names from `propertyNames` (it names extra properties `prop12345` whatever the schema
 *   says): each such name is generated again from the `propertyNames` schema.
 */
import { generateSync, type JsonSchema } from 'json-schema-faker';
import type { Formats } from './formats.js';

/**
 * The generator's seed for one answer: a 32-bit hash (FNV-1a; it seeds a PRNG and guards nothing,
 * and is a fraction of a cryptographic hash's cost) of everything the answer may depend on.
 */
export function seedOf(...parts: unknown[]): number {
  const text = canonical(parts);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` seed alike. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A value of `schema` for `seed`. `namesProperties` says whether the schema has a `propertyNames`
 * anywhere (prepare-schema.ts tells): only then is every generated node looked at again, which
 * costs the generator a step per node.
 */
export function generateValue(schema: JsonSchema, seed: number, formats: Formats, namesProperties = true): unknown {
  if (!namesProperties) return generateSync(schema, { seed, formats });
  return generateSync(schema, {
    seed,
    formats,
    outputTransform: (value, node, path) => (typeof node === 'object' && node.propertyNames !== undefined ? withPropertyNames(value, node as Record<string, any>, seed, path, formats) : value),
  });
}

/** `value`'s properties not declared in `properties` renamed with names their schema allows. */
function withPropertyNames(value: unknown, schema: Record<string, any>, seed: number, path: string, formats: Formats): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const declared = schema.properties ?? {};
  const nameSchema = { type: 'string', ...(typeof schema.propertyNames === 'object' ? schema.propertyNames : {}) };
  const out: Record<string, unknown> = {};
  let attempt = 0;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    if (key in declared) {
      out[key] = inner;
      continue;
    }
    for (let tries = 0; tries < 20; tries++) {
      const name = generateSync(nameSchema, { seed: seedOf(seed, path, attempt++), formats });
      if (typeof name === 'string' && !(name in out) && !(name in declared)) {
        out[name] = inner;
        break;
      }
    }
  }
  return out;
}
