/**
 * Answers fitted to the request, documented examples, `Prefer` and the pin check (issue 30, items
 * 3 and 5), in process on the test document: the values expected are the request's and the
 * document's own.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAnswerer, PreferError, type AnswerRequest } from '../src/answers/index.js';
import { ROOT } from './helpers.js';

const document = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/whole-service/service.openapi.json'), 'utf8')) as Record<string, any>;
const NOW = new Date('2026-03-04T05:06:07.000Z');

function operation(id: string): Record<string, any> {
  for (const item of Object.values(document.paths as Record<string, Record<string, any>>)) for (const op of Object.values(item)) if (op?.operationId === id) return op;
  throw new Error(`no operation ${id} in the test document`);
}

function request(id: string, extra: Partial<AnswerRequest> = {}): AnswerRequest {
  return { operation: operation(id), operationId: id, pathParams: {}, query: {}, seed: 1, now: NOW, ...extra };
}

const answerer = createAnswerer(document);
const seeds = Array.from({ length: 25 }, (_, i) => i);

describe('fit to the request', () => {
  test('a field named like a path parameter carries its value: a stop answers the session it stopped', () => {
    for (const seed of seeds) expect((answerer.answer(request('session_stop', { seed, pathParams: { session_id: 'sess_abc' } })).json as any).session_id).toBe('sess_abc');
  });

  test('a field named like a sent one carries the value as sent, `headless: false` in and out', () => {
    for (const seed of seeds) expect((answerer.answer(request('session_start', { seed, sentBody: { headless: false } })).json as any).headless).toBe(false);
    for (const seed of seeds) expect((answerer.answer(request('session_start', { seed, sentBody: { headless: true } })).json as any).headless).toBe(true);
  });

  test('a sent value not valid for the answer field is not copied: a list of proxies into a boolean `proxies`', () => {
    for (const seed of seeds) {
      const json = answerer.answer(request('session_start', { seed, sentBody: { proxies: [{ server: 'http://proxy:8080' }], headless: 'yes' } })).json as any;
      expect(typeof json.proxies).toBe('boolean');
      expect(typeof json.headless).toBe('boolean');
    }
  });

  test('a path parameter wins over a sent field of the same name', () => {
    const json = answerer.answer(request('session_stop', { pathParams: { session_id: 'from-path' }, sentBody: { session_id: 'from-body' } })).json as any;
    expect(json.session_id).toBe('from-path');
  });
});

describe('examples', () => {
  const examples = operation('personas_get').responses['200'].content['application/json'].examples;

  test('an operation with examples answers its first one as documented', () => {
    expect(answerer.answer(request('personas_get', { pathParams: { persona_id: 'per_x' } })).json).toEqual(examples.shopper.value);
  });

  test('Prefer example=NAME answers that example', () => {
    expect(answerer.answer(request('personas_get', { prefer: { example: 'minimal' } })).json).toEqual(examples.minimal.value);
  });

  test('an example name the operation does not document is a PreferError naming it and those it has', () => {
    expect(() => answerer.answer(request('personas_get', { prefer: { example: 'nope' } }))).toThrow(PreferError);
    expect(() => answerer.answer(request('personas_get', { prefer: { example: 'nope' } }))).toThrow(/example=nope.*shopper, minimal/);
    expect(() => answerer.answer(request('session_start', { prefer: { example: 'nope' } }))).toThrow(PreferError);
  });
});

describe('Prefer code', () => {
  test('a documented status answers a body generated for it', () => {
    const accepted = answerer.answer(request('agents_run', { prefer: { code: 202 } }));
    expect(accepted.status).toBe(202);
    expect(answerer.validateAnswer('agents_run', 202, accepted.json)).toBeUndefined();
    const busy = answerer.answer(request('agents_run', { prefer: { code: 409 } }));
    expect(busy.status).toBe(409);
    expect(answerer.validateAnswer('agents_run', 409, busy.json)).toBeUndefined();
  });

  test('a status the operation does not document is a PreferError naming it and those it has', () => {
    expect(() => answerer.answer(request('agents_run', { prefer: { code: 418 } }))).toThrow(PreferError);
    expect(() => answerer.answer(request('agents_run', { prefer: { code: 418 } }))).toThrow(/code=418.*200, 202, 409, 422/);
  });
});

describe('the pin check', () => {
  test('a valid body passes, and bodyFor gives one for a status', () => {
    const body = answerer.bodyFor('agents_run', 202);
    expect(body).toBeDefined();
    expect(answerer.validateAnswer('agents_run', 202, body)).toBeUndefined();
    expect(answerer.validateAnswer('session_stop', 200, { session_id: 's', status: 'stopped', stopped_at: NOW.toISOString(), duration: 'PT5S' })).toBeUndefined();
  });

  test.each([
    ['a required field missing', { session_id: 's', status: 'stopped', stopped_at: NOW.toISOString() }, /^\/ .*duration/],
    ['a const field wrong', { session_id: 's', status: 'running', stopped_at: NOW.toISOString(), duration: 'PT5S' }, /^\/status /],
    ['a nested type wrong', { session_id: 's', status: 'stopped', stopped_at: NOW.toISOString(), duration: 'PT5S', credits_used: 'lots' }, /^\/credits_used /],
  ])('%s is named with its path', (_, body, message) => {
    expect(answerer.validateAnswer('session_stop', 200, body)).toMatch(message);
  });

  test('a body for a status without content, a status not documented and an unknown operation are named', () => {
    expect(answerer.validateAnswer('personas_delete', 204, { a: 1 })).toMatch(/204.*no body/);
    expect(answerer.validateAnswer('personas_delete', 204, undefined)).toBeUndefined();
    expect(answerer.validateAnswer('personas_delete', 418, {})).toMatch(/418/);
    expect(answerer.validateAnswer('no_such_op', 200, {})).toMatch(/no_such_op/);
    expect(answerer.bodyFor('agents_run', 418)).toBeUndefined();
  });
});
