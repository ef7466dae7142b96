/**
 * openapi.json is the single source of truth: the route table, the parameters and bodies the
 * validator checks, and the documented responses all come from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../primitives/package-root.js';

// Generated from openapi.json (`npm run generate`), never listed by hand.
export { OPERATION_IDS, type OperationId } from '../generated/service-api.js';
import type { OperationId } from '../generated/service-api.js';

/** A schema of the document with its `$ref`s and null branch resolved: what a string is parsed as. */
export type Schema = Record<string, any>;

export interface ParamSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  /** The parameter's schema, `$ref` and null branch resolved (a string is never null). */
  schema: Schema;
}

export interface BodyField {
  name: string;
  required: boolean;
  /** `format: binary`: an upload. */
  binary: boolean;
  schema: Schema;
}

export type BodyKind = 'json' | 'form' | 'multipart';

/** One way to authenticate an added operation: a bearer token (OAuth2, HTTP bearer) or an API key in a header. */
export type SecurityCheck = { kind: 'bearer' } | { kind: 'apiKey'; header: string };

/** What the pipeline knows of an operation a supplied document added (--spec). */
export interface AddedOperation {
  /** The operation object as the served union holds it (parameters, body and responses followed). */
  operation: Record<string, any>;
  /**
   * Its security requirements, OpenAPI's way: any one alternative satisfied, each alternative's
   * checks all; empty: open. A missing `security` key inherited the document's.
   */
  security: SecurityCheck[][];
  /** Request body fields whose schema is `format: password` or `writeOnly` (the journal redacts them at any depth). */
  secretFields: ReadonlySet<string>;
}

export interface Operation {
  /** The operationId: one of OperationId for the built-in fifteen; any id of the union for an added one. */
  id: OperationId;
  method: string;
  /** The path template as the document declares it, e.g. `/secrets/{name}`. */
  path: string;
  regex: RegExp;
  pathParams: string[];
  params: ParamSpec[];
  /** The body: its kind, and for forms the declared fields (FastAPI reads each from the form). */
  body?: { kind: BodyKind; required: boolean; schema: Schema; fields: BodyField[] };
  secured: boolean;
  /** Documented statuses, as strings, in document order. */
  statuses: string[];
  /** Set for an operation a supplied document added (answered by the generator, not a handler). */
  added?: AddedOperation;
}

export type OpenApiDocument = Record<string, any>;

export function readOpenApi(): OpenApiDocument {
  return JSON.parse(readFileSync(join(packageRoot, 'openapi.json'), 'utf8'));
}

/** Starlette's path compilation: `{name}` matches one non-empty segment. */
function compilePath(template: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const src = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { regex: new RegExp(`^${src}$`), names };
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const BODY_KINDS: Record<string, BodyKind> = {
  'application/json': 'json',
  'application/x-www-form-urlencoded': 'form',
  'multipart/form-data': 'multipart',
};

/**
 * The operations in routing order. FastAPI tries routes in declaration order, and that order
 * shows in 405 Allow headers; JSON path items cannot interleave methods of different paths, so
 * the document records the declaration order in `x-route-order`.
 */
/** Follows `$ref`s within the document. */
export function resolveRef(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 32; i++) s = String(s.$ref).split('/').slice(1).reduce((o: any, k: string) => o?.[k], doc) ?? {};
  return s;
}

/**
 * `Optional[X]` seen as X: the one place the `{"type": "null"}` branch of a schema's anyOf is
 * dropped — a string parameter or form field is never null (and eov's coercion would turn
 * `?source=null` into null), and an error's location follows the value's own schema. The schema's
 * `$ref` is followed first. One branch left: that branch, its `$ref` followed, under the outer
 * schema's own keys (its title, default and description win); several: the outer schema with
 * them; no null branch: the schema as it is.
 */
export function withoutNullBranch(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  const s = resolveRef(doc, schema);
  if (!Array.isArray(s.anyOf)) return s;
  const rest = s.anyOf.filter((b: Schema) => b?.type !== 'null');
  if (rest.length === s.anyOf.length) return s;
  const { anyOf: _anyOf, ...outer } = s;
  return rest.length === 1 ? { ...resolveRef(doc, rest[0]), ...outer } : { ...outer, anyOf: rest };
}

/**
 * The operations in routing order. `added` names the operations a supplied document added to the
 * union (union.ts): their security comes from their own requirements, their body may have a media
 * type the mock does not read (then it is not read), and their secret fields are collected.
 */
