/**
 * Catalogue rows no service operation can reach over HTTP (the contract's bodies have no integer
 * field and no enum of three), checked on the validator directly, with Pydantic's exact wording.
 */
import { expect, test } from '@jest/globals';
import { expectedList, type PydanticError } from '../src/errors/catalogue.js';
import { PyFloat } from '../src/python/values.js';
import { validateJson } from '../src/validation/lax.js';
import type { Spec } from '../src/validation/spec.js';

const int: Spec = { kind: 'integer', nullable: false, minimum: 0, maximum: 10 };
const run = (v: any, spec: Spec) => {
  const errors: PydanticError[] = [];
  validateJson(v, spec, ['body', 'n'], errors);
  return errors;
};

test.each([
  [new PyFloat(1.5), [{ type: 'int_from_float', loc: ['body', 'n'], msg: 'Input should be a valid integer, got a number with a fractional part', input: new PyFloat(1.5) }]],
  [new PyFloat(2.0), []],
  ['7', []],
  ['7.5', [{ type: 'int_parsing', loc: ['body', 'n'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '7.5' }]],
  [11n, [{ type: 'less_than_equal', loc: ['body', 'n'], msg: 'Input should be less than or equal to 10', input: 11n, ctx: { le: 10 } }]],
  [null, [{ type: 'int_type', loc: ['body', 'n'], msg: 'Input should be a valid integer', input: null }]],
])('an integer field given %p', (value, expected) => {
  expect(run(value, int)).toEqual(expected);
});

test.each([
  [['a'], "'a'"],
  [['a', 'b'], "'a' or 'b'"],
  [['a', 'b', 'c'], "'a', 'b' or 'c'"],
])('Pydantic lists enum members %j as %s', (values, text) => {
  expect(expectedList(values)).toBe(text);
});

test('an enum of three names all three in its message', () => {
  expect(run('d', { kind: 'enum', nullable: false, values: ['a', 'b', 'c'] })).toEqual([
    { type: 'enum', loc: ['body', 'n'], msg: "Input should be 'a', 'b' or 'c'", input: 'd', ctx: { expected: "'a', 'b' or 'c'" } },
  ]);
});
