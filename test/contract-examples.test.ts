/**
 * Every answer recorded from the FastAPI application of the contract
 * (test/fixtures/fastapi-examples.json, a copy of the project spec's recording) replayed against the mock: same status, same headers
 * that matter, same body text. The recording's data is test/fixtures/fastapi-reference.json.
 *
 * Values that depend on when and where the recording ran are compared by shape, not by value:
 * instants stamped by the clock at request time (six fractional digits) and newly generated ids.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock } from '../src/primitives/clock.js';
import type { MockServer } from '../src/server.js';
import { FIXTURES, rawRequest, testServer } from './helpers.js';

interface Example {
  id: string;
  rule: string;
  request: { method: string; path: string; headers: Record<string, string>; body: string | null };
  response: { status: number; headers: Record<string, string>; body: string };
}

const examples: Example[] = JSON.parse(readFileSync(join(FIXTURES, 'fastapi-examples.json'), 'utf8')).examples;
const REFERENCE = join(FIXTURES, 'fastapi-reference.json');

const NOW_STAMP = /"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"/g;
const NEW_ID = /"(file|sec|sess|mbx)_[0-9a-f]{16}"/g;
const normalize = (body: string) => body.replace(NOW_STAMP, '"<now>"').replace(NEW_ID, '"$1_<new>"');

let server: MockServer;

beforeAll(async () => {
  const reference = JSON.parse(readFileSync(REFERENCE, 'utf8'));
  const clock = new Clock();
  // Load the scenario at its own generated_at, so its timestamps are the recorded ones, then
  // move a little so timestamps written at request time carry a fraction, as the recording's do.
  clock.set(Date.parse(reference.generated_at));
  server = await testServer({ scenario: REFERENCE, clock });
  clock.advance(123);
});

afterAll(() => server.close());

test('the recording holds 88 examples', () => {
  expect(examples).toHaveLength(88);
});

describe.each(examples)('$id: $rule', (ex) => {
  test(`${ex.request.method} ${ex.request.path} → ${ex.response.status}`, async () => {
    const res = await rawRequest(server.url, ex.request);
    expect(res.status).toBe(ex.response.status);
    for (const [name, value] of Object.entries(ex.response.headers)) {
      expect(res.headers[name.toLowerCase()]).toBe(value);
    }
    expect(normalize(res.text)).toBe(normalize(ex.response.body));
    // What was normalised still has the recorded shape.
    expect(res.text.match(NOW_STAMP)?.length ?? 0).toBe(ex.response.body.match(NOW_STAMP)?.length ?? 0);
  });
});
