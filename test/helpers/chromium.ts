// Test support: Debian's Chromium, headless, driven by playwright-core, for the tests of the status page. The
// flags keep Chromium from reaching for Google's services: on a closed network those attempts are refused by the
// dozen and slow every start. Playwright gives each launch a fresh, empty profile of its own.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's package `chromium` installs it; `.ci/run` installs the package when it is missing. */
const CHROMIUM = process.env.KIMOPS_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium), or set KIMOPS_CHROMIUM to a Chromium binary`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}
