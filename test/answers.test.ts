/**
 * The answers of a supplied document's operations (issue 30, item 3), in process: every generated
 * answer of every operation of the test document valid against its own schema across many seeds
 * and requests, the same inputs answering the same, date-times from the clock, ids from the id
 * generator, statuses, a 204, bytes of a binary media type, and recursion bounded. The schemas are
 * checked with an Ajv of the test's own (the project's set-up), never the answerer's validator.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAnswerer, type AnswerRequest } from '../src/answers/index.js';
import { createAjv } from '../src/primitives/ajv.js';
import { ROOT } from './helpers.js';

const SEED = Number(process.env.FC_SEED ?? 20261128);
const document = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/whole-service/service.openapi.json'), 'utf8')) as Record<string, any>;
const NOW = new Date('2026-03-04T05:06:07.000Z');

type Op = { path: string; method: string; operationId: string; operation: Record<string, any> };
const OPERATIONS: Op[] = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => (operation?.operationId ? [{ path, method, operationId: operation.operationId as string, operation }] : [])),
);
const byId = (id: string) => OPERATIONS.find((op) => op.operationId === id)!;

/** The document's own schema for an operation's status, compiled with the project's Ajv set-up. */
const ajv = createAjv({ allErrors: true });
ajv.addSchema({ $id: 'doc', components: document.components });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorFor(op: Op, status: number) {
  const schema = op.operation.responses[String(status)].content['application/json'].schema;
  return compiledOnce(ajv, validators, JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));
}

/**
 * A schema's validator, compiled once per schema text: many responses are the same schema (a
 * `$ref` to one component), and Ajv caches by object, so each fresh copy compiled it again.
 */
function compiledOnce(on: typeof ajv, cache: Map<string, ReturnType<typeof ajv.compile>>, text: string) {
  if (!cache.has(text)) cache.set(text, on.compile(JSON.parse(text)));
  return cache.get(text)!;
}

const JSON_ANSWERS = OPERATIONS.flatMap((op) =>
  Object.entries(op.operation.responses as Record<string, any>).flatMap(([code, response]) => (response.content?.['application/json'] ? [{ op, status: Number(code) }] : [])),
);

function request(op: Op, extra: Partial<AnswerRequest> = {}): AnswerRequest {
  return { operation: op.operation, operationId: op.operationId, pathParams: {}, query: {}, seed: 1, now: NOW, ...extra };
}

const pathParamsOf = (op: Op) => [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

function depthOf(value: unknown): number {
  if (!value || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value as object).map(depthOf));
}

