/**
 * Requests sampled from an OpenAPI document's own schemas, the way a client of the service would
 * send them: the test of issue 30's "every added operation, sent a request sampled from its own
 * schemas, answers 2xx with a valid body". A seeded walk over JSON Schema 2020-12 (and 3.0's
 * `nullable`/boolean `exclusiveMinimum`), with fast-check for `pattern`s. The tests check every
 * sample against its schema with Ajv before sending it, so a sampler mistake fails as one, never as
 * the mock's.
 */
import fc from 'fast-check';

type Schema = Record<string, any>;
export type Document = Record<string, any>;

/** mulberry32: small, seeded, good enough to pick branches and lengths. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The value at a local `$ref` (`#/components/schemas/X`). */
export function resolve(doc: Document, schema: Schema): Schema {
  let s = schema;
  for (let hops = 0; s && typeof s.$ref === 'string' && hops < 32; hops++) {
    s = s.$ref
      .slice(2)
      .split('/')
      .map((p: string) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((node: any, key: string) => node?.[key], doc);
    if (!s) throw new Error(`sampler: unresolvable ${schema.$ref}`);
  }
  return s;
}

export class Sampler {
  private readonly random: () => number;
  private patternRuns = 0;

  constructor(
    private readonly doc: Document,
    private readonly seed: number,
  ) {
    this.random = rng(seed);
  }

  private pick<T>(items: T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  /** A value valid for `schema`; `depth` bounds recursion (optional parts are left out past it). */
  value(input: Schema, depth = 0): unknown {
    const schema = resolve(this.doc, input);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return this.pick(schema.nullable ? schema.enum : schema.enum.filter((v: unknown) => v !== null));
    if (schema.nullable === true && this.random() < 0.25) return null;
    if (Array.isArray(schema.allOf)) {
      const { allOf, ...rest } = schema;
      return this.value(allOf.reduce((merged: Schema, part: Schema) => mergeObjects(merged, resolve(this.doc, part)), rest), depth);
    }
    const union = schema.oneOf ?? schema.anyOf;
    if (Array.isArray(union)) {
      if (schema.discriminator?.mapping) {
        const [tag, target] = this.pick(Object.entries(schema.discriminator.mapping) as [string, string][]);
        const member = this.value({ $ref: target }, depth) as Record<string, unknown>;
        return { ...member, [schema.discriminator.propertyName]: tag };
      }
      const members = depth > 3 ? union.filter((m: Schema) => resolve(this.doc, m).type === 'null') : union;
      const nonNull = union.filter((m: Schema) => resolve(this.doc, m).type !== 'null');
      const choice = members.length && (depth > 3 || this.random() < 0.2) ? this.pick(members) : this.pick(nonNull.length ? nonNull : union);
      return this.value(choice, depth);
    }
    const type = Array.isArray(schema.type) ? this.pick(schema.type as string[]) : schema.type;
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return this.random() < 0.5;
      case 'integer':
      case 'number':
        return this.number(schema, type === 'integer');
      case 'string':
        return this.string(schema);
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? min + 2, min + 2);
        const n = depth > 3 ? min : this.int(min, max);
        return Array.from({ length: n }, () => this.value(schema.items ?? {}, depth + 1));
      }
      case 'object':
        return this.object(schema, depth);
      default:
        if (schema.properties || schema.required) return this.object(schema, depth);
        // `{}`: anything; a small JSON value.
        return this.pick<unknown>(['any', 7, true, { k: 'v' }, ['x']]);
    }
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required: string[] = schema.required ?? [];
    for (const [name, prop] of Object.entries<Schema>(schema.properties ?? {})) {
      if (resolve(this.doc, prop).readOnly) continue;
      if (required.includes(name) || (depth <= 3 && this.random() < 0.6)) out[name] = this.value(prop, depth + 1);
    }
    const extra = schema.additionalProperties;
    if (extra && typeof extra === 'object' && !schema.properties) {
      const n = Math.max(schema.minProperties ?? 0, depth > 3 ? 0 : this.int(0, 2));
      for (let i = 0; i < n; i++) out[`key${i}`] = this.value(extra, depth + 1);
    }
    return out;
  }

  private number(schema: Schema, integer: boolean): number {
    // 3.1's numeric exclusive bounds, or 3.0's boolean ones beside minimum/maximum.
    let lo = schema.minimum ?? -1000;
    let hi = schema.maximum ?? 1000;
    if (typeof schema.exclusiveMinimum === 'number') lo = Math.max(lo, schema.exclusiveMinimum + (integer ? 1 : 0.001));
    else if (schema.exclusiveMinimum === true) lo += integer ? 1 : 0.001;
    if (typeof schema.exclusiveMaximum === 'number') hi = Math.min(hi, schema.exclusiveMaximum - (integer ? 1 : 0.001));
    else if (schema.exclusiveMaximum === true) hi -= integer ? 1 : 0.001;
    if (integer) return this.int(Math.ceil(lo), Math.floor(hi));
    return Math.round((lo + this.random() * (hi - lo)) * 1000) / 1000;
  }

  private string(schema: Schema): string {
    const n = this.int(0, 9999);
    switch (schema.format) {
      case 'date-time':
        return new Date(Date.UTC(2026, this.int(0, 11), this.int(1, 28), this.int(0, 23), this.int(0, 59))).toISOString();
      case 'date':
        return `2026-0${this.int(1, 9)}-1${this.int(0, 9)}`;
      case 'uri':
        return `https://example.test/page/${n}`;
      case 'email':
        return `user${n}@example.test`;
      case 'uuid':
        return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      case 'duration':
        return `PT${this.int(1, 59)}M`;
      case 'binary':
        return `bytes-${n}`;
    }
    if (schema.pattern) {
      this.patternRuns++;
      const [s] = fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { seed: this.seed * 1000 + this.patternRuns, numRuns: 1 });
      return s;
    }
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? min + 12, min + 12);
    const length = this.int(Math.max(min, 1), Math.max(max, 1));
    const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return Array.from({ length }, () => this.pick([...letters])).join('');
  }
}

