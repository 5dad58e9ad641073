// Debian's Chromium driven by playwright-core, each launch on a fresh profile.
// Tests skip (saying why) only when /usr/bin/chromium is absent; .ci/run installs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { tempDir } from '../support/clips.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = (): boolean => fs.existsSync(CHROMIUM);

/** Where the screenshots go (printed by the tests, to be looked at). */
export const SCREENSHOTS = path.join(os.tmpdir(), 'vigil-dashboard-screenshots');

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with its own fresh user-data-dir, at the given window size and colour scheme. */
export async function launchBrowser(viewport: { width: number; height: number }, mobile = false, colorScheme: 'light' | 'dark' = 'light'): Promise<Browser> {
  const profile = tempDir('vigil-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    isMobile: mobile,
    hasTouch: mobile,
    deviceScaleFactor: mobile ? 2 : 1,
    colorScheme,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
