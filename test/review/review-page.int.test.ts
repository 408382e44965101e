/// <reference lib="dom" />
/**
 * The test, end to end: a running campaign on the suite's Temporal dev server and a real
 * emulator, the review page served as `mediaflow review` serves it, driven by Chromium with the
 * keyboard. Two stills approved and one rejected: the two videos start and land on the page, the
 * rejected one's video is skipped and never created upstream; a regenerate creates exactly one
 * new prediction; `z` takes back a decision not sent yet.
 */
import { mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { createKey } from '../../activities/create/keys.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { harness } from '../engine/harness.ts';
import { ARTIFACTS } from './browser.ts';
import { openCampaignPage } from './open-page.ts';

const SPEC = `
version: 1
campaign: review-page
budget: { max_usd: 20 }
concurrency: 8
output: { dir: out }
steps:
  - id: still
    model: I1
    review: { edit_prompt: true }
    matrix: { product: [sneaker, watch], background: [white, marble] }
    input: { prompt: "Acme {{product}} on a {{background}} background", aspect_ratio: "16:9" }
  - id: clip
    model: V4
    from: still
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", duration: "5" }
`;

/** Waits until the page shows `state` for the item, as a person would see it change. */
async function itemState(page: Page, key: string, state: string): Promise<void> {
  await page.waitForSelector(`.item[data-key="${key}"][data-state="${state}"]`, { timeout: 30_000 });
}

it('triages a running campaign from the keyboard: videos only for the approved stills', async () => {
  // Stills in 0.3 s, videos in 5 s: long enough to see a video start before it lands.
  const h = await harness({ latencyMs: { I1: 300, V4: 5000 }, jitter: false });
  const plan = await h.plan(SPEC);
  const handle = await h.start(plan);
  await h.startWorker();
  const { page } = await openCampaignPage(h.temporal, plan.campaign, { holdMs: 700, pollMs: 300 });

  const stills = plan.jobs.filter((job) => job.step === 'still');
  const clipOf = (still: PlannedJob) => plan.jobs.find((job) => job.parent === still.key)!;
  expect(stills.map((job) => job.name)).toEqual([
    'still-sneaker-white',
    'still-sneaker-marble',
    'still-watch-white',
    'still-watch-marble',
  ]);
  const [sneakerWhite, sneakerMarble, watchWhite, watchMarble] = stills as [PlannedJob, ...PlannedJob[]];
  // New stills appear on the open page as they are saved.
  for (const still of stills) await itemState(page, still.key, 'awaiting');
  expect(await page.locator('.thumb img').count()).toBe(4);

  // The first still has the focus: a, a, r decide it and the next two, moving on each time.
  await page.keyboard.press('a');
  await page.keyboard.press('a');
  await page.keyboard.press('r');
  expect(await page.locator('.item.pending').count()).toBe(3);
  await page.waitForSelector('#status .ok', { timeout: 10_000 });
  expect(await page.locator('#status').textContent()).toBe('3 applied');

  // Both videos start (their stills show them being made), then land and play on the page. Both
  // are watched at once; on a loaded machine a poll can come after a video has already landed,
  // so a still whose video is there counts as started too.
  await Promise.all(
    [sneakerWhite, sneakerMarble!].map(async (still) => {
      await itemState(page, still.key, 'approved');
      const item = `.item[data-key="${still.key}"]`;
      await page.waitForSelector(`${item} .dot.s-generating, ${item} .thumb video[poster]`, {
        timeout: 30_000,
      });
    }),
  );
  for (const still of [sneakerWhite, sneakerMarble!]) {
    await page.waitForSelector(`.item[data-key="${still.key}"] .thumb video[poster]`, { timeout: 30_000 });
  }
  await itemState(page, watchWhite!.key, 'rejected');
  await page.waitForSelector(`.item[data-key="${watchWhite!.key}"] .dot.s-skipped`);
  // Applied decisions are no longer marked as on their way.
  await expect.poll(() => page.locator('.item.pending').count(), { timeout: 5_000 }).toBe(0);
  // Upstream: one video per approved still, none for the rejected one.
  const ledger = h.emulator.ledger();
  expect(ledger.byModel).toEqual({ I1: 4, V4: 2 });
  const rejectedClip = createKey({
    campaign: plan.campaign,
    jobKey: clipOf(watchWhite!).key,
    regen: 0,
    replaces: null,
  });
  expect(ledger.byIdempotencyKey[rejectedClip]).toBeUndefined();

  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: fileURLToPath(new URL('review-contact-sheet.png', ARTIFACTS)) });

  // A decision the workflow refuses is shown with its reason: who decided first, and when.
  await page.click(`.item[data-key="${sneakerWhite.key}"]`);
  await page.keyboard.press('a');
  await page.waitForSelector('#status .refused', { timeout: 10_000 });
  expect(await page.locator('#status').textContent()).toMatch(
    new RegExp(
      `^still-sneaker-white: approved by ${userInfo().username} at \\S+ \\(take 0\\): their decision stands$`,
    ),
  );

  // The last still: approved, then taken back with z before it is sent.
  await page.click(`.item[data-key="${watchMarble!.key}"]`);
  await page.keyboard.press('a');
  await page.keyboard.press('z');
  expect(await page.locator('#status').textContent()).toBe('undone: approve of 1');
  await page.waitForTimeout(1200); // past the hold: had it been sent, it would be by now
  expect(h.emulator.ledger().byModel).toEqual({ I1: 4, V4: 2 });
  await itemState(page, watchMarble!.key, 'awaiting');

  // Regenerate it: exactly one new prediction, a second take to review.
  const keysBefore = new Set(Object.keys(h.emulator.ledger().byIdempotencyKey));
  await page.keyboard.press('g');
  await page.waitForSelector('#status .ok', { timeout: 10_000 });
  await page.waitForSelector(
    `.item[data-key="${watchMarble!.key}"] .badge:text("awaiting review · take 1")`,
    {
      timeout: 30_000,
    },
  );
  await expect.poll(() => h.emulator.ledger().byModel, { timeout: 10_000 }).toEqual({ I1: 5, V4: 2 });
  const { byIdempotencyKey, duplicates } = h.emulator.ledger();
  const created = Object.entries(byIdempotencyKey).filter(([key]) => !keysBefore.has(key));
  expect(created.map(([, count]) => count)).toEqual([1]);
  expect(duplicates).toBe(0);
  await page.click(`.item[data-key="${watchMarble!.key}"]`);
  expect(await page.locator('#detail').textContent()).toContain('take 1');

  // The step lets a reviewer change the prompt: p asks for one, and the third take is made from it.
  await page.keyboard.press('p');
  await page.fill('#prompt-dialog textarea', 'Acme watch on dark slate, low key light');
  await page.click('#prompt-dialog button[value="ok"]');
  await page.waitForSelector(
    `.item[data-key="${watchMarble!.key}"] .badge:text("awaiting review · take 2")`,
    {
      timeout: 30_000,
    },
  );
  expect(h.emulator.ledger().byModel).toEqual({ I1: 6, V4: 2 });
  await page.click(`.item[data-key="${watchMarble!.key}"]`);
  expect(await page.locator('#detail .prompt').textContent()).toBe('Acme watch on dark slate, low key light');

  // Rejecting the new take ends the campaign: nothing left to decide or make.
  await page.keyboard.press('r');
  const progress = await handle.result();
  expect(progress.outcome).toBe('completed');
  expect(h.emulator.ledger().byModel).toEqual({ I1: 6, V4: 2 });
  await itemState(page, watchMarble!.key, 'rejected');
}, 120_000);
