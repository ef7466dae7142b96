/**
 * The journal redacts from the operations' descriptors (issue 25): the operations whose body
 * carries a secret, and — for a request no operation matched — the paths of those operations,
 * taken from openapi.json, with nothing of either written out in the journal.
 */
import { expect, test } from '@jest/globals';
import { buildOperations, readOpenApi } from '../src/document/openapi.js';
import { queryRedaction, redactBody } from '../src/records/journal.js';

const redactQuery = queryRedaction(buildOperations(readOpenApi()));
const query: [string, string][] = [['password', 'p'], ['namespace', 'n']];
const hidden = [['password', '***'], ['namespace', '***']];

test('every query value of a request to a secret-bearing operation is "***", and of no other', () => {
  expect(redactQuery('createToken', '/token', query)).toEqual(hidden);
  expect(redactQuery('storeSecret', '/secrets', query)).toEqual(hidden);
  // Same path, another operation: listSecrets carries no secret.
  expect(redactQuery('listSecrets', '/secrets', query)).toEqual(query);
  expect(redactQuery('getSecret', '/secrets/p', query)).toEqual(query);
});

test('a request that matched no operation is redacted when it went to the path of a secret-bearing one', () => {
  expect(redactQuery(null, '/token', query)).toEqual(hidden);
  expect(redactQuery(null, '/token//', query)).toEqual(hidden);
  expect(redactQuery(null, '/secrets/', query)).toEqual(hidden);
  expect(redactQuery(null, '/secrets/p', query)).toEqual(query);
  expect(redactQuery(null, '/tokens', query)).toEqual(query);
});

test('a secret-bearing body shows only its descriptor\'s fields, and only as strings; other bodies pass', () => {
  expect(redactBody('storeSecret', { name: 'A', value: 'S', namespace: 5, extra: 'x' })).toEqual({ name: 'A', value: '***', namespace: '***', extra: '***' });
  expect(redactBody('createToken', { username: 'u', password: 'p', client_secret: 'c' })).toEqual({ username: 'u', password: '***', client_secret: '***' });
  expect(redactBody('createToken', ['p'])).toBe('***');
  expect(redactBody('updateMailbox', { value: 'v' })).toEqual({ value: 'v' });
  expect(redactBody('notAnOperation', { value: 'v' })).toEqual({ value: 'v' });
});
