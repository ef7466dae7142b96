/**
 * "The inspector page works" as the packed tarball and the Docker image are checked: /__mock/ui
 * answers the page and, where Debian's chromium is installed, the page connects and lists the
 * journalled upload with no script error. (test/browser.test.ts tests the page itself.)
 */
import { expect } from '@jest/globals';
import { HAS_CHROMIUM, launchChromium } from './chromium.js';

export { HAS_CHROMIUM };

/** Expects the page at `url`/__mock/ui to load and show an uploadSessionFile request already made. */
export async function expectInspectorWorks(url: string): Promise<void> {
  const res = await fetch(`${url}/__mock/ui`);
  expect([res.status, (await res.text()).includes('cloud-browser-mock inspector')]).toEqual([200, true]);
  if (!HAS_CHROMIUM) return; // the caller's skipped test says so
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${url}/__mock/ui`);
    await page.locator('#req-rows tr', { hasText: 'uploadSessionFile' }).waitFor({ timeout: 15_000 });
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
}