describe('every generated answer is valid for its schema', () => {
  test('for every operation and documented JSON status, across seeds, path parameters, queries and bodies', () => {
    const answerer = createAnswerer(document);
    const failures: string[] = [];
    const json = fc.jsonValue({ maxDepth: 2 });
    // Sent fields named like answer fields, with values of any type, so fitting them is tried.
    const names = [...new Set(Object.values(document.components.schemas as Record<string, any>).flatMap((schema) => Object.keys(schema.properties ?? {})))];
    const body = fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), fc.oneof(json, fc.boolean(), fc.constant(null)), { maxKeys: 6 });
    fc.assert(
      fc.property(fc.constantFrom(...JSON_ANSWERS), fc.oneof(fc.integer(), fc.string()), fc.string({ minLength: 1, maxLength: 12 }), body, ({ op, status }, seed, param, body) => {
        const pathParams = Object.fromEntries(pathParamsOf(op).map((name) => [name, param]));
        const answer = answerer.answer(request(op, { seed, pathParams, query: { q: param }, sentBody: body, prefer: { code: status }, newId: (field) => `new-${field}` }));
        expect(answer.status).toBe(status);
        const validate = validatorFor(op, status);
        if (!validate(answer.json)) failures.push(`${op.operationId} ${status} seed ${JSON.stringify(seed)}: ${ajv.errorsText(validate.errors)}`);
      }),
      { seed: SEED, numRuns: 1500 },
    );
    expect(failures).toEqual([]);
  });

  test('every operation with a JSON answer, 100 seeds each, its default status', () => {
    const answerer = createAnswerer(document);
    const failures = OPERATIONS.flatMap((op) =>
      Array.from({ length: 100 }, (_, seed) => answerer.answer(request(op, { seed }))).flatMap((answer) => {
        if (answer.json === undefined) return [];
        const validate = validatorFor(op, answer.status);
        return validate(answer.json) ? [] : [`${op.operationId}: ${ajv.errorsText(validate.errors)}`];
      }),
    );
    expect(failures).toEqual([]);
  });

  test.each(['openapi.json', 'control-plane.openapi.json'])('every documented JSON status of every operation of the mock\'s own %s, 30 seeds each', (file) => {
    const own = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, any>;
    const ownAjv = createAjv({ allErrors: true });
    ownAjv.addSchema({ $id: 'own', components: own.components });
    const ownValidators = new Map<string, ReturnType<typeof ajv.compile>>();
    const answerer = createAnswerer(own);
    const failures: string[] = [];
    for (const item of Object.values(own.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(item)) {
        for (const [code, response] of Object.entries((operation.responses ?? {}) as Record<string, any>)) {
          const schema = response.content?.['application/json']?.schema;
          if (!schema || !/^\d+$/.test(code)) continue;
          const validate = compiledOnce(ownAjv, ownValidators, JSON.stringify(schema).replace(/"#\/components\//g, '"own#/components/'));
          for (let seed = 0; seed < 30; seed++) {
            const { json } = answerer.answer({ operation, operationId: operation.operationId, pathParams: {}, query: {}, seed, now: NOW, prefer: { code: Number(code) } });
            if (!validate(json)) failures.push(`${operation.operationId} ${code}: ${ownAjv.errorsText(validate.errors)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  test('a discriminated union whose `type` is optional answers its members with their `type`, each member in turn', () => {
    const answerer = createAnswerer(document);
    const types = new Set(Array.from({ length: 60 }, (_, seed) => (answerer.answer(request(byId('session_start'), { seed })).json as any).browser.type));
    expect([...types].sort()).toEqual(Object.keys(document.components.schemas.BrowserSettings.discriminator.mapping).sort());
  });

  test('a recursive schema answers a bounded value', () => {
    const answerer = createAnswerer(document);
    const depths = Array.from({ length: 100 }, (_, seed) => depthOf(answerer.answer(request(byId('page_dom'), { seed })).json));
    expect(Math.max(...depths)).toBeLessThanOrEqual(12);
    expect(Math.max(...depths)).toBeGreaterThan(2); // it does recurse
  });
});

describe('determinism', () => {
  const op = byId('session_start');
  const body = { headless: true, region: 'eu' };

  test('the same inputs answer the same body, from two answerers as from one', () => {
    const one = createAnswerer(document);
    const first = one.answer(request(op, { seed: 5, sentBody: body }));
    // another operation in between must not change what the next answer is
    one.answer(request(byId('page_dom'), { seed: 9 }));
    expect(one.answer(request(op, { seed: 5, sentBody: body }))).toEqual(first);
    expect(createAnswerer(document).answer(request(op, { seed: 5, sentBody: body }))).toEqual(first);
  });

  test.each([
    ['seed', { seed: 6 }],
    ['body', { sentBody: { ...body, keep_alive: true } }],
    ['query', { query: { page: '2' } }],
  ])('a different %s answers different values', (_, change) => {
    const answerer = createAnswerer(document);
    const withoutVolatile = (json: any) => ({ ...json, session_id: undefined, created_at: undefined });
    const base = answerer.answer(request(op, { seed: 5, sentBody: body })).json;
    const changed = answerer.answer(request(op, { seed: 5, sentBody: body, ...change })).json;
    expect(withoutVolatile(changed)).not.toEqual(withoutVolatile(base));
  });

  test('date-times are the clock, a new id is the id generator', () => {
    const answerer = createAnswerer(document);
    const asked: string[] = [];
    const json = answerer.answer(request(op, { seed: 3, newId: (field) => (asked.push(field), field === 'session_id' ? 'sess_0123456789abcdef' : undefined) })).json as any;
    expect(json.created_at).toBe(NOW.toISOString());
    expect(json.session_id).toBe('sess_0123456789abcdef');
    expect(asked).toContain('session_id');
    const later = new Date('2027-01-01T00:00:00.000Z');
    expect((answerer.answer(request(op, { seed: 3, now: later })).json as any).created_at).toBe(later.toISOString());
  });
});

describe('statuses and media types', () => {
  test('the lowest documented 2xx is the status: 200 where 200 and 202 are documented, 201 for a create', () => {
    const answerer = createAnswerer(document);
    expect(answerer.answer(request(byId('agents_run'))).status).toBe(200);
    expect(answerer.answer(request(byId('personas_create'))).status).toBe(201);
  });

  test('a 204 answers no body', () => {
    expect(createAnswerer(document).answer(request(byId('personas_delete'), { pathParams: { persona_id: 'p1' } }))).toEqual({ status: 204, noBody: true });
  });

  test.each([
    ['storage_file_download', 'application/octet-stream', { file_id: 'f1' }, { file_id: 'f2' }],
    ['page_screenshot', 'image/png', { session_id: 's1' }, { session_id: 's2' }],
  ])('%s answers bytes of %s, the same for the same request and others for another', (id, media, params, others) => {
    const answerer = createAnswerer(document);
    const answer = answerer.answer(request(byId(id), { pathParams: params }));
    expect(answer.contentType).toBe(media);
    expect(answer.json).toBeUndefined();
    expect(Buffer.isBuffer(answer.bytes) && answer.bytes.length).toBeGreaterThan(0);
    expect(answerer.answer(request(byId(id), { pathParams: params })).bytes).toEqual(answer.bytes);
    expect(answerer.answer(request(byId(id), { pathParams: others })).bytes).not.toEqual(answer.bytes);
  });
});

describe('schemas the generator alone answers wrongly, in a document of the test', () => {
  const Leaf = { type: 'object', required: ['id'], properties: { kind: { type: 'string', const: 'leaf' }, id: { type: 'string' } } };
  const Tree = { type: 'object', required: ['name'], properties: { kind: { type: 'string' }, name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } }, parent: { anyOf: [{ $ref: '#/components/schemas/Tree' }, { type: 'null' }] } } };
  const answerSchema = {
    type: 'object',
    required: ['big', 'labels', 'timeout', 'blob', 'node', 'tree'],
    properties: {
      big: { type: 'integer', minimum: 5000 },
      labels: { type: 'object', propertyNames: { pattern: '^[a-z]{2,6}$' }, minProperties: 2, additionalProperties: { type: 'string' } },
      timeout: { type: 'string', format: 'duration' },
      blob: { type: 'string', contentMediaType: 'image/png', contentEncoding: 'base64' },
      node: { oneOf: [{ $ref: '#/components/schemas/Leaf' }, { $ref: '#/components/schemas/Tree' }], discriminator: { propertyName: 'kind' } },
      tree: { $ref: '#/components/schemas/Tree' },
      secret: { type: 'string', format: 'password', writeOnly: true },
    },
  };
  const own = { openapi: '3.1.0', paths: { '/x': { get: { operationId: 'own_get', responses: { '200': { content: { 'application/json': { schema: answerSchema } } } } } } }, components: { schemas: { Leaf, Tree } } };
  const op = { path: '/x', method: 'get', operationId: 'own_get', operation: own.paths['/x'].get };
  const ownAjv = createAjv({ allErrors: true });
  ownAjv.addSchema({ $id: 'own', components: own.components });
  const validate = ownAjv.compile(JSON.parse(JSON.stringify(answerSchema).replace(/"#\/components\//g, '"own#/components/')));
  // One answerer for the 150 seeds: an answer is a function of its request ("determinism" below),
  // and a fresh answerer per seed prepared the same schemas 150 times.
  const ownAnswerer = createAnswerer(own);
  const answers = Array.from({ length: 150 }, (_, seed) => ownAnswerer.answer(request(op, { seed })).json as any);

  test('every answer is valid: a lone large minimum, property names, duration, an implicit discriminator, recursion', () => {
    expect(answers.filter((json) => !validate(json)).map(() => ajv.errorsText(validate.errors))).toEqual([]);
  });

  test('base64 content is base64, the discriminator is the component name, an optional writeOnly field is left out', () => {
    for (const json of answers) {
      expect(Buffer.from(json.blob, 'base64').toString('base64')).toBe(json.blob);
      expect(['Leaf', 'Tree', 'leaf']).toContain(json.node.kind);
      expect(json).not.toHaveProperty('secret');
    }
  });
});
