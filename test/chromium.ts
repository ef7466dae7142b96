/**
 * Debian's Chromium as every browser test launches it (playwright-core): where it is, whether it
 * is installed, and the one set of launch options, so the four browser suites cannot drift apart.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
// .ci/run sets CBM_REQUIRE_BROWSER: there a missing chromium is a failure, not a skip.
if (!HAS_CHROMIUM && process.env.CBM_REQUIRE_BROWSER) throw new Error(`${CHROMIUM} is missing and CBM_REQUIRE_BROWSER is set (apt-get install -y chromium)`);

/** Headless, no sandbox (CI runs as root), and nothing fetched in the background. */
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

/** Chromium with the shared options, plus any of the caller's own (a host-resolver rule, say). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] });
}

/**
 * One tab a test file's cases share: each case navigates it to a fresh document, a fraction of the
 * cost of a new page (a browser context and a renderer process). `until` keeps a listener the case
 * added to its end; `release` ends the case: a blank document first, so nothing of its page (a poll
 * in flight, a timer) runs on into the next case, then its listeners off.
 */
export class SharedTab {
  readonly #offs: (() => void)[] = [];
  private constructor(readonly page: Page) {}

  static async open(browser: Browser, options?: BrowserContextOptions): Promise<SharedTab> {
    const page = await browser.newPage(options);
    page.setDefaultTimeout(15_000); // a step that cannot happen fails with its locator, not the test's timeout
    return new SharedTab(page);
  }

  /** `off` removes a listener the current case added; `release` calls it. */
  until(off: () => void): void {
    this.#offs.push(off);
  }

  async release(): Promise<void> {
    await this.page.goto('about:blank');
    for (const off of this.#offs.splice(0)) off();
  }
}
