/**
 * Issued tokens (issue 16, item 4): strict mode accepts only the encoding the mock issued, and a
 * token expires on the mock's clock (--token-ttl), answering 401 in every auth mode.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import type { MockServer } from '../../src/server.js';
import { testServer } from '../helpers.js';

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const DAY = 24 * 3600 * 1000;
const UNAUTHORIZED = { status: 401, body: { detail: 'Could not validate credentials' }, challenge: 'Bearer' };

async function issue(server: MockServer): Promise<string> {
  const res = await fetch(`${server.url}/token`, { method: 'POST', body: new URLSearchParams({ username: 'dev@example.com', password: 'password' }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function listSecrets(server: MockServer, token: string) {
  const res = await fetch(`${server.url}/secrets`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json(), challenge: res.headers.get('www-authenticate') };
}

/** Other spellings of the same bytes that Node's lenient base64url decoder also accepts. */
function variants(token: string): [string, string][] {
  const [h, p, s] = token.split('.');
  const sigBytes = Buffer.from(s, 'base64url');
  // The signature's last character carries 2 unused bits (32 bytes → 43 characters): set one.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(s[s.length - 1]);
  const flippedBits = `${s.slice(0, -1)}${alphabet[last ^ 1]}`;
  expect(Buffer.from(flippedBits, 'base64url').equals(sigBytes)).toBe(true);
  const standard = s.replace(/-/g, '+').replace(/_/g, '/');
  return [
    ['signature padded with "="', `${h}.${p}.${s}=`],
    ['payload padded with "="', `${h}.${p}${'='.repeat((4 - (p.length % 4)) % 4 || 1)}.${s}`],
    ['changed padding bits in the signature', `${h}.${p}.${flippedBits}`],
    ['the +/ alphabet in the signature', `${h}.${p}.${standard}`],
  ];
}

describe('strict mode accepts only the canonical encoding of an issued token', () => {
  test('the issued token works; every other spelling of it answers 401', async () => {
    mock = await testServer({ auth: 'strict' });
    const token = await issue(mock);
    expect((await listSecrets(mock, token)).status).toBe(200);
    for (const [what, altered] of variants(token)) {
      if (altered === token) continue; // a signature without - or _ has no other alphabet
      expect({ what, ...(await listSecrets(mock, altered)) }).toEqual({ what, ...UNAUTHORIZED });
    }
  });
});

describe('issued tokens expire on the mock’s clock', () => {
  test.each(['strict', 'open'] as const)('--auth %s: a token past the default 30 days answers 401, one day before it still works', async (auth) => {
    mock = await testServer({ auth });
    const start = Date.parse('2030-01-01T00:00:00Z');
    await mock.clock.set(new Date(start));
    const token = await issue(mock);
    await mock.clock.set(new Date(start + 29 * DAY));
    expect((await listSecrets(mock, token)).status).toBe(200);
    await mock.clock.set(new Date(start + 30 * DAY));
    expect(await listSecrets(mock, token)).toEqual(UNAUTHORIZED);
    // Never a workspace of its own as if it were an API key.
    expect(mock.app.mock.store.principals().filter((p) => p.startsWith('key:'))).toEqual([]);
  });

  test('--token-ttl sets the lifetime, over HTTP through the control-plane clock', async () => {
    mock = await testServer({ auth: 'open', tokenTtlMs: 3_600_000 });
    const token = await issue(mock);
    expect((await listSecrets(mock, token)).status).toBe(200);
    const advance = await fetch(`${mock.url}/__mock/clock`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ advance: 'PT1H' }) });
    expect(advance.status).toBe(200);
    expect(await listSecrets(mock, token)).toEqual(UNAUTHORIZED);
    // A new token from the same user works again.
    expect((await listSecrets(mock, await issue(mock))).status).toBe(200);
  });
});
