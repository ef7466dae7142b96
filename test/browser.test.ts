/**
 * The mock as a browser meets it, in headless Chromium (Debian's chromium, apt-get install
 * chromium, driven by playwright-core; .ci/run installs it; where it is missing these tests are
 * skipped, and say so):
 * - Swagger UI at /docs driven through its Authorize dialog and "Try it out", the control plane's
 *   at /__mock/docs, and a page on another origin calling the mock with --cors;
 * - the inspector page /__mock/ui as a person meets it: live requests, filters, redacted details,
 *   the clock moving expiry, faults added from the page, coverage, the admin-token gate, and the
 *   Pins panel (the pins in the order they are tried, with where each came from, and a pin removed
 *   from the page; its case with --spec needs issue 30's union);
 * - no web page can drive the control plane (issue 16, item 1): a page on another site sends the
 *   simple requests that need no preflight (no-cors POSTs with text/plain or no body, a form post)
 *   and none has an effect; with --cors * it still cannot read /__mock; and a DNS-rebinding page (a
 *   foreign name that resolves to 127.0.0.1) reads nothing.
 * One file, one Chromium and one tab for all of them: each browser file launched its own Chromium
 * (~4 CPU-s) and loaded the app into its own jest registry. The cross-site cases open pages of
 * their own (a fresh browser context each, as an attacker's tab would be). The Swagger UI
 * screenshots go to test-output/, the inspector's to a temporary directory (printed); none is
 * committed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Request as PageRequest, Response as PageResponse } from 'playwright-core';
import type { MockServer, ServerOptions } from '../src/server.js';
import { CHROMIUM, HAS_CHROMIUM as haveChromium, SharedTab, launchChromium } from './chromium.js';
import { FIXTURES, ROOT, testServer } from './helpers.js';

if (!haveChromium) console.warn(`browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium); .ci/run installs it`);
const describeInBrowser = haveChromium ? describe : describe.skip;

/** Screenshots for a person to look at, kept out of git (test-output/ is ignored); the inspector's in a temporary directory. */
const SHOTS = join(ROOT, 'test-output');
const INSPECTOR_SHOTS = mkdtempSync(join(tmpdir(), 'cbm-inspector-shots-'));

let browser: Browser;
let tab: SharedTab;
/** A foreign name, resolved by this Chromium to 127.0.0.1 (DNS rebinding). */
const REBIND = 'rebind.test';
beforeAll(async () => {
  if (!haveChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  console.log(`inspector screenshots: ${INSPECTOR_SHOTS}`);
  // The rebinding attacker's name (the cross-site cases at the end) always resolves to the mock's loopback address.
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBIND} 127.0.0.1`]);
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

/**
 * An empty page on a port of its own: as http://127.0.0.1:… it is the "web app under development",
 * another origin than the mock's; as http://localhost:… (the cross-site cases at the end) it is an
 * attacker's page, another site (an IP address is a site of its own).
 */
let web: Server;
let origin: string;
let attacker: string;
beforeAll(async () => {
  if (!haveChromium) return;
  web = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const { port } = web.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  attacker = `http://localhost:${port}`;
});
afterAll(async () => {
  if (web) await new Promise<void>((resolve) => web.close(() => resolve()));
});

