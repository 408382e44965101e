/// <reference lib="dom" />
/**
 * Shared review in Chromium (issue 24): two reviewers, each in a browser of their own with their
 * own signed link, on one running campaign's sheet. Each sees the other's decisions land live,
 * with the other's name; when both decide the same take at once, the workflow takes one and the
 * other is told whose decision won; a view-only link sees everything and decides nothing; the
 * decision records carry the names. Screenshots of both sheets go to test-artifacts/.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it, onTestFinished } from 'vitest';
import { readDecisions } from '../../records/decisions.ts';
import { openReviewCampaign } from '../../review/campaign.ts';
import { issueLink, readLinkKeys } from '../../review/link-keys.ts';
import { LiveModel } from '../../review/live.ts';
import { startReviewServer } from '../../review/server.ts';
import { harness } from '../engine/harness.ts';
import { ARTIFACTS, launchBrowser } from './browser.ts';

const SPEC = `
version: 1
campaign: two-reviewers
budget: { max_usd: 20 }
concurrency: 8
output: { dir: out }
steps:
  - id: still
    model: I1
    review: {}
    matrix: { product: [sneaker, watch], background: [white, marble] }
    input: { prompt: "Acme {{product}} on a {{background}} background", aspect_ratio: "16:9" }
`;

const itemState = (page: Page, key: string, state: string) =>
  page.waitForSelector(`.item[data-key="${key}"][data-state="${state}"]`, { timeout: 30_000 });

const statusText = async (page: Page) => (await page.locator('#status').textContent()) ?? '';

it('two reviewers see each other’s decisions live; the second on one take is told whose won', async () => {
  const h = await harness({ latencyMs: { I1: 300 }, jitter: false });
  const plan = await h.plan(SPEC);
  await h.start(plan);
  await h.startWorker();
  const campaign = await openReviewCampaign(h.temporal, plan.campaign);
  const keysFile = join(await mkdtemp(join(tmpdir(), 'review-links-')), `${plan.campaign}.json`);
  const server = await startReviewServer({
    live: new LiveModel(campaign.load, 200),
    outputDir: campaign.start.outputDir,
    send: campaign.send,
    access: { campaign: plan.campaign, keys: () => readLinkKeys(keysFile) },
    holdMs: 700,
    pollMs: 300,
  });
  onTestFinished(() => server.close());
  const linkFor = async (name: string, role: 'view' | 'decide') => {
    const { token } = await issueLink(keysFile, {
      campaign: plan.campaign,
      name,
      role,
      exp: Date.now() + 3_600_000,
    });
    return `${server.origin}/${token}/`;
  };
  const [anaBrowser, boBrowser, eveBrowser] = await Promise.all([
    launchBrowser(),
    launchBrowser(),
    launchBrowser(),
  ]);
  onTestFinished(() => Promise.all([anaBrowser, boBrowser, eveBrowser].map((b) => b.close())).then(() => {}));
  const ana = await anaBrowser.context.newPage();
  const bo = await boBrowser.context.newPage();
  const eve = await eveBrowser.context.newPage();
  await ana.goto(await linkFor('Ana', 'decide'));
  await bo.goto(await linkFor('Bo', 'decide'));
  await eve.goto(await linkFor('Eve', 'view'));
  expect(await statusText(ana)).toBe('reviewing as Ana');
  expect(await statusText(eve)).toBe('reviewing as Eve (view only)');

  const [first, second, third] = plan.jobs.filter((job) => job.step === 'still') as [
    (typeof plan.jobs)[number],
    ...(typeof plan.jobs)[number][],
  ];
  for (const page of [ana, bo, eve])
    for (const job of [first, second!, third!]) await itemState(page, job.key, 'awaiting');

  // Ana approves the first still; Bo and Eve see it approved, by Ana, without reloading.
  await ana.keyboard.press('a');
  for (const page of [bo, eve]) {
    await itemState(page, first.key, 'approved');
    await expect
      .poll(() => page.locator(`.item[data-key="${first.key}"] .decision`).textContent())
      .toContain('by Ana');
  }
  // Bo rejects the second (focus moves on: ArrowRight); Ana sees it.
  await bo.locator(`.item[data-key="${second!.key}"]`).click();
  await bo.keyboard.press('r');
  await itemState(ana, second!.key, 'rejected');
  await expect
    .poll(() => ana.locator(`.item[data-key="${second!.key}"] .decision`).textContent())
    .toContain('by Bo');

  // Both decide the third at once: one wins, the other is told who.
  await ana.locator(`.item[data-key="${third!.key}"]`).click();
  await bo.locator(`.item[data-key="${third!.key}"]`).click();
  await Promise.all([ana.keyboard.press('a'), bo.keyboard.press('r')]);
  // Polled through statusText, so a failure shows what the page said instead.
  await Promise.all(
    [ana, bo].map((page) =>
      expect.poll(() => statusText(page), { timeout: 30_000 }).toMatch(/applied|stands/),
    ),
  );
  const [anaSays, boSays] = [await statusText(ana), await statusText(bo)];
  const anaWon = anaSays.includes('1 applied');
  expect(anaWon ? boSays : anaSays).toContain(anaWon ? 'approved by Ana at' : 'rejected by Bo at');
  expect(anaWon ? boSays : anaSays).toContain('their decision stands');
  expect([anaWon ? boSays : anaSays].join()).not.toContain('applied');

  // Eve may look, not decide: her keys send nothing.
  await eve.locator(`.item[data-key="${plan.jobs[3]!.key}"]`).click();
  await eve.keyboard.press('a');
  expect(await statusText(eve)).toBe('Eve’s link may view, not decide');

  const records = await readDecisions(campaign.start.outputDir, plan.campaign);
  expect(records.get(first.key)).toMatchObject({ action: 'approve', by: 'Ana', source: 'reviewer' });
  expect(records.get(second!.key)).toMatchObject({ action: 'reject', by: 'Bo' });
  expect(records.get(third!.key)?.by).toBe(anaWon ? 'Ana' : 'Bo');
  expect(records.has(plan.jobs[3]!.key)).toBe(false);

  await ana.locator(`.item[data-key="${first.key}"]`).hover();
  await ana.screenshot({ path: fileURLToPath(new URL('two-reviewers-ana.png', ARTIFACTS)) });
  await bo.screenshot({ path: fileURLToPath(new URL('two-reviewers-bo.png', ARTIFACTS)) });
  await eve.screenshot({ path: fileURLToPath(new URL('two-reviewers-eve-view-only.png', ARTIFACTS)) });
  await campaign.close();
}, 120_000);
