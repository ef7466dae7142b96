/**
 * Journal and log redaction by operation (issue 16, item 5): a secret never shows in
 * /__mock/requests or in a log line, whatever shape the body has or wherever the value sits.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Writable } from 'node:stream';
import type { MockServer } from '../../src/server.js';
import { rawRequest, testServer } from '../helpers.js';

let mock: MockServer;
const logged: string[] = [];
beforeAll(async () => {
  const logDestination = new Writable({
    write(chunk, _enc, done) {
      logged.push(String(chunk));
      done();
    },
  });
  mock = await testServer({ logLevel: 'info', logDestination });
});
afterAll(() => mock.close());

const AUTH = { Authorization: 'Bearer redaction' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const FORM_TYPE = { 'Content-Type': 'application/x-www-form-urlencoded' };

const cases: [string, { method: string; path: string; headers: Record<string, string>; body?: string }][] = [
  ['storeSecret with a list body', { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '[{"name":"A","value":"LEAK-list"}]' }],
  ['storeSecret with a bare string body', { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '"LEAK-bare"' }],
  ['storeSecret with the value nested under name', { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '{"name":{"value":"LEAK-nested"}}' }],
  ['storeSecret with an unknown key', { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '{"name":"A","value":"LEAK-value","secret":"LEAK-extra"}' }],
  ['storeSecret with a list as the name', { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '{"name":["LEAK-in-name"],"value":"x"}' }],
  ['createToken with the password in the query string', { method: 'POST', path: '/token?username=dev%40example.com&password=LEAK-query', headers: FORM_TYPE, body: '' }],
  ['createToken with the password in the query of a GET (405)', { method: 'GET', path: '/token?password=LEAK-get', headers: {} }],
  ['createToken with an unknown form field', { method: 'POST', path: '/token', headers: FORM_TYPE, body: 'username=dev%40example.com&password=LEAK-form&pin=LEAK-pin' }],
  ['createToken with a JSON body', { method: 'POST', path: '/token', headers: JSON_TYPE, body: '{"username":"dev@example.com","password":"LEAK-json"}' }],
];

test.each(cases)('%s: nothing secret in the journal or the log', async (_what, req) => {
  const res = await rawRequest(mock.url, req);
  expect(res.status).toBeLessThan(500);
  const journal = await (await fetch(`${mock.url}/__mock/requests?limit=1`)).text();
  expect(journal).toContain(req.path.split('?')[0]);
  expect(journal).not.toContain('LEAK');
  expect(logged.join('')).not.toContain('LEAK');
});

test('a well-formed storeSecret keeps its name and namespace visible, the value as "***"', async () => {
  const res = await rawRequest(mock.url, { method: 'POST', path: '/secrets', headers: { ...AUTH, ...JSON_TYPE }, body: '{"name":"VISIBLE_NAME","value":"LEAK-ok","namespace":"llm_provider"}' });
  expect(res.status).toBe(201);
  const [entry] = ((await (await fetch(`${mock.url}/__mock/requests?limit=1`)).json()) as { items: { body: unknown }[] }).items;
  expect(entry.body).toEqual({ name: 'VISIBLE_NAME', value: '***', namespace: 'llm_provider' });
});