describeInBrowser('a page on another origin calling the mock', () => {
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

// The inspector page /__mock/ui.

const AUTH = { Authorization: 'Bearer sk_test_demo' };
const SECRET_VALUE = 'sv-inspector-do-not-show-4711';

/** The tab at `url`, recording what it fetched, what failed and what the script threw from now on. */
async function openPage(url: string, viewport = { width: 1280, height: 800 }) {
  const page = tab.page;
  await page.setViewportSize(viewport);
  const seen = { urls: [] as string[], failed: [] as string[], errors: [] as string[], bytes: 0, auth: [] as (string | undefined)[] };
  const onRequest = (r: PageRequest) => {
    seen.urls.push(r.url());
    if (r.url().includes('/__mock/') && !r.url().endsWith('/__mock/ui')) seen.auth.push(r.headers().authorization);
  };
  const onFailed = (r: PageRequest) => seen.failed.push(`${r.url()} ${r.failure()?.errorText}`);
  const onResponse = async (r: PageResponse) => {
    if (r.status() >= 400 && r.status() !== 401) seen.failed.push(`${r.url()} ${r.status()}`);
    const sizes = await r.request().sizes().catch(() => null);
    seen.bytes += sizes ? sizes.responseHeadersSize + sizes.responseBodySize : 0;
  };
  const onError = (e: Error) => seen.errors.push(e.message);
  page.on('request', onRequest);
  page.on('requestfailed', onFailed);
  page.on('response', onResponse);
  page.on('pageerror', onError);
  tab.until(() => {
    page.off('request', onRequest);
    page.off('requestfailed', onFailed);
    page.off('response', onResponse);
    page.off('pageerror', onError);
  });
  await page.goto(url);
  return { page, seen };
}

const connected = (page: Page) => page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();

describeInBrowser('the inspector page /__mock/ui', () => {
  let mock: MockServer;
  let page: Page;
  const call = (path: string, init: RequestInit = {}) => fetch(`${mock.url}${path}`, { ...init, headers: { ...AUTH, ...(init.headers ?? {}) } });
  beforeAll(async () => {
    mock = await testServer();
  });
  afterEach(async () => {
    await tab.release();
    await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
    await fetch(`${mock.url}/__mock/clock/reset`, { method: 'POST' });
  });
  afterAll(() => mock.close());

  test('loads offline with no failed request, shows requests live, filters them, and a row shows its redacted body', async () => {
    const opened = await openPage(`${mock.url}/__mock/ui`);
    page = opened.page;
    await connected(page);
    // What loading the page cost: the document and the first calls (clock, operations, journal).
    await page.waitForLoadState('networkidle');
    console.log(`inspector page weight on load: ${opened.seen.bytes} bytes transferred in ${opened.seen.urls.length} requests: ${opened.seen.urls.join(', ')}`);
    const rows = page.locator('#req-rows tr');
    await expect(rows.count()).resolves.toBe(0);

    expect((await call('/sessions/sess_demo/files')).status).toBe(200);
    expect((await call('/secrets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ namespace: 'llm_provider', name: 'INSPECTED_KEY', value: SECRET_VALUE }) })).status).toBe(201);
    expect((await call('/session/sess_demo/files')).status).toBe(404);
    // Without a reload: the poll brings them in, newest first.
    await rows.nth(2).waitFor();
    await expect(rows.locator('td:nth-child(3)').allInnerTexts()).resolves.toEqual(['/session/sess_demo/files', '/secrets', '/sessions/sess_demo/files']);
    await expect(rows.nth(0).innerText()).resolves.toContain('did you mean GET /sessions/{session_id}/files?');

    const filters = page.getByRole('group', { name: 'Filters' });
    await filters.getByLabel('Operation').selectOption('storeSecret');
    await expect(rows.count()).resolves.toBe(1);
    await filters.getByLabel('Operation').selectOption('');
    await filters.getByLabel('Unmatched only').check();
    await expect(rows.count()).resolves.toBe(1);
    await expect(rows.nth(0).innerText()).resolves.toContain('unmatched');
    await filters.getByLabel('Unmatched only').uncheck();
    await filters.getByLabel('Status').selectOption('2');
    await expect(rows.count()).resolves.toBe(2);
    await filters.getByLabel('Status').selectOption('');

    // Keyboard: the row is reachable and Enter opens it.
    await rows.filter({ hasText: 'storeSecret' }).focus();
    await page.keyboard.press('Enter');
    const body = JSON.parse(await page.locator('#req-body').innerText());
    expect(body).toEqual({ namespace: 'llm_provider', name: 'INSPECTED_KEY', value: '***' });
    const curl = await page.locator('#req-curl').innerText();
    expect(curl).toContain('$CBM_TOKEN');
    expect(curl).not.toContain('sk_test_demo');
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'requests-1280x800.png') });

    // The workspace view lists the secret by name, never its value.
    await page.getByRole('tab', { name: 'Workspaces' }).click();
    await page.getByRole('row', { name: /user:dev@example.com/ }).getByRole('button', { name: 'Open' }).click();
    await page.getByRole('table', { name: /Secrets/ }).getByText('INSPECTED_KEY', { exact: true }).waitFor();
    const html = await page.content();
    expect(html).not.toContain(SECRET_VALUE);
    expect(html).not.toContain('sk_test_demo');
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'workspaces-1280x800.png'), fullPage: true });

    expect(opened.seen.urls.filter((u) => !u.startsWith(`${mock.url}/`))).toEqual([]);
    expect(opened.seen.failed).toEqual([]);
    expect(opened.seen.errors).toEqual([]);
  }, 60_000);

  test('advancing the clock 8 days from the page marks a seeded file expired, and the next download shows 410 in the journal', async () => {
    expect((await call('/sessions/sess_demo/files')).status).toBe(200);
    const opened = await openPage(`${mock.url}/__mock/ui`);
    page = opened.page;
    await connected(page);
    // Keyboard: the tabs move with the arrow keys.
    await page.getByRole('tab', { name: 'Requests' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: 'Workspaces' }).getAttribute('aria-selected')).resolves.toBe('true');
    await page.getByRole('row', { name: /user:dev@example.com/ }).getByRole('button', { name: 'Open' }).click();
    // 150 files, 50 to a page.
    await page.getByRole('button', { name: 'Files of sess_many_files' }).click();
    await page.getByRole('table', { name: /Files of sess_many_files: 1–50 of 150/ }).waitFor();
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('table', { name: /Files of sess_many_files: 51–100 of 150/ }).waitFor();
    await page.getByRole('button', { name: 'Files of sess_demo' }).click();
    const notes = page.locator('tr[data-file=file_demo_notes]');
    await expect(notes.innerText()).resolves.toMatch(/\bin \d+d/);
    await expect(notes.getAttribute('class')).resolves.toBeNull();

    await page.getByRole('tab', { name: 'Clock' }).click();
    await page.getByRole('button', { name: '+8 days' }).click();
    await page.getByRole('status').filter({ hasText: 'Clock advanced by +8 days' }).waitFor();
    await page.locator('#clock-offset').filter({ hasText: '+8d' }).waitFor();
    await page.getByRole('tab', { name: 'Workspaces' }).click();
    await page.locator('tr.expired[data-file=file_demo_notes]').waitFor();
    await expect(notes.innerText()).resolves.toMatch(/expired \d+/);
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'workspaces-expired.png'), fullPage: true });

    expect((await call('/sessions/sess_demo/files/file_demo_notes')).status).toBe(410);
    await page.getByRole('tab', { name: 'Clock' }).click();
    await page.getByRole('button', { name: 'Reset to real time' }).click();
    await page.locator('#clock-offset').filter({ hasText: 'real time' }).waitFor();
    await page.getByRole('tab', { name: 'Requests' }).click();
    await page.locator('#req-rows tr', { hasText: 'downloadSessionFile' }).filter({ hasText: '410' }).waitFor();
    expect(opened.seen.failed).toEqual([]);
    expect(opened.seen.errors).toEqual([]);
  }, 60_000);

  test('a fault added from the page makes the next request fail as configured, once', async () => {
    const opened = await openPage(`${mock.url}/__mock/ui`);
    page = opened.page;
    await connected(page);
    await page.getByRole('tab', { name: 'Faults' }).click();
    const form = page.locator('#fault-form');
    await form.getByLabel('Operation').selectOption('listMailboxes');
    await form.getByLabel('Status').fill('503');
    await form.getByLabel('Times').fill('1');
    await form.getByLabel('Body').fill('{"detail": "injected from the inspector"}');
    await form.getByRole('button', { name: 'Add fault' }).click();
    await page.getByRole('table', { name: 'Active faults' }).getByText('listMailboxes').waitFor();
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'faults.png'), fullPage: true });

    const failed = await call('/mailboxes');
    expect([failed.status, await failed.json()]).toEqual([503, { detail: 'injected from the inspector' }]);
    expect((await call('/mailboxes')).status).toBe(200);
    expect(opened.seen.errors).toEqual([]);
  }, 60_000);

  test('the coverage matrix shows the counts /__mock/coverage reports', async () => {
    await call('/sessions/sess_demo/files');
    await call('/sessions/sess_demo/files');
    await call('/sessions/nope/files');
    await call('/mailboxes', { headers: { Authorization: 'Bearer ' } });
    const opened = await openPage(`${mock.url}/__mock/ui`);
    page = opened.page;
    await connected(page);
    await page.getByRole('tab', { name: 'Coverage' }).click();
    await page.locator('#cov-matrix td[data-op]').first().waitFor();
    const report = await (await fetch(`${mock.url}/__mock/coverage`)).json();
    const expected: Record<string, string> = {};
    for (const op of report.operations) for (const [status, n] of Object.entries(op.responses)) expected[`${op.operationId} ${status}`] = String(n);
    const shown = await page.locator('#cov-matrix td[data-op]').evaluateAll((tds) => Object.fromEntries(tds.map((td) => [`${(td as HTMLElement).dataset.op} ${(td as HTMLElement).dataset.status}`, td.textContent])));
    expect(shown).toEqual(expected);
    expect(expected['listSessionFiles 200']).toBe('2');
    await expect(page.locator('#cov-share').innerText()).resolves.toContain(`${report.exercised} of ${report.documented}`);
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'coverage.png'), fullPage: true });
    expect(opened.seen.errors).toEqual([]);
  }, 60_000);

  test('readable in a narrow window: nothing wider than the window but the tables, which scroll', async () => {
    await call('/sessions/sess_demo/files');
    const opened = await openPage(`${mock.url}/__mock/ui`, { width: 400, height: 800 });
    page = opened.page;
    await connected(page);
    await page.locator('#req-rows tr').first().click();
    await page.screenshot({ path: join(INSPECTOR_SHOTS, 'requests-narrow.png'), fullPage: true });
    const [scrollWidth, clientWidth] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
  }, 60_000);
});

