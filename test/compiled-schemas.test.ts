/**
 * componentsCompiler (src/primitives/ajv.ts): what the response validators and the answerers of
 * apps made of the same document compile is compiled once per process — and never handed to an
 * app whose document says something else.
 */
import { expect, test } from '@jest/globals';
import { componentsCompiler } from '../src/primitives/ajv.js';

const components = (type: 'string' | 'integer') => ({ schemas: { Id: { type }, Pair: { type: 'object', required: ['a', 'b'], properties: { a: { $ref: '#/components/schemas/Id' }, b: { $ref: '#/components/schemas/Id' } } } } });
const pair = { $ref: '#/components/schemas/Pair' };

test('equal components (two parsed copies) share what is compiled: the same schema is one function', () => {
  const first = componentsCompiler(JSON.parse(JSON.stringify(components('string'))));
  const second = componentsCompiler(JSON.parse(JSON.stringify(components('string'))));
  const validate = first.compile(pair);
  expect(second.compile(JSON.parse(JSON.stringify(pair)))).toBe(validate);
  expect([validate({ a: 'x', b: 'y' }), validate({ a: 1, b: 'y' })]).toEqual([true, false]);
});

test('a $ref is followed into the components the compiler was made for, not into another document’s', () => {
  const strings = componentsCompiler(components('string')).compile(pair);
  const integers = componentsCompiler(components('integer')).compile(pair);
  expect(strings).not.toBe(integers);
  expect([strings({ a: 'x', b: 'y' }), strings({ a: 1, b: 2 })]).toEqual([true, false]);
  expect([integers({ a: 'x', b: 'y' }), integers({ a: 1, b: 2 })]).toEqual([false, true]);
});

test('the options are part of what is shared: allErrors reports every error, the default the first', () => {
  const all = componentsCompiler(components('string'), { allErrors: true });
  const first = componentsCompiler(components('string'), { allErrors: false });
  const validateAll = all.compile(pair);
  const validateFirst = first.compile(pair);
  expect(validateAll).not.toBe(validateFirst);
  expect(validateAll({ a: 1, b: 2 })).toBe(false);
  expect(all.errorsText(validateAll.errors)).toBe('data/a must be string, data/b must be string');
  expect(validateFirst({ a: 1, b: 2 })).toBe(false);
  expect(first.errorsText(validateFirst.errors)).toBe('data/a must be string');
});

test('a schema Ajv cannot compile throws, for the caller to handle, every time it is asked', () => {
  const compiler = componentsCompiler(components('string'));
  expect(() => compiler.compile({ $ref: '#/components/schemas/Missing' })).toThrow(/can't resolve reference/);
  expect(() => compiler.compile({ $ref: '#/components/schemas/Missing' })).toThrow(/can't resolve reference/);
});
