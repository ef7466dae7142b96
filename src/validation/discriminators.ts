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

/**
 * What the walk found: the tag errors, and where a valid tag chose a member — Pydantic puts that
 * tag into the location of every error inside it (`['body', 'task', 'browse', 'instruction']`).
 */
export interface Discriminated {
  errors: PydanticError[];
  tagged: { loc: Loc; tag: string; property: string; member: Schema }[];
}

export function discriminate(doc: OpenApiDocument, schema: Schema | undefined, value: PyValue | undefined): Discriminated {
  const out: Discriminated = { errors: [], tagged: [] };
  walk(doc, schema, value, ['body'], 0, false, out);
  return out;
}

/** The location of an error below a chosen member, with the member's tag put in as Pydantic does. */
export function withTags(loc: Loc, tagged: Discriminated['tagged']): Loc {
  let out = loc;
  // Deepest first: an inner union's tag goes in before an outer one shifts the positions.
  for (const t of [...tagged].sort((a, b) => b.loc.length - a.loc.length)) {
    if (t.loc.length < out.length && t.loc.every((k, i) => out[i] === k)) out = [...out.slice(0, t.loc.length), t.tag, ...out.slice(t.loc.length)];
  }
  return out;
}

function walk(doc: OpenApiDocument, schema: Schema | undefined, value: PyValue | undefined, loc: Loc, depth: number, inAnyOf: boolean, out: Discriminated): void {
  if (value === undefined || schema === undefined || depth > MAX_DEPTH) return;
  const s = resolveRef(doc, schema);
  if (s.discriminator && typeof s.discriminator.propertyName === 'string' && (s.oneOf || s.anyOf)) {
    const property: string = s.discriminator.propertyName;
    // Within an anyOf, a value that is no object is another branch's (its own type error is eov's).
    if (!isPyDict(value)) {
      if (!inAnyOf) out.errors.push(err.unionTagNotFound(loc, toPlain(value), property));
      return;
    }
    const tag = (value as Map<string, PyValue>).get(property);
    if (tag === undefined) return void out.errors.push(err.unionTagNotFound(loc, toPlain(value), property));
    const tags = tagsOf(doc, s, property);
    const member = typeof tag === 'string' ? tags.get(tag) : undefined;
    if (!member) return void out.errors.push(err.unionTagInvalid(loc, toPlain(value), property, typeof tag === 'string' ? tag : String(toPlain(tag)), [...tags.keys()]));
    out.tagged.push({ loc, tag: tag as string, property, member: resolveRef(doc, member) });
    return walk(doc, member, value, loc, depth + 1, false, out);
  }
  // A nullable field (anyOf with null): a null sent is the null branch's; else every branch is walked.
  if (Array.isArray(s.anyOf)) {
    if (value !== null) for (const b of s.anyOf) walk(doc, b, value, loc, depth + 1, true, out);
    return;
  }
  if (Array.isArray(s.allOf)) for (const b of s.allOf) walk(doc, b, value, loc, depth + 1, inAnyOf, out);
  if (isPyDict(value) && s.properties) {
    for (const [name, sub] of Object.entries(s.properties as Record<string, Schema>)) {
      const v = (value as Map<string, PyValue>).get(name);
      if (v !== undefined) walk(doc, sub, v, [...loc, name], depth + 1, false, out);
    }
  } else if (Array.isArray(value) && s.items) value.forEach((v, i) => walk(doc, s.items, v, [...loc, i], depth + 1, false, out));
}