function mergeObjects(a: Schema, b: Schema): Schema {
  return {
    ...a,
    ...b,
    properties: { ...a.properties, ...b.properties },
    required: [...(a.required ?? []), ...(b.required ?? [])],
  };
}

/** Is this multipart property a file part (3.1's contentMediaType, 3.0's format binary)? */
export const isFilePart = (doc: Document, prop: Schema) => {
  const s = resolve(doc, prop);
  return s.type === 'string' && (s.format === 'binary' || typeof s.contentMediaType === 'string');
};

export interface SampledRequest {
  method: string;
  path: string;
  template: string;
  operationId: string;
  query: Record<string, string>;
  /** JSON body, or multipart fields (file parts as Buffers) when `multipart` is set. */
  body?: unknown;
  multipart?: Record<string, string | Buffer>;
}

/** A request for one operation: path parameters, query (nulls left out) and body, sampled. */
export function sampleRequest(doc: Document, template: string, method: string, seed: number): SampledRequest {
  const operation = doc.paths[template][method];
  const s = new Sampler(doc, seed);
  const params = [...(doc.paths[template].parameters ?? []), ...(operation.parameters ?? [])].map((p: Schema) => resolve(doc, p));
  let path = template;
  const query: Record<string, string> = {};
  for (const p of params) {
    if (p.in === 'path') {
      // A path segment: letters and digits, never empty (an empty one would be another route).
      path = path.replace(`{${p.name}}`, encodeURIComponent(`${p.name.replace(/_id$/, '')}_${seed}x${s.value({ type: 'string', minLength: 4, maxLength: 8 })}`));
    } else if (p.in === 'query' && (p.required || s.value({ type: 'boolean' }))) {
      const v = s.value(p.schema);
      if (v !== null && v !== undefined) query[p.name] = String(v);
    }
  }
  const req: SampledRequest = { method, path, template, operationId: operation.operationId, query };
  const content = resolve(doc, operation.requestBody ?? {}).content;
  if (content?.['application/json']) {
    req.body = s.value(content['application/json'].schema);
  } else if (content?.['multipart/form-data']) {
    const schema = resolve(doc, content['multipart/form-data'].schema);
    const fields = s.value(schema) as Record<string, unknown>;
    req.multipart = {};
    for (const [name, value] of Object.entries(fields)) {
      if (value === null || value === undefined) continue;
      req.multipart[name] = isFilePart(doc, schema.properties[name]) ? Buffer.from(`file ${seed} ${name}\n`) : String(value);
    }
  }
  return req;
}