describeInBrowser('the inspector page with --admin-token', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer({ adminToken: 'inspector-admin-token' });
  });
  afterAll(() => mock.close());

  test('loads without the token, shows nothing and calls nothing until the token is entered, then every call carries it', async () => {
    const { page, seen } = await openPage(`${mock.url}/__mock/ui`);
    try {
      await page.getByLabel('Admin token').waitFor();
      await expect(page.locator('#app').isHidden()).resolves.toBe(true);
      expect(seen.auth).toEqual([]);

      await page.getByLabel('Admin token').fill('not-the-token');
      await page.getByRole('button', { name: 'Open the inspector' }).click();
      await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor();
      await expect(page.locator('#app').isHidden()).resolves.toBe(true);

      await page.getByLabel('Admin token').fill('inspector-admin-token');
      await page.getByRole('button', { name: 'Open the inspector' }).click();
      await connected(page);
      await fetch(`${mock.url}/sessions/sess_demo/files`, { headers: AUTH });
      await page.locator('#req-rows tr', { hasText: 'listSessionFiles' }).waitFor();
      await page.screenshot({ path: join(INSPECTOR_SHOTS, 'admin-token.png') });
      expect(seen.auth.length).toBeGreaterThan(2);
      // The first call carried the refused token; every later one the right token.
      expect(seen.auth[0]).toBe('Bearer not-the-token');
      expect(seen.auth.slice(1)).toEqual(seen.auth.slice(1).map(() => 'Bearer inspector-admin-token'));
      expect(seen.errors).toEqual([]);
    } finally {
      await tab.release();
    }
  }, 60_000);
});

