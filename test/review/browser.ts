/**
 * Debian's Chromium driven by playwright-core (no browser download at run time: setup installs
 * the package, scripts/apt-package.sh). The flags keep it off the network this machine does
 * not have; a fresh profile per launch keeps tests from sharing state.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a 1400×900 window, the size the page is designed for. */
export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'mediaflow-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go (gitignored): test-artifacts/ at the repository's root. */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