export function buildOperations(doc: OpenApiDocument, added: ReadonlySet<string> = new Set()): Operation[] {
  const byId = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      if (!HTTP_METHODS.has(method)) continue;
      const isAdded = added.has(op.operationId);
      const { regex, names } = compilePath(path);
      const params: ParamSpec[] = (op.parameters ?? [])
        .filter((p: any) => p.in === 'path' || p.in === 'query' || p.in === 'header')
        .map((p: any) => ({
          name: p.name,
          in: p.in,
          required: Boolean(p.required),
          schema: withoutNullBranch(doc, p.schema),
        }));
      // Errors are reported path → query → header whatever the declaration order (CONTRACT §4).
      const rank = { path: 0, query: 1, header: 2 } as const;
      params.sort((a, b) => rank[a.in] - rank[b.in]);
      let body: Operation['body'];
      const media = op.requestBody ? readableMedia(op.requestBody.content ?? {}) : undefined;
      if (media) {
        const [mediaType, content] = media;
        const schema = resolveRef(doc, content.schema);
        const required = new Set<string>(schema.required ?? []);
        const fields = Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, s]) => {
          const field = withoutNullBranch(doc, s);
          return { name, required: required.has(name), binary: isFile(field), schema: field };
        });
        body = { kind: BODY_KINDS[mediaType], required: Boolean(op.requestBody.required), schema, fields };
      }
      const security = isAdded ? securityChecks(doc, op.security ?? []) : undefined;
      byId.set(op.operationId, {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        regex,
        pathParams: names,
        params,
        body,
        secured: security ? security.length > 0 && security.every((alt) => alt.length > 0) : Array.isArray(op.security) && op.security.length > 0,
        statuses: Object.keys(op.responses ?? {}),
        // Always present, undefined for the fifteen: one object shape for every operation, so the
        // stages' property reads stay monomorphic once a union's operations flow through them too.
        added: security ? { operation: op, security, secretFields: secretFields(doc, op.requestBody) } : undefined,
      });
    }
  }
  const order: string[] = doc['x-route-order'] ?? [...byId.keys()];
  const missing = [...byId.keys()].filter((id) => !order.includes(id));
  if (missing.length) throw new Error(`openapi.json: x-route-order does not list ${missing.join(', ')}`);
  return order.map((id) => {
    const op = byId.get(id);
    if (!op) throw new Error(`openapi.json: x-route-order names unknown operation ${id}`);
    return op;
  });
}

/** The first media type of a body the mock reads (JSON, urlencoded, multipart); another is not read. */
function readableMedia(content: Record<string, any>): [string, any] | undefined {
  return Object.entries(content).find(([m]) => Object.hasOwn(BODY_KINDS, m));
}

/** A file part: `format: binary` (FastAPI's UploadFile) or, in 3.1's words, a `contentMediaType`. */
function isFile(schema: Schema): boolean {
  return schema.format === 'binary' || (schema.type === 'string' && typeof schema.contentMediaType === 'string');
}

/** An added operation's requirements as checks (spec-file.ts refused every other scheme type). */
function securityChecks(doc: OpenApiDocument, requirements: Record<string, unknown>[]): SecurityCheck[][] {
  return requirements.map((req) =>
    Object.keys(req ?? {}).map((name): SecurityCheck => {
      const scheme = doc.components?.securitySchemes?.[name] ?? {};
      return scheme.type === 'apiKey' ? { kind: 'apiKey', header: String(scheme.name).toLowerCase() } : { kind: 'bearer' };
    }),
  );
}

/** Names of the body's properties, at any depth, whose schema is `format: password` or `writeOnly`. */
function secretFields(doc: OpenApiDocument, requestBody: any): Set<string> {
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (schema: any, name: string | undefined, depth: number) => {
    const s = resolveRef(doc, schema);
    if (!s || typeof s !== 'object' || depth > 32) return;
    if (name !== undefined && (s.format === 'password' || s.writeOnly === true || schema?.writeOnly === true)) names.add(name);
    if (seen.has(s)) return;
    seen.add(s);
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, any>)) visit(v, k, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) for (const b of s[key] ?? []) visit(b, name, depth + 1);
    for (const key of ['items', 'additionalProperties', 'not'] as const) if (s[key] && typeof s[key] === 'object') visit(s[key], name, depth + 1);
  };
  for (const media of Object.values((requestBody?.content ?? {}) as Record<string, any>)) visit(media?.schema, undefined, 0);
  return names;
}
