/**
 * The control-plane operations the inspector page (/__mock/ui) stands on, over HTTP: a workspace
 * overview that never carries a secret's value, one session's files paged with an expired flag,
 * the journal's after= cursor; and the page itself — served without the admin token, linked from
 * the landing page (the start-up line naming it: test/landing-pages.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { bearer, testApp } from './helpers.js';

const A = bearer('sk_test_demo');
const DEV = 'user:dev@example.com';
let app: MockApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.mock.close());

describe('GET /__mock/workspaces/{principal}/overview', () => {
  test('sessions with file counts, mailboxes, and secrets as metadata: no stored value anywhere in the answer', async () => {
    await request(app).post('/secrets').set(A).send({ namespace: 'llm_provider', name: 'MINE', value: 'overview-secret-value-42' });
    const res = await request(app).get(`/__mock/workspaces/${encodeURIComponent(DEV)}/overview`);
    expect(res.status).toBe(200);
    expect(res.body.sessions).toEqual(expect.arrayContaining([{ id: 'sess_demo', actions: 9, files: 2, expired_files: 0 }, { id: 'sess_many_files', actions: 1, files: 150, expired_files: 0 }]));
    expect(res.body.mailboxes.map((m: any) => [m.id, m.connection_healthy])).toEqual([['mbx_gmail', true], ['mbx_outlook', false]]);
    expect(res.body.secrets.map((s: any) => s.name)).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'MINE']));
    // The stored values, as the full snapshot export shows them, appear nowhere in the overview.
    const values = (await request(app).get(`/__mock/workspaces/${encodeURIComponent(DEV)}?content=false`)).body.secrets.map((s: any) => s.value);
    expect(values).toContain('overview-secret-value-42');
    for (const v of values) expect(res.text).not.toContain(v);
    expect(res.body.secrets.every((s: any) => !('value' in s))).toBe(true);
  });
});

describe('GET /__mock/workspaces/{principal}/sessions/{session_id}/files', () => {
  const files = (q = '') => request(app).get(`/__mock/workspaces/${encodeURIComponent(DEV)}/sessions/sess_many_files/files${q}`);

  test('pages through all of a session’s files with offset and limit', async () => {
    const first = await files('?limit=60');
    expect([first.status, first.body.total, first.body.offset, first.body.limit, first.body.items.length]).toEqual([200, 150, 0, 60, 60]);
    const rest = await files('?offset=60&limit=1000');
    expect(rest.body.items.length).toBe(90);
    const ids = [...first.body.items, ...rest.body.items].map((f: any) => f.id);
    expect(new Set(ids).size).toBe(150);
    expect((await files()).body.items.length).toBe(100);
  });

  test('marks files expired by the mock’s clock, and keeps listing them', async () => {
    const before = await files('?limit=1');
    expect(before.body.items[0].expired).toBe(false);
    await request(app).post('/__mock/clock').send({ advance: 'P30D' });
    try {
      const after = await files('?limit=1000');
      expect([after.body.total, after.body.items.every((f: any) => f.expired)]).toEqual([150, true]);
      expect(Date.parse(after.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(30 * 86400_000);
    } finally {
      await request(app).post('/__mock/clock/reset');
    }
  });

  test('bad paging is a 422 naming the parameter; an unknown session is a 404', async () => {
    const res = await files('?limit=0&offset=x');
    expect([res.status, res.body.detail.map((d: any) => d.loc.join('.'))]).toEqual([422, ['query.offset', 'query.limit']]);
    expect((await files('?limit=1001')).body.detail[0].type).toBe('less_than_equal');
    const missing = await request(app).get(`/__mock/workspaces/${encodeURIComponent(DEV)}/sessions/nope/files`);
    expect([missing.status, missing.body]).toEqual([404, { detail: 'Session not found' }]);
  });
});

describe('GET /__mock/requests?after=', () => {
  test('returns only the entries recorded after the cursor, even with the clock frozen or set back', async () => {
    await request(app).post('/__mock/clock').send({ set: '2030-01-01T00:00:00Z' });
    try {
      await request(app).get('/mailboxes').set(A);
      const [newest] = (await request(app).get('/__mock/requests?limit=1')).body.items;
      expect((await request(app).get(`/__mock/requests?after=${newest.id}`)).body.items).toEqual([]);
      await request(app).post('/__mock/clock').send({ set: '2020-01-01T00:00:00Z' });
      await request(app).get('/secrets').set(A);
      await request(app).get('/mailboxes/mbx_gmail').set(A);
      const next = (await request(app).get(`/__mock/requests?after=${newest.id}`)).body.items;
      expect(next.map((e: any) => e.operationId)).toEqual(['getMailbox', 'listSecrets']);
    } finally {
      await request(app).post('/__mock/clock/reset');
    }
  });

  test('a cursor that is not a journal id is a 422', async () => {
    const res = await request(app).get('/__mock/requests?after=12');
    expect([res.status, res.body.detail[0].loc]).toEqual([422, ['query', 'after']]);
  });

  test('the new operations are in the control plane’s document', async () => {
    const doc = (await request(app).get('/__mock/openapi.json')).body;
    expect(doc.paths['/__mock/workspaces/{principal}/overview'].get.operationId).toBe('workspaceOverview');
    expect(doc.paths['/__mock/workspaces/{principal}/sessions/{session_id}/files'].get.operationId).toBe('listWorkspaceFiles');
    expect(doc.paths['/__mock/requests'].get.parameters.map((p: any) => p.name)).toContain('after');
  });
});

describe('GET /__mock/ui', () => {
  test('with --admin-token the page itself loads without it (a navigation sends none) while its API calls need it', async () => {
    const guarded = await testApp({ adminToken: 'ui-admin' });
    try {
      const page = await request(guarded).get('/__mock/ui');
      expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
      expect(page.text).toContain('data-admin-token="required"');
      expect(page.text).not.toContain('ui-admin');
      expect((await request(guarded).get('/__mock/workspaces/x/overview')).status).toBe(401);
      expect((await request(guarded).get('/__mock/requests?after=req_1')).status).toBe(401);
    } finally {
      await guarded.mock.close();
    }
  });

  test('is linked from the landing page, refers to nothing outside itself, and is not journalled', async () => {
    const landing = await request(app).get('/').set('Accept', 'text/html');
    expect(landing.text).toContain('href="/__mock/ui"');
    await request(app).delete('/__mock/requests');
    const page = await request(app).get('/__mock/ui');
    expect(page.status).toBe(200);
    // No src= or href= but the icon's data: URL and the relative JUnit link: nothing else to load.
    expect([...page.text.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1])).toEqual(['data:,', '/__mock/coverage?format=junit']);
    expect((await request(app).get('/__mock/requests')).body.items).toEqual([]);
  });
});
