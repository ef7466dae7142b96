/**
 * Answers for the operations of a supplied document, without state (issue 30, item 3): the
 * documented example when there is one (`Prefer: example=NAME` picks a named one, as Prism does),
 * else a body json-schema-faker generates from the documented schema, valid against it, fitted to
 * the request (fit.ts). Everything it answers is a function of its input: values of the seed, the
 * operation and the request (path parameters, query, body), date-times of `now`, new ids of `newId`.
 * Each operation's schema is prepared and its validators compiled once, on its first answer.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from 'json-schema-faker';
import { componentsCompiler, type ComponentsCompiler } from '../primitives/ajv.js';
import { isText, seededBytes, sentType } from './bytes.js';
import { defaultStatus, documentedAnswer, documentedStatuses, isJson, pickExample, PreferError, type DocumentedAnswer } from './documented.js';
import { fitToRequest } from './fit.js';
import { formatsAt, type Formats } from './formats.js';
import { generateValue, seedOf } from './generate.js';
import { namesProperties, prepareSchema, resolvePointer } from './prepare-schema.js';

export { PreferError } from './documented.js';

export interface AnswerRequest {
  operation: Record<string, any>;
  operationId: string;
  pathParams: Record<string, string>;
  query: Record<string, string | string[]>;
  /** The JSON body exactly as the client sent it (parsed), before validation filled defaults. */
  sentBody?: unknown;
  prefer?: { code?: number; example?: string };
  seed: number | string;
  /** The mock's clock: every generated date and date-time is this instant. */
  now: Date;
  /** New id for a field (e.g. 'session_id' → 'sess_' + 16 hex) from the workspace generator; undefined = let the generator choose. */
  newId?: (field: string) => string | undefined;
}

export interface GeneratedAnswer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  bytes?: Buffer;
  contentType?: string;
  noBody?: boolean;
}

export interface Answerer {
  answer(req: AnswerRequest): GeneratedAnswer;
  /** A body for `status` of the operation (its example, else one generated with a fixed seed), or undefined when it has none. */
  bodyFor(operationId: string, status: number): unknown;
  /** Why `body` is not a valid answer of the operation for `status` ("/config/port must be integer"), or undefined when it is. */
  validateAnswer(operationId: string, status: number, body: unknown): string | undefined;
}

/** One operation's answer for one status, prepared on first use. */
interface Plan {
  documented: DocumentedAnswer;
  json: boolean;
  generator?: JsonSchema;
  namesProperties: boolean;
  validate?: ValidateFunction;
  /** The top-level fields of the answer's schema, each with its validator compiled on first use. */
  fields: Map<string, Record<string, any>>;
  fieldNames: ReadonlySet<string>;
  fieldChecks: Map<string, ValidateFunction>;
  /** Documented headers' schemas, prepared on first use. */
  headers: Map<string, JsonSchema>;
}

/** Headers a documented response lists that are the transport's, never generated. */
const TRANSPORT_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding', 'connection']);
/** Generated answers tried before the last one is given as it is (a schema the generator cannot satisfy). */
const ATTEMPTS = 4;

