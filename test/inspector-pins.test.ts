/**
 * The inspector's Pins panel (/__mock/ui) in headless Chromium, as test/inspector-page.test.ts
 * drives the page: the pins listed in the order they are tried, with where each came from, and
 * a pin removed from the page. The test with --spec needs issue 30's union (core) to pass.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ServerOptions } from '../src/server.js';
import { CHROMIUM, HAS_CHROMIUM, SharedTab, launchChromium } from './chromium.js';
import { FIXTURES, testServer } from './helpers.js';

const describeInBrowser = HAS_CHROMIUM ? describe : describe.skip;
if (!HAS_CHROMIUM) test.skip(`inspector pins tests: skipped because ${CHROMIUM} is missing (apt-get install -y chromium)`, () => {});

const SPEC = join(FIXTURES, 'whole-service', 'service.openapi.json');
const GONE = { detail: 'Session sess_gone not found' };

let browser: Browser;
let tab: SharedTab;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cbm-inspector-pins-'));
  if (!HAS_CHROMIUM) return;
  browser = await launchChromium();
  tab = await SharedTab.open(browser, { viewport: { width: 1280, height: 800 } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The page on the Pins tab, and the script errors it raises until `release`. */
async function pinsTab(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = tab.page;
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message);
  page.on('pageerror', onError);
  tab.until(() => page.off('pageerror', onError));
  await page.goto(`${url}/__mock/ui`);
  await page.getByRole('status').filter({ hasText: 'Connected' }).waitFor();
  await page.getByRole('tab', { name: 'Pins' }).click();
  return { page, errors };
}

describeInBrowser('the inspector Pins panel', () => {
  let page: Page;

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
