/**
 * Headless Chromium for the e2e suite and the UI bench: Debian's /usr/bin/chromium driven
 * by playwright-core (which never downloads a browser of its own).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = process.env.PORTHOLE_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium is not installed at ${chromiumPath}: apt-get install -y chromium (or set PORTHOLE_CHROMIUM).`,
    );
  }
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}
