/**
 * The validation stage decides from express-openapi-validator's error codes and Ajv's params, not
 * from the English of its messages: every case answers the same 422 (Pydantic's wording) when each
 * eov message is replaced by other text, as a translated or reworded validator would give it.
 * Checked on the stage directly with a one-operation document, as lax.test.ts does.
 */
import { expect, test } from '@jest/globals';
import type { PydanticError } from '../src/errors/catalogue.js';
import { HttpError } from '../src/errors/http-error.js';
import { buildOperations } from '../src/document/openapi.js';
import type { PyValue } from '../src/python/values.js';
import { createOpenApiValidator, type OpenApiRequestValidator } from '../src/validation/eov.js';
import { validateInput } from '../src/validation/input.js';
import { constraintText } from '../src/validation/constraint-text.js';

type Schema = Record<string, unknown>;

const documentFor = (n: Schema) => ({
  openapi: '3.1.0',
  info: { title: 'codes', version: '1' },
  paths: {
    '/n': {
      post: {
        operationId: 'setN',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['n'], properties: { n } } } } },
        responses: { '204': { description: 'ok' } },
      },
    },
  },
});

/** The validator with every message of every error it reports replaced. */
const reworded = (v: OpenApiRequestValidator): OpenApiRequestValidator => ({
  ...v,
  async validate(r) {
    const errors = await v.validate(r);
    for (const e of errors) (e as unknown as { message: string }).message = 'muss etwas anderes sein';
    return errors;
  },
});

const run = async (n: Schema, value: PyValue, words: 'as eov words them' | 'reworded'): Promise<PydanticError[]> => {
  const doc = documentFor(n);
  const [op] = buildOperations(doc);
  const eov = createOpenApiValidator(doc);
  try {
    await validateInput(words === 'reworded' ? reworded(eov) : eov, doc, op, { path: {}, query: new Map(), headers: {} }, { kind: 'json', value: new Map([['n', value]]) });
    return [];
  } catch (e) {
    return (e as HttpError).detail as PydanticError[];
  }
};

const at = ['body', 'n'];
const cases: [string, Schema, PyValue, PydanticError[]][] = [
  ['an integer field given "7" (converted, as Pydantic lax mode does)', { type: 'integer' }, '7', []],
  ['an integer field given "seven"', { type: 'integer' }, 'seven', [{ type: 'int_parsing', loc: at, msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'seven' }]],
  ['a boolean field given "yes" (converted)', { type: 'boolean' }, 'yes', []],
  ['a boolean field given "maybe"', { type: 'boolean' }, 'maybe', [{ type: 'bool_parsing', loc: at, msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe' }]],
  ['a number field given "1.5" (converted)', { type: 'number', maximum: 1 }, '1.5', [{ type: 'less_than_equal', loc: at, msg: 'Input should be less than or equal to 1', input: '1.5', ctx: { le: 1 } }]],
  ['a string field given 5', { type: 'string' }, 5n, [{ type: 'string_type', loc: at, msg: 'Input should be a valid string', input: 5n }]],
  ['a list field given a string', { type: 'array', items: { type: 'string' } }, 'a', [{ type: 'list_type', loc: at, msg: 'Input should be a valid list', input: 'a' }]],
  ['an enum of three given another value', { type: 'string', enum: ['a', 'b', 'c'] }, 'd', [{ type: 'enum', loc: at, msg: "Input should be 'a', 'b' or 'c'", input: 'd', ctx: { expected: "'a', 'b' or 'c'" } }]],
  ['a mapping that must not be empty given {}', { type: 'object', minProperties: 1 }, new Map(), [{ type: 'value_error', loc: at, msg: 'Value error, must NOT have fewer than 1 properties', input: new Map(), ctx: { error: {} } }]],
];

test.each(cases.flatMap(([name, schema, value, expected]) => (['as eov words them', 'reworded'] as const).map((words) => [name, words, schema, value, expected] as const)))(
  '%s, messages %s',
  async (_name, words, schema, value, expected) => {
    expect(await run(schema, value, words)).toEqual(expected);
  },
);

// A constraint Pydantic has no error type for is answered "Value error, <sentence>": the sentence,
// built from Ajv's keyword and params, is the one Ajv itself words (what clients saw before); the
// constraints Pydantic has types for are worded alike, for whoever logs one.
test.each([
  ['multipleOf', { type: 'integer', multipleOf: 3 }, 4],
  ['const', { const: 'a' }, 'b'],
  ['format', { type: 'string', format: 'email' }, 'nope'],
  ['uniqueItems', { type: 'array', uniqueItems: true }, [1, 2, 1]],
  ['minProperties', { type: 'object', minProperties: 2 }, { a: 1 }],
  ['maxProperties', { type: 'object', maxProperties: 1 }, { a: 1, b: 2 }],
  ['additionalProperties', { type: 'object', properties: { a: {} }, additionalProperties: false }, { a: 1, b: 2 }],
  ['contains', { type: 'array', contains: { type: 'string' } }, [1]],
  ['contains with a maximum', { type: 'array', contains: { type: 'string' }, minContains: 1, maxContains: 1 }, ['a', 'b']],
  ['dependentRequired', { type: 'object', dependentRequired: { a: ['b', 'c'] } }, { a: 1 }],
  ['not', { not: { type: 'string' } }, 'a'],
  ['if/then', { if: { type: 'string' }, then: { minLength: 2 } }, 'a'],
  ['a list of types', { type: ['string', 'null'] }, 5],
  ['oneOf', { oneOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }, 'a'],
  ['anyOf', { anyOf: [{ type: 'string' }, { type: 'boolean' }] }, 5],
  ['the constraints Pydantic has types for', { type: 'object', required: ['r'], properties: { s: { type: 'string', minLength: 2, pattern: '^x' }, t: { type: 'string', maxLength: 1 }, l: { type: 'array', minItems: 2 }, m: { type: 'array', maxItems: 0 }, i: { type: 'integer', minimum: 2, maximum: 0 }, x: { type: 'number', exclusiveMinimum: 2, exclusiveMaximum: 0 }, e: { enum: ['a', 'b'] } } }, { s: 'a', t: 'ab', l: [1], m: [1], i: 1, x: 1, e: 'c' }],
  ['a false schema', { type: 'object', properties: { a: false } }, { a: 1 }],
])("%s: our sentence is Ajv's", async (_keyword, n, value) => {
  const eov = createOpenApiValidator(documentFor(n));
  const errors = await eov.validate({ operationId: 'setN', params: {}, query: {}, headers: {}, contentType: 'application/json', body: { n: value } });
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) expect(constraintText(e.ajv)).toBe((e as unknown as { message: string }).message);
});