export function createAnswerer(document: Record<string, any>): Answerer {
  // Ajv is loaded and made on the first answer, not when the answerer is: it is the dearest part of a
  // start. The document was checked when it was loaded, so its schemas are not checked against the
  // meta-schema again (a third of a second for a document of 60 schemas); what is compiled is shared
  // with every answerer of the same document in the process. A schema Ajv cannot compile is
  // answered without the check (`fallback`), never with an error.
  let ajv: ComponentsCompiler | undefined;
  const compile = (schema: unknown, fallback: boolean) => {
    ajv ??= componentsCompiler(document.components, { allErrors: false });
    try {
      return ajv.compile(schema);
    } catch {
      return Object.assign(() => fallback, { errors: [] }) as unknown as ValidateFunction;
    }
  };
  const operations = new Map<string, Record<string, any>>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, any>)) {
    for (const op of Object.values(item ?? {})) if (op && typeof op === 'object' && typeof (op as any).operationId === 'string') operations.set((op as any).operationId, op as Record<string, any>);
  }
  const plans = new Map<string, Plan>();
  const defaultStatuses = new WeakMap<object, number | undefined>();
  // The formats of the last clock reading: answers in a row mostly share one (a frozen clock always).
  let clock: { at: number; formats: Formats } = { at: NaN, formats: {} };
  const formatsFor = (now: Date) => {
    if (clock.at !== now.getTime()) clock = { at: now.getTime(), formats: formatsAt(now) };
    return clock.formats;
  };

  const planFor = (operationId: string, operation: Record<string, any>, status: number): Plan => {
    const key = `${operationId} ${status}`;
    let plan = plans.get(key);
    if (plan) return plan;
    const documented = documentedAnswer(document, operation, operationId, status);
    const json = documented.media !== undefined && isJson(documented.media);
    const fields = topLevelFields(document, documented.schema);
    plan = { documented, json, namesProperties: false, fields, fieldNames: new Set(fields.keys()), fieldChecks: new Map(), headers: new Map() };
    if (documented.media !== undefined) {
      plan.generator = prepareSchema(document, documented.schema ?? {}) as JsonSchema;
      plan.namesProperties = namesProperties(plan.generator);
      if (json) plan.validate = compile(documented.schema, true);
    }
    plans.set(key, plan);
    return plan;
  };

  const fits = (plan: Plan) => (name: string, value: unknown) => {
    let check = plan.fieldChecks.get(name);
    if (!check) plan.fieldChecks.set(name, (check = compile(plan.fields.get(name), false)));
    return check(value);
  };

  const generateJson = (plan: Plan, req: AnswerRequest, seed: number): unknown => {
    let answer: unknown = null;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let generated: unknown;
      try {
        generated = generateValue(plan.generator!, attempt ? seedOf(seed, attempt) : seed, formatsFor(req.now), plan.namesProperties);
      } catch {
        continue; // a schema the generator gives up on (contradictory bounds): another seed, then null
      }
      answer = fitToRequest(generated, req, plan.fieldNames, fits(plan));
      if (plan.validate!(answer)) return answer;
      if (answer !== generated && plan.validate!(generated)) return generated;
    }
    return answer;
  };

  const headersOf = (plan: Plan, seed: number, now: Date): Record<string, string> | undefined => {
    const entries = Object.entries(plan.documented.headers).flatMap(([name, header]): Array<[string, string]> => {
      const schema = (resolveRef(document, header) as Record<string, any> | undefined)?.schema;
      if (TRANSPORT_HEADERS.has(name.toLowerCase()) || !schema) return [];
      let prepared = plan.headers.get(name);
      if (!prepared) plan.headers.set(name, (prepared = prepareSchema(document, schema) as JsonSchema));
      const value = generateValue(prepared, seedOf(seed, name), formatsFor(now));
      return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
    });
    return entries.length ? Object.fromEntries(entries) : undefined;
  };

  /** The status answered without `Prefer: code`, or undefined when the operation documents none to answer. */
  const statusOf = (operation: Record<string, any>): number | undefined => {
    if (!defaultStatuses.has(operation)) {
      const status = defaultStatus(operation);
      defaultStatuses.set(operation, documentedStatuses(operation).includes(status) || operation.responses?.default ? status : undefined);
    }
    return defaultStatuses.get(operation);
  };

  const answer = (req: AnswerRequest): GeneratedAnswer => {
    const status = req.prefer?.code ?? statusOf(req.operation);
    // An operation documenting no status to answer without Prefer (no 2xx, no default) answers an empty 200.
    if (status === undefined) return { status: 200, noBody: true };
    const plan = planFor(req.operationId, req.operation, status);
    const { media } = plan.documented;
    const example = pickExample(plan.documented, req.operationId, req.prefer?.example);
    if (media === undefined) return { status, noBody: true };
    const seed = seedOf(req.seed, req.operationId, status, req.pathParams, req.query, req.sentBody ?? null);
    const headers = headersOf(plan, seed, req.now);
    const head: GeneratedAnswer = { status, contentType: sentType(media), ...(headers && { headers }) };
    if (plan.json) return { ...head, json: example ? structuredClone(example[1]) : generateJson(plan, req, seed) };
    if (example) return { ...head, bytes: Buffer.from(typeof example[1] === 'string' ? example[1] : JSON.stringify(example[1])) };
    const schema = plan.documented.schema as Record<string, any> | undefined;
    if (isText(media) && schema?.type === 'string' && schema.format !== 'binary') return { ...head, bytes: Buffer.from(String(generateValue(plan.generator!, seed, formatsFor(req.now), plan.namesProperties))) };
    return { ...head, bytes: seededBytes(seed) };
  };

  return {
    answer,

    bodyFor(operationId, status) {
      const operation = operations.get(operationId);
      if (!operation) return undefined;
      try {
        const given = answer({ operation, operationId, pathParams: {}, query: {}, seed: 0, now: new Date(0), prefer: { code: status } });
        return given.json ?? (given.bytes ? given.bytes.toString('utf8') : undefined);
      } catch (error) {
        if (error instanceof PreferError) return undefined; // a status the operation does not document
        throw error;
      }
    },

    validateAnswer(operationId, status, body) {
      const operation = operations.get(operationId);
      if (!operation) return `${operationId} is not an operation of the document`;
      let plan: Plan;
      try {
        plan = planFor(operationId, operation, status);
      } catch (error) {
        if (error instanceof PreferError) return `${status} is not a status ${operationId} documents`;
        throw error;
      }
      if (plan.documented.media === undefined) return body === undefined || body === null ? undefined : `a ${status} answer of ${operationId} has no body`;
      if (!plan.validate || plan.validate(body)) return undefined;
      const [first] = plan.validate.errors ?? [];
      return `${first?.instancePath || '/'} ${first?.message ?? 'is not valid'}`;
    },
  };
}

function resolveRef(document: Record<string, any>, node: unknown): unknown {
  for (let hops = 0; node && typeof node === 'object' && typeof (node as any).$ref === 'string' && hops < 16; hops++) node = resolvePointer(document, (node as any).$ref);
  return node;
}

/** The properties an answer of `schema` has at its top level: its own, or those of its allOf members. */
function topLevelFields(document: Record<string, any>, schema: unknown): Map<string, Record<string, any>> {
  const fields = new Map<string, Record<string, any>>();
  const visit = (node: unknown, depth: number) => {
    const resolved = resolveRef(document, node) as Record<string, any> | undefined;
    if (!resolved || typeof resolved !== 'object' || depth > 8) return;
    for (const [name, sub] of Object.entries((resolved.properties ?? {}) as Record<string, any>)) if (!fields.has(name)) fields.set(name, sub);
    for (const member of (resolved.allOf ?? []) as unknown[]) visit(member, depth + 1);
  };
  visit(schema, 0);
  return fields;
}
