/**
 * Which pin answers a request (src/records/pins.ts), as the pipeline asks it: by operation, path
 * parameters and principal, newest run-time pin first, then the scenario's; `times` used up; a
 * reset brings the scenario's back whole. Over HTTP with a --spec document: test/pins.test.ts.
 */
import { expect, test } from '@jest/globals';
import { Pins, PinError } from '../src/records/pins.js';

const OPERATIONS = [
  { id: 'session_status', pathParams: ['session_id'], statuses: ['200', '404', '422'] },
  { id: 'usage_pricing', pathParams: [], statuses: ['200'] },
  { id: 'listSecrets', pathParams: [], statuses: ['200'] },
];
const pins = () => new Pins(OPERATIONS);

test('a pin matches its operation only, and answers its status, body and headers as copies', () => {
  const p = pins();
  p.add({ operationId: 'usage_pricing', status: 200, body: { plans: [] }, headers: { 'X-Pin': '1' } });
  expect(p.match('session_status', { session_id: 's' }, undefined)).toBeUndefined();
  const answer = p.match('usage_pricing', {}, undefined)!;
  expect(answer).toEqual({ status: 200, body: { plans: [] }, headers: { 'X-Pin': '1' } });
  (answer.body as any).plans.push('changed');
  expect(p.match('usage_pricing', {}, undefined)!.body).toEqual({ plans: [] });
});

test('without a body the answer has none (the generated one answers); null is a body', () => {
  const p = pins();
  p.add({ operationId: 'usage_pricing', status: 200 });
  expect('body' in p.match('usage_pricing', {}, undefined)!).toBe(false);
  p.add({ operationId: 'usage_pricing', status: 200, body: null });
  expect(p.match('usage_pricing', {}, undefined)).toEqual({ status: 200, body: null, headers: {} });
});

test.each([
  ['the given path parameter values only', { path_params: { session_id: 'a' } }, [{ session_id: 'a' }, 'user:x'], [{ session_id: 'b' }, 'user:x']],
  ['the given principal only', { principal: 'user:x' }, [{ session_id: 'a' }, 'user:x'], [{ session_id: 'a' }, undefined]],
])('a pin for %s', (_what, extra, hit, miss) => {
  const p = pins();
  p.add({ operationId: 'session_status', status: 404, body: { detail: 'no' }, ...extra });
  expect(p.match('session_status', ...(miss as [Record<string, string>, string | undefined]))).toBeUndefined();
  expect(p.match('session_status', ...(hit as [Record<string, string>, string | undefined]))?.status).toBe(404);
});

test('times: the pin answers that many requests, counting hits, then goes', () => {
  const p = pins();
  const pin = p.add({ operationId: 'usage_pricing', status: 200, body: 1, times: 2 });
  expect(p.match('usage_pricing', {}, undefined)?.body).toBe(1);
  expect(p.list()).toEqual([{ ...pin, times: 1, hits: 1 }]);
  expect(p.match('usage_pricing', {}, undefined)?.body).toBe(1);
  expect(p.match('usage_pricing', {}, undefined)).toBeUndefined();
  expect(p.list()).toEqual([]);
});

test('run-time pins are tried newest first, before the scenario\'s; a reset drops them and restores the scenario\'s whole', () => {
  const p = pins();
  p.loadScenario([{ operationId: 'usage_pricing', status: 200, body: 'scenario', times: 1 }]);
  p.add({ operationId: 'usage_pricing', status: 200, body: 'older' });
  p.add({ operationId: 'usage_pricing', status: 200, body: 'newer' });
  expect(p.list().map((x) => [x.body, x.source])).toEqual([['newer', 'runtime'], ['older', 'runtime'], ['scenario', 'scenario']]);
  expect(p.match('usage_pricing', {}, undefined)?.body).toBe('newer');
  p.clear();
  expect(p.match('usage_pricing', {}, undefined)?.body).toBe('scenario');
  expect(p.match('usage_pricing', {}, undefined)).toBeUndefined();
  p.add({ operationId: 'usage_pricing', status: 200, body: 'run time' });
  p.resetRunTime();
  expect(p.list()).toEqual([expect.objectContaining({ body: 'scenario', times: 1, hits: 0, source: 'scenario' })]);
});

test('ids keep growing across clears and resets', () => {
  const p = pins();
  const first = p.add({ operationId: 'usage_pricing', status: 200 }).id;
  p.clear();
  p.resetRunTime();
  expect(p.add({ operationId: 'usage_pricing', status: 200 }).id).not.toBe(first);
});

test.each([
  [{ operationId: 'listSecrets', status: 200 }, /built-in operations/],
  [{ operationId: 'session_stat', status: 200 }, /unknown operationId "session_stat" — did you mean session_status\? a pin names one of the added operations: session_status, usage_pricing/],
  [{ operationId: '*', status: 200 }, /unknown operationId "\*" a pin names one of the added operations: session_status, usage_pricing$/],
  [{ operationId: 'usage_pricing', status: 201 }, /status 201 is not one usage_pricing documents \(it documents 200\)/],
  [{ operationId: 'usage_pricing', status: 200, path_params: { id: 'x' } }, /usage_pricing has no path parameter "id" \(it has no path parameters\)/],
])('a pin that could never answer (%j) is refused, and a scenario\'s names its index', (spec, message) => {
  const p = pins();
  expect(() => p.add(spec)).toThrow(PinError);
  expect(() => p.add(spec)).toThrow(message);
  expect(() => p.loadScenario([{ operationId: 'usage_pricing', status: 200 }, spec])).toThrow(/^pins\[1\]: /);
  expect(p.list()).toEqual([]);
});
