/**
 * Discriminated unions (`oneOf`/`anyOf` with a `discriminator`) as Pydantic checks them: the tag
 * is read first, and a missing or unknown tag is one error at the union's location —
 * `union_tag_not_found` or `union_tag_invalid` — where Ajv reports every member's every mismatch.
 * The walk follows the body the client sent along its schema; the errors it finds replace eov's
 * at and below their locations (input.ts).
 */
import { err, type Loc, type PydanticError } from '../errors/catalogue.js';
import { resolveRef, type OpenApiDocument, type Schema } from '../document/openapi.js';
import { isPyDict, toPlain, type PyValue } from '../python/values.js';

const MAX_DEPTH = 32;

/** A member's tag: the mapping's key that names it, else its discriminator property's `const` or one-value `enum`. */
function tagsOf(doc: OpenApiDocument, union: Schema, property: string): Map<string, Schema> {
  const tags = new Map<string, Schema>();
  const members: Schema[] = union.oneOf ?? union.anyOf ?? [];
  for (const [tag, ref] of Object.entries((union.discriminator.mapping ?? {}) as Record<string, string>)) tags.set(tag, resolveRef(doc, { $ref: ref }));
  for (const m of members) {
    const s = resolveRef(doc, m);
    const p = resolveRef(doc, s.properties?.[property]);
    const tag = 'const' in p ? p.const : Array.isArray(p.enum) && p.enum.length === 1 ? p.enum[0] : undefined;
    if (typeof tag === 'string' && !tags.has(tag)) tags.set(tag, s);
  }
  return tags;
}

export function discriminatorErrors(doc: OpenApiDocument, schema: Schema | undefined, value: PyValue | undefined, loc: Loc = ['body'], depth = 0, inAnyOf = false): PydanticError[] {
  if (value === undefined || schema === undefined || depth > MAX_DEPTH) return [];
  const s = resolveRef(doc, schema);
  if (s.discriminator && typeof s.discriminator.propertyName === 'string' && (s.oneOf || s.anyOf)) {
    const property: string = s.discriminator.propertyName;
    // Within an anyOf, a value that is no object is another branch's (its own type error is eov's).
    if (!isPyDict(value)) return inAnyOf ? [] : [err.unionTagNotFound(loc, toPlain(value), property)];
    const tag = (value as Map<string, PyValue>).get(property);
    if (tag === undefined) return [err.unionTagNotFound(loc, toPlain(value), property)];
    const tags = tagsOf(doc, s, property);
    const member = typeof tag === 'string' ? tags.get(tag) : undefined;
    if (!member) return [err.unionTagInvalid(loc, toPlain(value), property, typeof tag === 'string' ? tag : String(toPlain(tag)), [...tags.keys()])];
    return discriminatorErrors(doc, member, value, loc, depth + 1);
  }
  // A nullable field (anyOf with null): a null sent is the null branch's; else every branch is walked.
  if (Array.isArray(s.anyOf) && value !== null) return s.anyOf.flatMap((b: Schema) => discriminatorErrors(doc, b, value, loc, depth + 1, true)).slice(0, 1);
  if (Array.isArray(s.allOf)) return s.allOf.flatMap((b: Schema) => discriminatorErrors(doc, b, value, loc, depth + 1));
  if (isPyDict(value) && s.properties) {
    const out: PydanticError[] = [];
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      const v = (value as Map<string, PyValue>).get(name);
      if (v !== undefined) out.push(...discriminatorErrors(doc, sub, v, [...loc, name], depth + 1));
    }
    return out;
  }
  if (Array.isArray(value) && s.items) return value.flatMap((v, i) => discriminatorErrors(doc, s.items, v, [...loc, i], depth + 1));
  return [];
}
