/**
 * The mock as a browser meets it: Swagger UI at /docs driven through its Authorize dialog and
 * "Try it out", and a page on another origin calling the mock with --cors. Debian's chromium
 * (apt-get install chromium) driven by playwright-core; .ci/run installs it. Where it is missing
 * these tests are skipped, and say so.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page, Request as PageRequest } from 'playwright-core';
import type { MockServer } from '../src/server.js';
import { CHROMIUM, HAS_CHROMIUM as haveChromium, SharedTab, launchChromium } from './chromium.js';
import { ROOT, testServer } from './helpers.js';

if (!haveChromium) console.warn(`browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); .ci/run installs it`);
const describeInBrowser = haveChromium ? describe : describe.skip;

/** Screenshots for a person to look at, kept out of git (test-output/ is ignored). */
const SHOTS = join(ROOT, 'test-output');

let browser: Browser;
let tab: SharedTab;
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  tab = await SharedTab.open(browser);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** Every URL the tab requests from now until `release`, to show that nothing was fetched from another host. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  const onRequest = (r: PageRequest) => urls.push(r.url());
  page.on('request', onRequest);
  tab.until(() => page.off('request', onRequest));
  return urls;
}

if (!haveChromium) {
  test.skip(`browser tests: skipped because ${CHROMIUM} is missing (apt-get install -y chromium)`, () => {});
}

/**
 * One mock for both Swagger UI pages (/docs and /__mock/docs): on one origin the second page finds
 * swagger-ui-bundle.js in the tab's cache, compiled, instead of a first load's ~3 CPU-s of Chromium.
 * strict: only a token that the Authorize dialog really obtained from POST /token is accepted; the
 * admin token guards the control plane only, so neither option changes what the other case meets.
 */
let swaggerMock: MockServer;
beforeAll(async () => {
  if (haveChromium) swaggerMock = await testServer({ auth: 'strict', adminToken: 'cp-browser-token' });
});
afterAll(() => swaggerMock?.close());