/** The page on the Pins tab, and the script errors it raises until `release`. */
async function pinsTab(url: string): Promise<{ page: Page; errors: string[] }> {
  const { page, seen } = await openPage(`${url}/__mock/ui`);
  await connected(page);
  await page.getByRole('tab', { name: 'Pins' }).click();
  return { page, errors: seen.errors };
}

describeInBrowser('the inspector Pins panel', () => {
  const SPEC = join(FIXTURES, 'whole-service', 'service.openapi.json');
  const GONE = { detail: 'Session sess_gone not found' };
  let dir: string;
  let page: Page;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cbm-inspector-pins-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('without pins it says that added operations answer generated bodies', async () => {
    const mock = await testServer();
    try {
      const opened = await pinsTab(mock.url);
      page = opened.page;
      await page.getByText('No pins: added operations answer generated bodies.').waitFor();
      expect(opened.errors).toEqual([]);
    } finally {
      await tab.release();
      await mock.close();
    }
  }, 60_000);

  test('with --spec: lists the run-time and the scenario pins, and Delete removes one', async () => {
    const scenario = join(dir, 'pinned.json');
    writeFileSync(scenario, JSON.stringify({
      name: 'pinned', generated_at: '2025-01-01T00:00:00Z',
      users: [{ username: 'dev@example.com', password: 'password' }], api_keys: [{ key: 'sk_test_demo', owner: 'dev@example.com' }],
      sessions: [], mailboxes: [], secrets: [],
      pins: [{ operationId: 'session_status', status: 404, body: GONE, path_params: { session_id: 'sess_gone' } }],
    }));
    const mock = await testServer({ spec: SPEC, scenario } as ServerOptions);
    try {
      const added = await mock.pins.add({ operationId: 'session_stop', status: 200, times: 3 });
      const opened = await pinsTab(mock.url);
      page = opened.page;
      const table = page.getByRole('table', { name: 'Active pins' });
      await table.getByText('session_stop').waitFor();
      const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
      expect(rows.map((r) => [r[1], r[2], r[3], r[6], r[8]])).toEqual([
        ['session_stop', '200', 'any', '3', 'run time'],
        ['session_status', '404', 'session_id=sess_gone', '∞', 'scenario file'],
      ]);
      await page.screenshot({ path: join(INSPECTOR_SHOTS, 'pins.png'), fullPage: true });
      await page.getByRole('button', { name: `Delete ${added.id}` }).click();
      await page.getByRole('status').filter({ hasText: `Pin ${added.id} deleted` }).waitFor();
      expect((await mock.pins.list()).map((p) => p.operationId)).toEqual(['session_status']);
      expect(opened.errors).toEqual([]);
    } finally {
      await tab.release();
      await mock.close();
    }
  }, 60_000);
});

