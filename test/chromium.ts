/**
 * Debian's Chromium as every browser test launches it (playwright-core): where it is, whether it
 * is installed, and the one set of launch options, so the four browser suites cannot drift apart.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
