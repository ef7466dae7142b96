/**
 * The validation stage: raw parameters and the parsed body → the handler's input, or one 422
 * with every error, in FastAPI's order (path, query, header, then body; declaration order
 * within each).
 */
import { err, type PydanticError } from '../errors/catalogue.js';
import { validationError } from '../errors/http-error.js';
import type { ParsedBody, UploadedPart } from '../http/body.js';
import type { Operation } from '../openapi.js';
import { isPyDict } from '../python/values.js';
import type { OperationInput } from '../operations/types.js';
import { INVALID, validateModel, validateString } from './lax.js';

export interface RawParams {
  path: Record<string, string>;
  query: Map<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

export function validateInput(op: Operation, raw: RawParams, body: ParsedBody): OperationInput {
  const errors: PydanticError[] = [];
  const input: OperationInput = { path: {}, query: {}, headers: {}, body: undefined };
  for (const p of op.params) {
    let value: string | undefined;
    if (p.in === 'path') value = raw.path[p.name];
    else if (p.in === 'query') value = raw.query.get(p.name);
    else {
      const h = raw.headers[p.name.toLowerCase()];
      value = Array.isArray(h) ? h.join(', ') : h;
    }
    const target = input[p.in === 'header' ? 'headers' : p.in];
    if (value === undefined) {
      if (p.required) errors.push(err.missing([p.in, p.name]));
      else target[p.name] = p.spec.default ?? null;
      continue;
    }
    const v = validateString(value, p.spec, [p.in, p.name], errors);
    if (v !== INVALID) target[p.name] = v;
  }
  if (op.body) validateBody(op, body, input, errors);
  if (errors.length) throw validationError(errors);
  return input;
}

function validateBody(op: Operation, body: ParsedBody, input: OperationInput, errors: PydanticError[]) {
  const spec = op.body!;
  if (spec.kind === 'json') {
    if (body.kind === 'raw') return void errors.push(err.modelType(['body'], body.text));
    const value = body.kind === 'json' ? body.value : null;
    if (value === null) {
      if (spec.required) errors.push(err.missing(['body']));
      return;
    }
    if (!isPyDict(value)) return void errors.push(err.modelType(['body'], value));
    const v = validateModel(value, spec.fields, ['body'], errors);
    if (v !== INVALID) input.body = v;
    return;
  }
  // Form and multipart bodies: FastAPI reads each declared field from the form; an empty value
  // counts as absent.
  const fields = body.kind === 'form' ? body.fields : new Map();
  const out: Record<string, unknown> = {};
  let ok = true;
  for (const f of spec.fields) {
    const fv = fields.get(f.name);
    const loc = ['body', f.name];
    if (f.spec.kind === 'binary') {
      if (fv?.type === 'file') input.upload = fv.upload as UploadedPart;
      else if (fv === undefined || fv.value === '') {
        if (f.required) (errors.push(err.missing(loc)), (ok = false));
      } else {
        errors.push(err.uploadExpected(loc, fv.value));
        ok = false;
      }
      continue;
    }
    const value = fv === undefined ? undefined : fv.type === 'field' ? fv.value : undefined;
    if (value === undefined || value === '') {
      if (f.required) (errors.push(err.missing(loc)), (ok = false));
      else out[f.name] = f.spec.default ?? null;
      continue;
    }
    const v = validateString(value, f.spec, loc, errors);
    if (v === INVALID) ok = false;
    else out[f.name] = v;
  }
  if (ok) input.body = out;
}