// Cross-site pages against the control plane (issue 16, item 1).

const CROSS_SITE_AUTH = { Authorization: 'Bearer sk_test_cross_site' };
const CROSS_SITE_PRINCIPAL = 'key%3A';

/** A page of its own in a fresh context (not the shared tab): what one case does there cannot reach the next. */
async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** State a page could change: faults, the clock, the scenario, a stored secret. */
async function state(mock: MockServer) {
  const secret = await fetch(`${mock.url}/secrets/KEEP?namespace=function_env`, { headers: CROSS_SITE_AUTH });
  const mailboxes = await fetch(`${mock.url}/mailboxes`, { headers: CROSS_SITE_AUTH });
  return {
    faults: (await mock.faults.list()).length,
    clockOffsetHours: Math.round((await mock.clock.now()).offset_seconds / 3600),
    secret: secret.status,
    mailboxes: ((await mailboxes.json()) as { items: unknown[] }).items.length,
  };
}

describeInBrowser('a page on another site sends simple requests to /__mock', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await testServer();
  });
  afterAll(() => mock.close());

  test('no-cors POSTs (text/plain, JSON text, no body) and a form post change nothing; each answered 403', async () => {
    expect((await fetch(`${mock.url}/secrets`, { method: 'POST', headers: { ...CROSS_SITE_AUTH, 'Content-Type': 'application/json' }, body: '{"name":"KEEP","value":"kept"}' })).status).toBe(201);
    const before = await state(mock);
    expect(before).toEqual({ faults: 0, clockOffsetHours: 0, secret: 200, mailboxes: 2 });

    const page = await newPage();
    const answers: [string, number][] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${mock.url}/__mock`)) answers.push([new URL(r.url()).pathname, r.status()]);
    });
    try {
      await page.goto(attacker);
      await page.evaluate(async (base) => {
        const send = (path: string, init: RequestInit) => fetch(`${base}${path}`, { method: 'POST', mode: 'no-cors', ...init });
        await send('/__mock/faults', { headers: { 'Content-Type': 'text/plain' }, body: '{"operationId":"*","status":503}' });
        await send('/__mock/clock', { body: '{"advance":86400}' });
        await send('/__mock/scenario', { body: '{"name":"empty"}' });
        await send('/__mock/reset', {});
        await send('/__mock/workspaces/key%3Ax/sessions', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
      }, mock.url);
      // A classic form post, as a navigation: text/plain can spell a JSON body.
      const navigated = page.waitForResponse((r) => r.url() === `${mock.url}/__mock/reset`);
      await page.evaluate((base) => {
        const form = document.createElement('form');
        form.method = 'POST';
        form.action = `${base}/__mock/reset`;
        form.enctype = 'text/plain';
        const input = document.createElement('input');
        input.name = '{"a":"';
        input.value = '"}';
        form.append(input);
        document.body.append(form);
        form.submit();
      }, mock.url);
      await navigated;
    } finally {
      await page.close();
    }
    expect(await state(mock)).toEqual(before);
    expect(answers).toEqual([
      ['/__mock/faults', 403],
      ['/__mock/clock', 403],
      ['/__mock/scenario', 403],
      ['/__mock/reset', 403],
      ['/__mock/workspaces/key%3Ax/sessions', 403],
      ['/__mock/reset', 403],
    ]);
  });

  test('a page of the mock’s own origin still uses the control plane', async () => {
    const page = await newPage();
    try {
      await page.goto(`${mock.url}/__mock/openapi.json`);
      const status = await page.evaluate(async () => (await fetch('/__mock/faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"operationId":"listMailboxes","status":503,"times":1}' })).status);
      expect(status).toBe(201);
    } finally {
      await page.close();
      await mock.faults.clear();
    }
  });
});

describeInBrowser('with --cors *', () => {
  test('a page on another site reads the service, but never /__mock', async () => {
    const mock = await testServer({ cors: ['*'] });
    const page = await newPage();
    try {
      await page.goto(attacker);
      const read = await page.evaluate(async (base) => {
        const attempt = async (url: string, init?: RequestInit) => {
          try {
            const r = await fetch(url, init);
            return r.status;
          } catch (e) {
            return `refused: ${(e as Error).name}`;
          }
        };
        return {
          service: await attempt(`${base}/mailboxes`, { headers: { Authorization: 'Bearer sk_test_demo' } }),
          export: await attempt(`${base}/__mock/workspaces/key%3Aanything`),
          faults: await attempt(`${base}/__mock/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"operationId":"*","status":503}' }),
        };
      }, mock.url);
      expect(read).toEqual({ service: 200, export: 'refused: TypeError', faults: 'refused: TypeError' });
      expect(await mock.faults.list()).toEqual([]);
    } finally {
      await page.close();
      await mock.close();
    }
  });
});

describeInBrowser('DNS rebinding: a page on a foreign name that resolves to 127.0.0.1', () => {
  test('reads neither the control plane’s export nor the service with the public demo key', async () => {
    const mock = await testServer();
    const page = await newPage();
    try {
      // /health answers any name (container probes); the page is now "same-origin" with the mock.
      const landing = await page.goto(`http://${REBIND}:${mock.port}/health`);
      expect(landing?.status()).toBe(200);
      const read = await page.evaluate(async (principal) => {
        const get = async (path: string, headers: Record<string, string> = {}) => {
          const r = await fetch(path, { headers });
          return { status: r.status, body: await r.text() };
        };
        return {
          export: await get(`/__mock/workspaces/${principal}`),
          secrets: await get('/secrets', { Authorization: 'Bearer sk_test_demo' }),
          workspaces: await get('/__mock/workspaces'),
        };
      }, `${CROSS_SITE_PRINCIPAL}anything`);
      for (const r of Object.values(read)) {
        expect(r.status).toBe(403);
        expect(JSON.parse(r.body).detail).toMatch(/^Host "rebind\.test:\d+" is not allowed/);
      }
    } finally {
      await page.close();
      await mock.close();
    }
  });
});
