/**
 * A response schema made ready for json-schema-faker, once per operation and status: every `$ref`
 * inlined (so recursion can be bounded here, where a valid way out is known), and the few things the
 * generator cannot know from the schema alone written into it. The generator alone would:
 * - cut a recursive schema at its depth limit with `null` or a value of any type (invalid), where a
 *   valid answer needs the recursion's way out: an empty array, the `null` branch of an anyOf, an
 *   optional property left out. Here a reference met more than REPEATS times on its own path is cut,
 *   and the cut goes up to the nearest schema that can do without it;
 * - leave out an optional discriminator or `const` property (the published document never lists its
 *   `type` discriminators as required): here each union member gets its discriminator's value as a
 *   `const` and the property required, and every property with a `const` (or a one-value `enum`)
 *   is required, which stays valid because that value is the only one it could have;
 * - write a `contentEncoding: base64` string as plain text: here it gets the `byte` format, whose
 *   generator (formats.ts) writes base64;
 * - draw a number past a lone large bound (numberRules).
 * Optional `writeOnly` properties are left out of answers (they are what a client writes, such as a
 * password). The schema validated against is always the document's own, never this one.
 */

/** How many times one `$ref` may appear on its own path before it is cut. */
const REPEATS = 2;

type Schema = Record<string, any>;
const CUT = Symbol('cut');
type Prepared = Schema | boolean | typeof CUT;

/** The schema at a local JSON pointer (`#/components/schemas/Node`) of `document`, or undefined. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: any = document;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * What one preparation shares: the document, the references already prepared whose result does not
 * depend on the path they were met on (no cut below them: reused as they are), and the cuts so far.
 */
interface Context {
  document: Schema;
  done: Map<string, Prepared>;
  cuts: number;
}

/** Whether a prepared schema has a `propertyNames` anywhere (whose names generate.ts fixes). */
export const namesProperties = (schema: unknown) => JSON.stringify(schema).includes('"propertyNames"');

/** `schema` ready for the generator, every reference inlined and recursion bounded. */
export function prepareSchema(document: Schema, schema: unknown): Schema | boolean {
  const prepared = prepare({ document, done: new Map(), cuts: 0 }, schema, []);
  return prepared === CUT ? {} : prepared;
}

const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas'] as const;
const SUBSCHEMAS = ['items', 'additionalProperties', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems'] as const;
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'readOnly', 'writeOnly', 'deprecated', 'example', 'examples', 'summary']);
/** Keywords no answer is generated from (writeOnly is read, below, before it goes). */
const UNUSED = new Set(['description', 'title', '$comment', 'readOnly', 'deprecated', 'example', 'examples', '$defs', 'definitions', 'xml', 'externalDocs', '$schema', '$id']);

function prepare(context: Context, schema: unknown, path: string[]): Prepared {
  if (typeof schema === 'boolean') return schema ? {} : CUT;
  if (schema === null || typeof schema !== 'object') return {};
  const node = schema as Schema;
  if (typeof node.$ref === 'string') return prepareRef(context, node, path);

  // Only what generates a value is kept: the generator copies and merges every keyword of every
  // node it walks, so a title, a description or an example costs on every answer.
  const out: Schema = {};
  for (const key in node) if (!UNUSED.has(key)) out[key] = node[key];
  for (const key of SUBSCHEMAS) {
    if (out[key] === undefined || typeof out[key] === 'boolean') continue;
    const sub = prepare(context, out[key], path);
    if (sub !== CUT) out[key] = sub;
    else if (key === 'items') {
      if ((out.minItems ?? 0) > 0) return CUT;
      out.maxItems = 0; // the recursion's way out: an empty array
      delete out.items;
    } else if (key === 'not' || key === 'if' || key === 'then' || key === 'else' || key === 'contains') delete out[key];
    else out[key] = false;
  }
  for (const key of SCHEMA_MAPS) {
    if (!out[key] || typeof out[key] !== 'object') continue;
    const map: Schema = {};
    for (const [name, sub] of Object.entries(out[key] as Schema)) {
      const prepared = prepare(context, sub, path);
      if (prepared !== CUT) map[name] = prepared;
      else if (key === 'properties' && (out.required ?? []).includes(name)) return CUT;
    }
    out[key] = map;
  }
  for (const key of SCHEMA_LISTS) {
    if (!Array.isArray(out[key])) continue;
    const members = (out[key] as unknown[]).map((member) => prepare(context, member, path));
    if (key === 'allOf' || key === 'prefixItems') {
      if (members.includes(CUT)) return CUT;
      out[key] = members;
    } else {
      const kept = withDiscriminator(out.discriminator, out[key] as Schema[], members).filter((m) => m !== CUT);
      if (!kept.length) return CUT;
      out[key] = kept;
    }
  }
  delete out.discriminator; // read above; the generator has no use for it
  return objectRules(out);
}

