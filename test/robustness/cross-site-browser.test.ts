/**
 * No web page can drive the control plane (issue 16, item 1), shown in a real browser: a page on
 * another origin sends the simple requests that need no preflight (no-cors POSTs with text/plain
 * or no body, a form post) and none has an effect; with --cors * it still cannot read /__mock;
 * and a DNS-rebinding page (a foreign name that resolves to 127.0.0.1) reads nothing. Headless
 * Chromium via playwright-core; skipped, visibly, where /usr/bin/chromium is missing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { MockServer } from '../../src/server.js';
import { CHROMIUM, HAS_CHROMIUM as haveChromium, launchChromium } from '../chromium.js';
import { testServer } from '../helpers.js';

if (!haveChromium) console.warn(`cross-site browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium)`);
const describeInBrowser = haveChromium ? describe : describe.skip;
if (!haveChromium) test.skip(`cross-site browser tests: skipped because ${CHROMIUM} is missing (apt-get install -y chromium)`, () => {});

const REBIND = 'rebind.test';
const AUTH = { Authorization: 'Bearer sk_test_cross_site' };
const PRINCIPAL = 'key%3A';

let browser: Browser;
let web: Server;
let attacker: string;
beforeAll(async () => {
  if (!haveChromium) return;
  // The attacker's page. Served on 127.0.0.1 but visited as http://localhost:…, which is another
  // site than the mock's http://127.0.0.1:… (an IP address is a site of its own).
  web = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  attacker = `http://localhost:${(web.address() as AddressInfo).port}`;
  // The rebinding attacker's name always resolves to the mock's loopback address.
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBIND} 127.0.0.1`]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (web) await new Promise<void>((resolve) => web.close(() => resolve()));
});

async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** State a page could change: faults, the clock, the scenario, a stored secret. */
async function state(mock: MockServer) {
  const secret = await fetch(`${mock.url}/secrets/KEEP?namespace=function_env`, { headers: AUTH });
  const mailboxes = await fetch(`${mock.url}/mailboxes`, { headers: AUTH });
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
    expect((await fetch(`${mock.url}/secrets`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: '{"name":"KEEP","value":"kept"}' })).status).toBe(201);
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
      }, `${PRINCIPAL}anything`);
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
