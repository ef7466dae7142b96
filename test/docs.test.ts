/** GET /docs: Swagger UI served from the swagger-ui-dist package, nothing fetched from elsewhere. */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import request from 'supertest';
import type { MockApp } from '../src/app.js';
import { testApp } from './helpers.js';

let app: MockApp;
let page: string;
beforeAll(async () => {
  app = await testApp();
  const res = await request(app).get('/docs');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  page = res.text;
});
afterAll(() => app.mock.close());

test('the page loads Swagger UI for /openapi.json with the OAuth2 redirect page beside it', () => {
  expect(page).toContain("url: '/openapi.json'");
  expect(page).toContain("oauth2RedirectUrl: window.location.origin + '/docs/oauth2-redirect'");
  expect(page).toContain('validatorUrl: null');
});

test('every script and stylesheet on the page is served from here, none from another host', async () => {
  const refs = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThanOrEqual(3);
  for (const ref of refs) {
    expect(ref).toMatch(/^\/docs\//);
    const res = await request(app).get(ref);
    expect([ref, res.status]).toEqual([ref, 200]);
  }
  expect(page).not.toMatch(/https?:\/\//);
});

test.each([
  ['/docs/swagger-ui-bundle.js', /javascript/],
  ['/docs/swagger-ui.css', /text\/css/],
  ['/docs/oauth2-redirect', /text\/html/],
  ['/docs/oauth2-redirect.js', /javascript/],
])('%s is served (%s)', async (path, type) => {
  const res = await request(app).get(path);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(type);
});

test.each(['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json', '/docs/../package.json', '/docs/%2e%2e/package.json'])(
  'the package’s other files are not served: %s is 404',
  async (path) => {
    const res = await request(app).get(path);
    expect([res.status, res.body]).toEqual([404, { detail: 'Not Found' }]);
  },
);

test('/docs/ redirects to /docs', async () => {
  const res = await request(app).get('/docs/').redirects(0);
  expect([res.status, res.headers.location]).toEqual([307, '/docs']);
});
