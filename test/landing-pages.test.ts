/**
 * Discoverability (issue 11 item 13): `/` is a page of links for a browser and FastAPI's 404 for
 * every other client; `/__mock/docs` is Swagger UI for the control plane, the page open without
 * the admin token and its calls not; the start-up line names /docs and the inspector /__mock/ui.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MockServer } from '../src/server.js';
import { startCli } from './cli-process.js';
import { rawRequest, testServer } from './helpers.js';

/** What Chromium sends when a person types the address. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('GET /', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer();
  });
  afterAll(() => mock.close());

  test('a browser gets a page linking /docs, /openapi.json and /__mock/docs, and every link answers 200', async () => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/', headers: { Accept: BROWSER_ACCEPT } });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(res.headers.vary).toMatch(/Accept/);
    const links = [...res.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(expect.arrayContaining(['/docs', '/openapi.json', '/__mock/docs']));
    for (const link of links) expect([link, (await rawRequest(mock.url, { method: 'GET', path: link })).status]).toEqual([link, 200]);
  });

  test.each([
    ['curl (*/*)', { Accept: '*/*' }],
    ['a JSON client', { Accept: 'application/json' }],
    ['no Accept header', {}],
  ])('%s still gets FastAPI’s 404', async (_name, headers: Record<string, string>) => {
    const res = await rawRequest(mock.url, { method: 'GET', path: '/', headers });
    expect([res.status, res.headers['content-type'], res.text]).toEqual([404, 'application/json', '{"detail":"Not Found"}']);
  });

  test('the page is the mock’s own: not journalled; a JSON client’s 404 at / is', async () => {
    await rawRequest(mock.url, { method: 'POST', path: '/__mock/reset' });
    await rawRequest(mock.url, { method: 'GET', path: '/', headers: { Accept: BROWSER_ACCEPT } });
    await rawRequest(mock.url, { method: 'GET', path: '/', headers: { Accept: 'application/json' } });
    const items = JSON.parse((await rawRequest(mock.url, { method: 'GET', path: '/__mock/requests' })).text).items;
    expect(items.map((e: any) => [e.path, e.status])).toEqual([['/', 404]]);
  });
});

describe('GET /__mock/docs with --admin-token', () => {
  let mock: MockServer;
  let page: string;
  beforeAll(async () => {
    mock = await testServer({ adminToken: 'cp-admin-token' });
    const res = await rawRequest(mock.url, { method: 'GET', path: '/__mock/docs', headers: { Accept: BROWSER_ACCEPT } });
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    page = res.text;
  });
  afterAll(() => mock.close());

  test('the page needs no token and carries the control plane’s document', () => {
    expect(page).toContain('cloud-browser-mock control plane');
    expect(page).toContain('"operationId":"listRequests"');
    expect(page).not.toContain('cp-admin-token');
  });

  test('its scripts and stylesheets are served from here without a token, none from another host', async () => {
    const refs = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect([ref, (await rawRequest(mock.url, { method: 'GET', path: ref })).status]).toEqual([ref, 200]);
    expect(page).not.toMatch(/(?:src|href)="https?:/);
  });

  test('the calls it makes still need the token', async () => {
    expect((await rawRequest(mock.url, { method: 'GET', path: '/__mock/clock' })).status).toBe(401);
    expect((await rawRequest(mock.url, { method: 'GET', path: '/__mock/clock', headers: { Authorization: 'Bearer cp-admin-token' } })).status).toBe(200);
  });

  test('no text in the document can close the page’s script element', () => {
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1];
    expect(script).toContain('SwaggerUIBundle(');
    // The document's principal descriptions hold `user:<name>`: written as \u003c inside the script.
    expect(script).toContain('user:\\u003cname>');
    expect(script).not.toContain('<');
  });
});

// One CLI child for both of the start-up line's links (the inspector's was a second child in
// test/inspector-api.test.ts): the line names /docs and /__mock/ui, and each URL is its page.
test('the start-up line names /docs and the inspector, and those URLs are Swagger UI and the inspector page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cbm-startline-'));
  const cli = await startCli(['--port', '0', '--in-memory'], { cwd: dir });
  try {
    const line = cli.output().split('\n').find((l) => l.includes('listening on'))!;
    expect(line).toContain(`${cli.url}/docs`);
    expect(line).toContain(`${cli.url}/__mock/ui`);
    const docs = await fetch(`${cli.url}/docs`);
    expect([docs.status, (await docs.text()).includes('swagger-ui')]).toEqual([200, true]);
    const ui = await fetch(`${cli.url}/__mock/ui`);
    expect([ui.status, (await ui.text()).includes('cloud-browser-mock inspector')]).toEqual([200, true]);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
