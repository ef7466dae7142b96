/**
 * The validation stage: the routed request and its read body → the handler's input, or one 422
 * with every error in FastAPI's order. express-openapi-validator decides validity (eov.ts);
 * around it only the Pydantic pieces it cannot do: parsing strings the lax way (lax.ts), an
 * upload where a plain field came (FastAPI's "Expected UploadFile"), and the error mapping
 * (pydantic-errors.ts).
 */
import { err, type PydanticError } from '../errors/catalogue.js';
import { validationError } from '../errors/http-error.js';
import type { ParsedBody, UploadedPart } from '../http/body.js';
import type { OpenApiDocument, Operation, Schema } from '../document/openapi.js';
import { isPyDict, toPlain, type PyValue } from '../python/values.js';
import type { ValidatedInput } from '../operations/types.js';
import type { EovError, OpenApiRequestValidator } from './eov.js';
import { INVALID, laxJson, parseStringInput } from './lax.js';
import { expectedType, locOf, pydanticErrors, type ErrorContext } from './pydantic-errors.js';
import { discriminate, withTags, type Discriminated } from './discriminators.js';

export interface RawParams {
  path: Record<string, string>;
  query: Map<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

/** Media type eov is told the body has: the operation's own (framing was decided on reading). */
const MEDIA = { json: 'application/json', form: 'application/x-www-form-urlencoded', multipart: 'multipart/form-data' } as const;

/** Rounds of Pydantic's lax conversion (each converts every value eov rejected on type). */
const MAX_LAX_ROUNDS = 8;

export async function validateInput(eov: OpenApiRequestValidator, doc: OpenApiDocument, op: Operation, raw: RawParams, body: ParsedBody): Promise<ValidatedInput> {
  const own: PydanticError[] = [];
  const input: ValidatedInput = { path: {}, query: {}, headers: {}, body: undefined };
  const sent = { path: {} as Record<string, unknown>, query: {} as Record<string, unknown>, header: {} as Record<string, unknown> };
  const forEov = { params: {} as Record<string, string>, query: {} as Record<string, unknown>, headers: {} as Record<string, string> };
  const params: ErrorContext['params'] = { path: new Map(), query: new Map(), header: new Map() };
  for (const p of op.params) {
    params[p.in].set(p.name, p.schema);
    let value: string | undefined;
    if (p.in === 'path') value = raw.path[p.name];
    else if (p.in === 'query') value = raw.query.get(p.name);
    else {
      const h = raw.headers[p.name.toLowerCase()];
      value = Array.isArray(h) ? h.join(', ') : h;
    }
    const target = input[p.in === 'header' ? 'headers' : p.in];
    if (value === undefined) {
      if (!p.required) target[p.name] = p.schema.default ?? null;
      continue;
    }
    sent[p.in][p.name] = value;
    const v = parseStringInput(value, p.schema, [p.in, p.name], own);
    if (v === INVALID) continue;
    target[p.name] = v;
    if (p.in === 'path') forEov.params[p.name] = value;
    else if (p.in === 'query') forEov.query[p.name] = v;
    else forEov.headers[p.name.toLowerCase()] = value;
  }

  let eovBody: unknown;
  let rawBody: PyValue | undefined;
  const form = op.body !== undefined && op.body.kind !== 'json';
  if (op.body && !form) {
    if (body.kind === 'raw') rawBody = body.text;
    else if (body.kind === 'json' && body.value !== null) rawBody = body.value;
    eovBody = rawBody === undefined ? undefined : toPlain(rawBody);
    // eov requires a body only when its schema lists required properties; FastAPI whenever the
    // operation's requestBody is required.
    if (rawBody === undefined && op.body.required) own.push(err.missing(['body']));
  } else if (op.body) {
    const fields = body.kind === 'form' ? body.fields : new Map();
    const out: Record<string, unknown> = {};
    const dict: PyValue = new Map();
    for (const f of op.body.fields) {
      const fv = fields.get(f.name);
      // FastAPI reads each declared field from the form; an empty value counts as absent.
      if (f.binary) {
        if (fv?.type === 'file') {
          input.upload = fv.upload as UploadedPart;
          out[f.name] = '';
        } else if (fv !== undefined && fv.value !== '') own.push(err.uploadExpected(['body', f.name], fv.value));
        continue;
      }
      if (fv?.type !== 'field' || fv.value === '') continue;
      dict.set(f.name, fv.value);
      const v = parseStringInput(fv.value, f.schema, ['body', f.name], own);
      if (v !== INVALID) out[f.name] = v;
    }
    rawBody = dict;
    eovBody = out;
  }

  const ctx: ErrorContext = { doc, params, body: op.body?.schema, raw: { ...sent, body: rawBody }, form };
  let errors = await eov.validate({ operationId: op.id, params: forEov.params, query: forEov.query, headers: forEov.headers, contentType: op.body ? MEDIA[op.body.kind] : undefined, body: eovBody });
  // Pydantic's lax mode: a JSON value eov rejected on type may be one Pydantic converts.
  for (let round = 0; round < MAX_LAX_ROUNDS && !form && errors.length; round++) {
    let converted = false;
    // Inside a union of several types, Pydantic's smart mode picks a branch; we convert only a
    // value with a single declared type.
    const unions = new Set(errors.filter((e) => e.errorCode.startsWith('anyOf.') || e.errorCode.startsWith('oneOf.')).map((e) => e.path));
    for (const e of errors) {
      const type = laxTarget(e);
      if (!type || unions.has(e.path)) continue;
      const loc = locOf(e.path, ctx);
      const value = valueAt(rawBody, loc.slice(1)) as PyValue | undefined;
      if (value === undefined) continue;
      const r = laxJson(value, type, loc);
      if ('value' in r && setAt(eovBody, loc.slice(1), r.value)) converted = true;
    }
    if (!converted) break;
    errors = await eov.validate({ operationId: op.id, params: forEov.params, query: forEov.query, headers: forEov.headers, contentType: MEDIA.json, body: eovBody });
  }
  // A discriminated union of an added operation: Pydantic's one tag error stands for everything
  // eov found at and below it (the fifteen have none, and are not walked).
  let unions: Discriminated | undefined;
  if (op.added && !form && rawBody !== undefined) {
    unions = discriminate(doc, op.body!.schema, rawBody);
    const tagErrors = unions.errors;
    if (tagErrors.length) {
      own.push(...tagErrors);
      const under = (loc: (string | number)[]) => tagErrors.some((t) => t.loc.every((k, i) => loc[i] === k));
      errors = errors.filter((e) => !under(locOf(e.path, ctx)));
    }
    // Ajv reports every member's mismatches; Pydantic only the chosen member's.
    errors = errors.filter((e) => !otherMember(locOf(e.path, ctx), unions!.tagged));
  }
  // Our own errors stand for their location: eov saw nothing there (or saw it as missing).
  const ownLocs = new Set(own.map((e) => JSON.stringify(e.loc)));
  errors = errors.filter((e) => !ownLocs.has(JSON.stringify(locOf(e.path, ctx))));
  laxErrors(errors, rawBody, ctx, own);
  if (errors.length || own.length) {
    const detail = pydanticErrors(errors, own, ctx);
    throw validationError(unions?.tagged.length ? detail.map((e) => ({ ...e, loc: withTags(e.loc, unions!.tagged) })) : detail);
  }
  if (op.body) input.body = form || eovBody !== undefined ? declared(op.body.schema, eovBody, op) : undefined;
  return input;
}

/** An error below a union whose tag chose a member, at its tag or at a field that member does not declare: another member's. */
function otherMember(loc: (string | number)[], tagged: Discriminated['tagged']): boolean {
  return tagged.some((t) => {
    if (loc.length <= t.loc.length || !t.loc.every((k, i) => loc[i] === k)) return false;
    const field = loc[t.loc.length];
    return field === t.property || !Object.hasOwn(t.member.properties ?? {}, String(field));
  });
}

/** The type Pydantic's lax mode may convert a JSON value to, for a type error of Ajv's `type` keyword. */
function laxTarget(e: EovError): 'boolean' | 'integer' | 'number' | undefined {
  const type = e.errorCode.startsWith('type.') ? expectedType(e) : undefined;
  return type === 'boolean' || type === 'integer' || type === 'number' ? type : undefined;
}

/** Type errors Pydantic's lax mode would not convert either: its own error type for them. */
function laxErrors(errors: EovError[], rawBody: PyValue | undefined, ctx: ErrorContext, own: PydanticError[]) {
  for (let i = errors.length - 1; i >= 0; i--) {
    const e = errors[i];
    const type = laxTarget(e);
    if (!type) continue;
    const loc = locOf(e.path, ctx);
    if (loc[0] !== 'body' || ctx.form) continue;
    const value = valueAt(rawBody, loc.slice(1)) as PyValue | undefined;
    if (value === undefined) continue;
    const r = laxJson(value, type, loc);
    if (!('value' in r)) {
      errors.splice(i, 1);
      if (!own.some((o) => JSON.stringify(o.loc) === JSON.stringify(loc))) own.push(r);
    }
  }
}

function valueAt(v: PyValue | undefined, path: (string | number)[]): PyValue | undefined {
  let cur: PyValue | undefined = v;
  for (const k of path) cur = Array.isArray(cur) ? cur[k as number] : isPyDict(cur as PyValue) ? (cur as Map<string, PyValue>).get(String(k)) : undefined;
  return cur;
}

function setAt(root: unknown, path: (string | number)[], value: unknown): boolean {
  if (path.length === 0) return false;
  let cur: any = root;
  for (const k of path.slice(0, -1)) cur = cur?.[k];
  if (cur === null || typeof cur !== 'object') return false;
  cur[path[path.length - 1]] = value;
  return true;
}

/** The validated body as a handler sees it: the declared fields (defaults applied by eov). */
function declared(schema: Schema, value: unknown, op: Operation): unknown {
  if (!schema.properties || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) out[name] = v;
    else if (op.body!.kind !== 'json') out[name] = op.body!.fields.find((f) => f.name === name)?.schema.default ?? null;
  }
  return out;
}
