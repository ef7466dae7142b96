/**
 * One auth configuration (issue 32): the service and the control plane's `POST /__mock/principal`
 * read the same clock and token lifetime, so they agree about a token from POST /token. Before,
 * the control plane's copy had neither: 31 days after a token was issued the service answered
 * 401 while /__mock/principal still answered its user. Everything here goes over HTTP, the clock
 * moved through the control plane, in open and in strict mode.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { MockServer } from '../src/server.js';
import { testServer } from './helpers.js';

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

/** CONTRACT §3: a token the service does not take. */
const UNAUTHORIZED = { status: 401, body: { detail: 'Could not validate credentials' } };

async function issue(url: string): Promise<string> {
  const res = await fetch(`${url}/token`, { method: 'POST', body: new URLSearchParams({ username: 'dev@example.com', password: 'password' }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function listSecrets(url: string, token: string) {
  const res = await fetch(`${url}/secrets`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

async function principalOf(url: string, token: string) {
  const res = await fetch(`${url}/__mock/principal`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token }) });
  return { status: res.status, body: (await res.json()) as { principal?: string; detail?: unknown } };
}

async function clock(url: string, change: { set: string } | { advance: string }) {
  const res = await fetch(`${url}/__mock/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(change) });
  expect(res.status).toBe(200);
}

describe.each(['open', 'strict'] as const)('--auth %s', (auth) => {
  test('31 days after a token was issued, the service answers 401 and /__mock/principal a 422 saying it has expired', async () => {
    mock = await testServer({ auth });
    await clock(mock.url, { set: '2030-01-01T00:00:00Z' }); // frozen: only the move below passes time
    const token = await issue(mock.url);
    expect((await listSecrets(mock.url, token)).status).toBe(200);
    expect(await principalOf(mock.url, token)).toEqual({ status: 200, body: { principal: 'user:dev@example.com' } });

    await clock(mock.url, { advance: 'P31D' });
    expect(await listSecrets(mock.url, token)).toEqual(UNAUTHORIZED);
    const answer = await principalOf(mock.url, token);
    expect(answer.status).toBe(422);
    // control-plane.openapi.json: a well-formed request asking for what cannot be is one string.
    expect(typeof answer.body.detail).toBe('string');
    expect(answer.body.detail).toMatch(/expired/);
    // The scenario's API key does not expire: both still take it for its owner.
    expect((await listSecrets(mock.url, 'sk_test_demo')).status).toBe(200);
    expect(await principalOf(mock.url, 'sk_test_demo')).toEqual({ status: 200, body: { principal: 'user:dev@example.com' } });
  });

  test('--token-ttl is the control plane\'s lifetime too: one hour on, both refuse the token', async () => {
    mock = await testServer({ auth, tokenTtlMs: 3_600_000 });
    await clock(mock.url, { set: '2030-01-01T00:00:00Z' });
    const token = await issue(mock.url);
    await clock(mock.url, { advance: 'PT59M' });
    expect((await listSecrets(mock.url, token)).status).toBe(200);
    expect((await principalOf(mock.url, token)).status).toBe(200);
    await clock(mock.url, { advance: 'PT1M' });
    expect((await listSecrets(mock.url, token)).status).toBe(401);
    const answer = await principalOf(mock.url, token);
    expect(answer.status).toBe(422);
    expect(answer.body.detail).toMatch(/expired/);
  });
});