function prepareRef(context: Context, node: Schema, path: string[]): Prepared {
  const ref = node.$ref as string;
  let resolved = context.done.get(ref);
  if (resolved === undefined) {
    if (path.filter((seen) => seen === ref).length >= REPEATS) {
      context.cuts++;
      return CUT;
    }
    const target = resolvePointer(context.document, ref);
    if (target === undefined) throw new Error(`unresolvable $ref ${ref}`);
    const cuts = context.cuts;
    resolved = prepare(context, target, [...path, ref]);
    if (context.cuts === cuts) context.done.set(ref, resolved);
  }
  const siblings = Object.fromEntries(Object.entries(node).filter(([k]) => k !== '$ref' && !ANNOTATIONS.has(k)));
  if (resolved === CUT || !Object.keys(siblings).length) return resolved;
  const rest = prepare(context, siblings, path);
  return rest === CUT ? CUT : { allOf: [resolved, rest] };
}

/**
 * Each member of a discriminated union carries its discriminator value: the mapping's key for the
 * member's `$ref`, or (OpenAPI's implicit mapping) the name of the component it refers to.
 */
function withDiscriminator(discriminator: unknown, raw: Schema[], members: Prepared[]): Prepared[] {
  const property = (discriminator as Schema | undefined)?.propertyName;
  if (typeof property !== 'string') return members;
  const mapping = ((discriminator as Schema).mapping ?? {}) as Record<string, string>;
  return members.map((member, i) => {
    const ref = raw[i]?.$ref;
    if (member === CUT || typeof member === 'boolean' || typeof ref !== 'string') return member;
    const value = Object.keys(mapping).find((key) => mapping[key] === ref) ?? ref.slice(ref.lastIndexOf('/') + 1);
    return withConst(member, property, value);
  });
}

function withConst(member: Schema, property: string, value: string): Schema {
  const own = member.properties?.[property];
  if (own && typeof own === 'object' && (own.const !== undefined || own.enum?.length === 1)) return { ...member, required: required(member, property) };
  const fixed = { properties: { [property]: { type: 'string', const: value } }, required: [property] };
  if (member.properties) return { ...member, properties: { ...member.properties, ...fixed.properties }, required: required(member, property) };
  return { allOf: [member, fixed] };
}

function required(schema: Schema, name: string): string[] {
  const list: string[] = Array.isArray(schema.required) ? schema.required : [];
  return list.includes(name) ? list : [...list, name];
}

/**
 * The generator draws a number between -1000 and 1000 where a bound is missing, even past the
 * bound that is there (`minimum: 5000` answered 3198): the missing bound is set 1000 beyond it.
 */
function numberRules(out: Schema): void {
  const low = typeof out.exclusiveMinimum === 'number' ? out.exclusiveMinimum : out.minimum;
  const high = typeof out.exclusiveMaximum === 'number' ? out.exclusiveMaximum : out.maximum;
  if (typeof low === 'number' && high === undefined && low >= 1000) out.maximum = low + 1000;
  if (typeof high === 'number' && low === undefined && high <= -1000) out.minimum = high - 1000;
}

/** A `const` property required, an optional `writeOnly` one left out, base64 text as base64. */
function objectRules(out: Schema): Schema {
  if (out.contentEncoding === 'base64' && out.format === undefined) out.format = 'byte';
  numberRules(out);
  if (!out.properties) return out;
  const properties = out.properties as Schema;
  let req: string[] = Array.isArray(out.required) ? out.required : [];
  for (const [name, sub] of Object.entries(properties)) {
    if (!sub || typeof sub !== 'object') continue;
    if ((sub.const !== undefined || sub.enum?.length === 1) && !req.includes(name)) req = [...req, name];
    else if (sub.writeOnly === true && !req.includes(name)) delete properties[name];
  }
  if (req.length) out.required = req;
  return out;
}
