/// <reference lib="dom" />
/**
 * A reviewed derive step decided on the review page (docs/review.md, "Derivatives"), in Chromium
 * against a running campaign: its crops appear awaiting review, `a` and `r` decide them as they
 * decide a still, `g` is refused with the reason, and the campaign, kept open only by the crops,
 * ends once both are decided; the cards then say approved and rejected.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { harness } from '../engine/harness.ts';
import { ARTIFACTS } from './browser.ts';
import { openCampaignPage } from './open-page.ts';

const SPEC = `
version: 1
campaign: channel-decisions
budget: { max_usd: 1 }
output: { dir: out }
steps:
  - id: still
    model: I1
    matrix: { colour: [coral, mint] }
    input: { prompt: "A {{colour}} mug", aspect_ratio: "1:1" }
  - id: square
    from: still
    review: true
    derive: [{ resize: { width: 96 } }, { format: { type: jpeg } }]
`;

const card = (page: Page, key: string, state: string) =>
  page.waitForSelector(`section[data-step="square"] .item[data-key="${key}"][data-state="${state}"]`, {
    timeout: 60_000,
  });

it('decides the files of a reviewed derive step from the keyboard, and the campaign ends', async () => {
  const h = await harness({ latencyMs: { I1: 300 }, jitter: false });
  const plan = await h.plan(SPEC);
  const handle = await h.start(plan);
  await h.startWorker();
  const { page } = await openCampaignPage(h.temporal, plan.campaign, { holdMs: 700, pollMs: 300 });

  const [coral, mint] = plan.jobs.map((job) => job.derivatives![0]!.key) as [string, string];
  await card(page, coral, 'awaiting');
  await card(page, mint, 'awaiting');
  const square = page.locator('section[data-step="square"]');
  expect(await square.locator('h2 small').textContent()).toBe('derived from still · reviewed');
  expect(await square.locator('.counts').textContent()).toBe('2 awaiting review');
  expect(await square.locator('.item[data-readonly]').count()).toBe(0);

  // Regenerate cannot make other bytes from the same operations: refused, saying what to edit.
  await square.locator(`.item[data-key="${coral}"]`).click();
  await page.keyboard.press('g');
  await page.waitForSelector('#status .refused', { timeout: 10_000 });
  expect(await page.locator('#status').textContent()).toContain("edit the derive step's operations");

  await square.locator(`.item[data-key="${coral}"]`).click();
  await page.keyboard.press('a');
  await square.locator(`.item[data-key="${mint}"]`).click();
  await page.keyboard.press('r');
  await page.waitForSelector('#status .ok', { timeout: 10_000 });
  await card(page, coral, 'approved');
  await card(page, mint, 'rejected');
  expect(await square.locator('.counts').textContent()).toBe('1 approved 1 rejected');
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: fileURLToPath(new URL('channel-decisions.png', ARTIFACTS)) });
  // Kept open by nothing else: decided, the campaign ends.
  expect((await handle.result()).outcome).toBe('completed');
}, 200_000);