describeInBrowser('/docs in headless Chromium', () => {
  let mock: MockServer;
  beforeAll(() => {
    mock = swaggerMock;
  });

  test('authorize with the scenario’s user, then "list session files" for sess_demo answers 200 with files', async () => {
    const page = tab.page;
    const requested = recordRequests(page);
    try {
      await page.goto(`${mock.url}/docs`);
      await page.locator('.swagger-ui .info .title').waitFor();

      await page.locator('button.authorize').first().click();
      const dialog = page.locator('.dialog-ux');
      await dialog.locator('#oauth_username').fill('dev@example.com');
      await dialog.locator('#oauth_password').fill('password');
      const token = page.waitForResponse((r) => r.url() === `${mock.url}/token`);
      await dialog.locator('button.authorize').click();
      expect((await token).status()).toBe(200);
      await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor();
      await dialog.locator('button.btn-done').click();

      const op = page.locator('[id$="-listSessionFiles"]');
      await op.locator('.opblock-summary').click();
      await op.locator('button.try-out__btn').click();
      await op.locator('tr[data-param-name="session_id"] input').fill('sess_demo');
      const answer = page.waitForResponse((r) => r.url().startsWith(`${mock.url}/sessions/sess_demo/files`));
      await op.locator('button.execute').click();
      const res = await answer;
      expect(res.status()).toBe(200);
      expect(res.request().headers().authorization).toMatch(/^Bearer ey/);

      const live = op.locator('.live-responses-table');
      await expect(live.locator('tr.response .response-col_status').first().innerText()).resolves.toBe('200');
      const body = await live.locator('tr.response .response-col_description pre').first().innerText();
      const page1 = JSON.parse(body);
      expect(page1.total).toBe(2);
      expect(page1.files.map((f: { id: string }) => f.id)).toEqual(['file_demo_notes', 'file_demo_report']);
      await op.screenshot({ path: join(SHOTS, 'docs-list-session-files.png') });

      expect(requested.filter((u) => !u.startsWith(`${mock.url}/`) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await tab.release();
    }
  }, 60_000);
});

describeInBrowser('the landing page and /__mock/docs in headless Chromium', () => {
  let mock: MockServer;
  beforeAll(() => {
    mock = swaggerMock;
  });

  test('from /, the control plane’s Swagger UI opens without a token, and after Authorize its calls carry it', async () => {
    const page = tab.page;
    const requested = recordRequests(page);
    try {
      await page.goto(`${mock.url}/`);
      await page.getByRole('link', { name: '/__mock/docs' }).click();
      await expect(page.locator('.swagger-ui .info .title').innerText()).resolves.toContain('cloud-browser-mock control plane');

      await page.locator('button.authorize').first().click();
      const dialog = page.locator('.dialog-ux');
      await dialog.locator('input[type=text], input[type=password]').first().fill('cp-browser-token');
      await dialog.locator('button.authorize').click();
      await dialog.locator('button.btn-done').click();

      const op = page.locator('[id$="-getClock"]');
      await op.locator('.opblock-summary').click();
      await op.locator('button.try-out__btn').click();
      const answer = page.waitForResponse((r) => r.url() === `${mock.url}/__mock/clock`);
      await op.locator('button.execute').click();
      const res = await answer;
      expect([res.status(), res.request().headers().authorization]).toEqual([200, 'Bearer cp-browser-token']);
      await page.screenshot({ path: join(SHOTS, 'control-plane-docs.png') });

      expect(requested.filter((u) => !u.startsWith(`${mock.url}/`) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await tab.release();
    }
  }, 60_000);
});

describeInBrowser('a page on another origin calling the mock', () => {
  let web: Server;
  let origin: string;
  beforeAll(async () => {
    // The "web app under development": an empty page on a port of its own.
    web = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>app</title>'));
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => web.close(() => resolve())));

  /** Runs fetch() calls in the page against the mock; each gives its status or the browser's error. */
  async function callFromPage(mockUrl: string) {
    const page = tab.page;
    try {
      await page.goto(origin);
      return await page.evaluate(async (base) => {
        const auth = { Authorization: 'Bearer sk_test_demo' };
        const attempt = async (f: () => Promise<unknown>) => {
          try {
            return await f();
          } catch (e) {
            return `refused: ${(e as Error).name}`;
          }
        };
        return {
          list: await attempt(async () => {
            const r = await fetch(`${base}/sessions/sess_demo/files`, { headers: auth });
            return { status: r.status, total: (await r.json()).total };
          }),
          upload: await attempt(async () => {
            const form = new FormData();
            form.append('file', new Blob(['hello from the browser'], { type: 'text/plain' }), 'hello.txt');
            const r = await fetch(`${base}/sessions/sess_demo/files`, { method: 'POST', headers: auth, body: form });
            return { status: r.status, filename: (await r.json()).filename };
          }),
          download: await attempt(async () => {
            const r = await fetch(`${base}/sessions/sess_demo/files/file_demo_notes`, { headers: auth });
            return { status: r.status, disposition: r.headers.get('Content-Disposition') };
          }),
          remove: await attempt(async () => (await fetch(`${base}/sessions/sess_demo/files/file_demo_notes`, { method: 'DELETE', headers: auth })).status),
        };
      }, mockUrl);
    } finally {
      await tab.release();
    }
  }

  test('with --cors naming the page’s origin, list, upload, download (headers readable) and delete all work', async () => {
    const mock = await testServer({ cors: [origin] });
    try {
      expect(await callFromPage(mock.url)).toEqual({
        list: { status: 200, total: 2 },
        upload: { status: 201, filename: 'hello.txt' },
        download: { status: 200, disposition: expect.stringContaining('notes') },
        remove: 204,
      });
    } finally {
      await mock.close();
    }
  });

  test.each([
    ['without --cors', undefined],
    ['with --cors naming another origin', ['http://localhost:5173']],
  ])('%s, the browser refuses every call', async (_name, cors) => {
    const mock = await testServer({ cors });
    try {
      const refused = 'refused: TypeError';
      expect(await callFromPage(mock.url)).toEqual({ list: refused, upload: refused, download: refused, remove: refused });
    } finally {
      await mock.close();
    }
  });
});
