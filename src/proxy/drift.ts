/**
 * Drift: where the real service's answers (or a client's requests) leave openapi.json. Answers are
 * checked against a strict copy of the document — FastAPI-style schemas allow fields they do not
 * name, so every object that lists its properties gets `additionalProperties: false` — with every
 * problem of an answer collected. A problem's `got` names a type or a shape, never a value, so
 * secret values, tokens and uploaded bytes cannot reach a drift record or the log.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Logger } from 'pino';
import { isoTime, type Clock } from '../primitives/clock.js';
import type { OpenApiDocument, Operation } from '../document/openapi.js';
import { createAjv } from '../primitives/ajv.js';
import { typeName, type DriftProblem } from './drift-problem.js';

export type { DriftProblem };

export interface DriftRecord {
  /** `service`: a real answer left the document; `client`: a request the document forbids. */
  source: 'service' | 'client';
  operationId: string;
  method: string;
  /** The path template, e.g. `/mailboxes/{mailbox_id}`. */
  path: string;
  status: number;
  problems: DriftProblem[];
  first_seen: string;
  last_seen: string;
  count: number;
}

/** Every object schema that names its properties and says nothing of others refuses them. */
function strictCopy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictCopy);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([n, s]) => [n, strictCopy(s)])) : strictCopy(v);
  if (out.properties && !('additionalProperties' in out)) out.additionalProperties = false;
  return out;
}

/** A short description of what a schema allows, from the schema alone. */
function describe(schema: any): string {
  if (!schema || typeof schema !== 'object') return 'any value';
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(describe).join(' | ');
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((e: unknown) => JSON.stringify(e)).join(', ')}`;
  if (schema.type === 'array') return `array of ${describe(schema.items)}`;
  if (schema.format) return `${schema.type} (${schema.format})`;
  return schema.type ? String(schema.type) : 'any value';
}

/** `/items/0/healthy` → `body.items[].healthy`: items are one shape, so their indexes do not split records. */
function location(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[]` : `${acc}.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`), 'body');
}

function problemsOf(errors: ErrorObject[]): DriftProblem[] {
  // Errors inside an anyOf branch are summed up by the anyOf error itself.
  const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath));
  const inBranch = (e: ErrorObject) => [...anyOfAt].some((p) => e.schemaPath.startsWith(`${p}/`));
  const out: DriftProblem[] = [];
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && inBranch(e)) continue;
    const got = typeName(e.data);
    switch (e.keyword) {
      case 'required': {
        const field = String((e.params as { missingProperty: string }).missingProperty);
        out.push({ where: location(e.instancePath, field), what: 'missing required field', expected: describe((e.parentSchema as any)?.properties?.[field]), got: 'absent' });
        break;
      }
      case 'additionalProperties': {
        const field = String((e.params as { additionalProperty: string }).additionalProperty);
        out.push({ where: location(e.instancePath, field), what: 'field the document does not name', expected: 'absent', got: typeName((e.data as Record<string, unknown>)[field]) });
        break;
      }
      case 'type':
      case 'anyOf':
        out.push({ where: location(e.instancePath), what: 'wrong type', expected: describe(e.parentSchema), got });
        break;
      case 'enum':
        out.push({ where: location(e.instancePath), what: 'value outside the enum', expected: describe(e.parentSchema), got: `${got} outside the enum` });
        break;
      case 'format':
        out.push({ where: location(e.instancePath), what: 'wrong format', expected: describe(e.parentSchema), got: `${got} not in ${String((e.params as { format: string }).format)} format` });
        break;
      default:
        // The message comes from the schema (`must be >= 0`), never from the value.
        out.push({ where: location(e.instancePath), what: `fails ${e.keyword}`, expected: e.message ?? e.keyword, got });
    }
  }
  return out;
}

const mediaType = (ct: string | undefined) => (ct ?? '').split(';')[0].trim().toLowerCase();

export class DriftLog {
  #records = new Map<string, DriftRecord>();
  #ajv = createAjv({ allErrors: true, verbose: true });
  #validators = new Map<string, ValidateFunction>();
  #responses = new Map<string, Record<string, any>>();

  constructor(document: OpenApiDocument, private readonly clock: Clock, private readonly logger: Logger) {
    this.#ajv.addSchema({ $id: 'strict', components: strictCopy(document.components) });
    for (const item of Object.values(document.paths as Record<string, any>)) for (const op of Object.values(item as Record<string, any>)) this.#responses.set(op.operationId, op.responses ?? {});
  }

  /** Every problem of one real answer; `body` is undefined when it was not kept (binary, or too large). */
  checkResponse(op: Operation, status: number, contentType: string | undefined, body: Buffer | undefined): DriftProblem[] {
    const documented = this.#responses.get(op.id)?.[String(status)];
    if (!documented) return [{ where: 'status', what: 'undocumented status', expected: op.statuses.join(', '), got: String(status) }];
    const media = documented.content ? Object.keys(documented.content)[0] : undefined;
    if (!media) return body && body.length ? [{ where: 'body', what: 'body where none is documented', expected: 'no body', got: `${body.length} bytes` }] : [];
    if (media !== 'application/json') return []; // bytes: any content type the file has
    const got = mediaType(contentType);
    if (got !== 'application/json' && !got.endsWith('+json')) return [{ where: 'content-type', what: 'wrong content type', expected: 'application/json', got: got || 'none' }];
    if (!body) return [];
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return [{ where: 'body', what: 'not JSON', expected: describe(documented.content[media].schema), got: 'unparseable text' }];
    }
    const key = `${op.id} ${status}`;
    let validate = this.#validators.get(key);
    if (!validate) {
      const schema = JSON.parse(JSON.stringify(strictCopy(documented.content[media].schema)).replace(/"#\/components\//g, '"strict#/components/'));
      this.#validators.set(key, (validate = this.#ajv.compile(schema)));
    }
    return validate(value) ? [] : problemsOf(validate.errors ?? []);
  }

  /** Adds (or counts again) a drift record; a new one is logged once as a warning. */
  record(source: DriftRecord['source'], op: Operation, status: number, problems: DriftProblem[]): void {
    if (!problems.length) return;
    const unique = [...new Map(problems.map((p) => [JSON.stringify(p), p])).values()];
    const key = JSON.stringify([source, op.id, status, unique.map((p) => JSON.stringify(p)).sort()]);
    const now = isoTime(this.clock.now());
    const known = this.#records.get(key);
    if (known) {
      known.count++;
      known.last_seen = now;
      return;
    }
    const rec: DriftRecord = { source, operationId: op.id, method: op.method, path: op.path, status, problems: unique, first_seen: now, last_seen: now, count: 1 };
    this.#records.set(key, rec);
    this.logger.warn({ drift: { source, operationId: op.id, status, problems: unique } }, source === 'service' ? 'the real service answered outside openapi.json' : 'the client sent a request openapi.json forbids');
  }

  list(): DriftRecord[] {
    return [...this.#records.values()].map((r) => structuredClone(r));
  }

  clear(): void {
    this.#records.clear();
  }
}
