/**
 * Catalogue rows no service operation can reach over HTTP (the contract's bodies have no integer
 * field and no enum of three), checked on the validation stage directly (express-openapi-validator
 * and the Pydantic pieces around it) with a one-operation document, with Pydantic's exact wording.
 */
import { expect, test } from '@jest/globals';
import { expectedList, type PydanticError } from '../src/errors/catalogue.js';
import { HttpError } from '../src/errors/http-error.js';
import { buildOperations } from '../src/document/openapi.js';
import { PyFloat, type PyValue } from '../src/python/values.js';
import { createOpenApiValidator } from '../src/validation/eov.js';
import { validateInput } from '../src/validation/input.js';

type Schema = Record<string, unknown>;
const int: Schema = { type: 'integer', minimum: 0, maximum: 10 };

const documentFor = (n: Schema) => ({
  openapi: '3.1.0',
  info: { title: 'lax', version: '1' },
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

const run = async (v: PyValue, n: Schema): Promise<PydanticError[]> => {
  const doc = documentFor(n);
  const [op] = buildOperations(doc);
  try {
    await validateInput(createOpenApiValidator(doc), doc, op, { path: {}, query: new Map(), headers: {} }, { kind: 'json', value: new Map([['n', v]]) });
    return [];
  } catch (e) {
    return (e as HttpError).detail as PydanticError[];
  }
};

test.each([
  [new PyFloat(1.5), [{ type: 'int_from_float', loc: ['body', 'n'], msg: 'Input should be a valid integer, got a number with a fractional part', input: new PyFloat(1.5) }]],
  [new PyFloat(2.0), []],
  ['7', []],
  ['7.5', [{ type: 'int_parsing', loc: ['body', 'n'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '7.5' }]],
  [11n, [{ type: 'less_than_equal', loc: ['body', 'n'], msg: 'Input should be less than or equal to 10', input: 11n, ctx: { le: 10 } }]],
  [null, [{ type: 'int_type', loc: ['body', 'n'], msg: 'Input should be a valid integer', input: null }]],
])('an integer field given %p', async (value, expected) => {
  expect(await run(value, int)).toEqual(expected);
});

test.each([
  [['a'], "'a'"],
  [['a', 'b'], "'a' or 'b'"],
  [['a', 'b', 'c'], "'a', 'b' or 'c'"],
])('Pydantic lists enum members %j as %s', (values, text) => {
  expect(expectedList(values)).toBe(text);
});

test('an enum of three names all three in its message', async () => {
  expect(await run('d', { type: 'string', enum: ['a', 'b', 'c'] })).toEqual([
    { type: 'enum', loc: ['body', 'n'], msg: "Input should be 'a', 'b' or 'c'", input: 'd', ctx: { expected: "'a', 'b' or 'c'" } },
  ]);
});
