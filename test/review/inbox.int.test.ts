/// <reference lib="dom" />
/**
 * The review inbox in Chromium (issue 24): two running campaigns of one stack with stills awaiting
 * review are listed with how many and since when the oldest has waited, each a link to its sheet on
 * the same server; the page fits a phone. Only inbox links open it: a forged link, or a campaign's
 * link signed under the same secret, gets 401 with nothing in it; a view link cannot decide.
 * Two reviewers who came through the inbox see each other's decisions live, and a decision on a
 * take already decided is refused naming whose won. Screenshots go to test-artifacts/.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { request } from 'undici';
import { expect, it, onTestFinished } from 'vitest';
import { runningCampaigns } from '../../control/running-campaigns.ts';
import type { Plan } from '../../plan/types.ts';
import { openReviewCampaign } from '../../review/campaign.ts';
import { startInboxServer } from '../../review/inbox-server.ts';
import { issueLink, readLinkKeys } from '../../review/link-keys.ts';
import { INBOX_SCOPE, signLink } from '../../review/links.ts';
import { sheetUrl } from '../../review/sheet-url.ts';
import { harness } from '../engine/harness.ts';
import { ARTIFACTS, launchBrowser } from './browser.ts';

const spec = (campaign: string, products: string) => `
version: 1
campaign: ${campaign}
budget: { max_usd: 20 }
concurrency: 8
output: { dir: out-${campaign} }
steps:
  - id: still
    model: I1
    review: {}
    matrix: { product: [${products}], background: [white, marble] }
    input: { prompt: "Acme {{product}} on a {{background}} background", aspect_ratio: "16:9" }
`;

const shot = (page: Page, name: string) =>
  page.screenshot({ path: fileURLToPath(new URL(name, ARTIFACTS)), fullPage: true });

const card = (page: Page, campaign: string) => page.locator(`.campaign[data-campaign="${campaign}"]`);

it('lists the campaigns awaiting review with counts and oldest wait, and opens their sheets', async () => {
  const h = await harness({ latencyMs: { I1: 200 }, jitter: false });
  const launch = await h.plan(spec('inbox-launch', 'sneaker, watch'));
  const lamps = await h.plan(spec('inbox-lamps', 'lamp'));
  await h.start(launch);
  await h.start(lamps);
  await h.startWorker();

  const keysFile = join(await mkdtemp(join(tmpdir(), 'review-inbox-')), `${INBOX_SCOPE}.json`);
  const server = await startInboxServer({
    access: { campaign: INBOX_SCOPE, keys: () => readLinkKeys(keysFile) },
    campaigns: () => runningCampaigns(h.temporal),
    open: (campaign) => openReviewCampaign(h.temporal, campaign),
    readEveryMs: 200,
    holdMs: 500,
    pollMs: 300,
    refreshSeconds: 0,
  });
  onTestFinished(() => server.close());
  const linkFor = async (name: string, role: 'view' | 'decide') => {
    const { token } = await issueLink(keysFile, {
      campaign: INBOX_SCOPE,
      name,
      role,
      exp: Date.now() + 3_600_000,
    });
    return { url: `${server.origin}/${token}/`, token };
  };
  const ana = await linkFor('Ana', 'decide');

  // Wait until every still of both campaigns is saved and waits (the inbox says so itself).
  const html = async (url: string) => (await request(url)).body.text();
  await expect
    .poll(
      async () => {
        const page = await html(ana.url);
        return [launch, lamps].map(
          (plan) => new RegExp(`data-campaign="${plan.campaign}"[^]*?<span class="n">(\\d+)`).exec(page)?.[1],
        );
      },
      { timeout: 60_000, interval: 300 },
    )
    .toEqual(['4', '2']);

  // When the oldest take of each was saved: its manifest line, as the inbox must say.
  const oldest = async (plan: Plan) =>
    (await h.manifest(plan)).map((line) => String(line.finished_at)).sort()[0]!;
  const since = { [launch.campaign]: await oldest(launch), [lamps.campaign]: await oldest(lamps) };

  const [browserA, browserB] = await Promise.all([launchBrowser(), launchBrowser()]);
  onTestFinished(() => Promise.all([browserA.close(), browserB.close()]).then(() => {}));
  const anaPage = await browserA.context.newPage();
  await anaPage.goto(ana.url);
  for (const [plan, count] of [
    [launch, '4'],
    [lamps, '2'],
  ] as const) {
    const row = card(anaPage, plan.campaign);
    await expect.poll(() => row.locator('.n').textContent()).toBe(count);
    expect(await row.locator('.wait').getAttribute('title')).toBe(`since ${since[plan.campaign]}`);
    expect(await row.locator('.wait').textContent()).toMatch(/^oldest waiting \d+ (s|min)$/);
    expect(await row.locator('.steps').textContent()).toBe(`still ${count}`);
  }
  // The longest wait first; two saved in the same millisecond, by name (review/inbox.ts).
  const order = await anaPage
    .locator('.campaign')
    .evaluateAll((cards) => cards.map((c) => (c as HTMLElement).dataset.campaign));
  const mine = order.filter((name) => name === launch.campaign || name === lamps.campaign);
  expect(mine).toEqual(
    [launch.campaign, lamps.campaign].sort(
      (a, b) => since[a]!.localeCompare(since[b]!) || a.localeCompare(b),
    ),
  );
  expect(await anaPage.locator('#status').textContent()).toBe('reviewing as Ana');
  await shot(anaPage, 'inbox.png');

  // A phone: one column, nothing wider than the screen.
  await anaPage.setViewportSize({ width: 390, height: 844 });
  expect(
    await anaPage.evaluate(
      () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
    ),
  ).toBe(true);
  await shot(anaPage, 'inbox-narrow.png');
  await anaPage.setViewportSize({ width: 1400, height: 900 });

  // Only an inbox link opens it: forged, or a campaign's link under the same secret, is a 401.
  const [payload, signature] = ana.token.split('.') as [string, string];
  const forged = `${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  const secret = (await readLinkKeys(keysFile)).secret;
  const campaignLink = signLink(secret, {
    id: '0123456789abcdef',
    campaign: launch.campaign,
    name: 'Mallory',
    role: 'decide',
    exp: Date.now() + 3_600_000,
  });
  for (const token of [forged, campaignLink]) {
    for (const path of ['', `c/${launch.campaign}/`]) {
      const answer = await request(`${server.origin}/${token}/${path}`);
      expect(answer.statusCode).toBe(401);
      expect(await answer.body.text()).toBe('');
    }
  }
  // A view link sees every sheet and decides on none.
  const eve = await linkFor('Eve', 'view');
  const viewOnly = await request(`${eve.url}c/${launch.campaign}/decisions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ decisions: [{ key: launch.jobs[0]!.key, action: 'approve' }] }),
  });
  expect(viewOnly.statusCode).toBe(403);

  // Ana opens a sheet from the inbox; Bo opens the same one from his.
  await card(anaPage, launch.campaign).locator('a').click();
  await anaPage.waitForURL(`**/c/${launch.campaign}/`);
  const bo = await linkFor('Bo', 'decide');
  const boPage = await browserB.context.newPage();
  await boPage.goto(`${bo.url}c/${launch.campaign}/`);
  const [first, second] = launch.jobs;
  for (const page of [anaPage, boPage])
    await page.waitForSelector(`.item[data-key="${first!.key}"][data-state="awaiting"]`);

  // Ana approves the first; Bo sees it approved, by Ana, without reloading.
  await anaPage.locator(`.item[data-key="${first!.key}"]`).click();
  await anaPage.keyboard.press('a');
  await boPage.waitForSelector(`.item[data-key="${first!.key}"][data-state="approved"]`, { timeout: 30_000 });
  await expect
    .poll(() => boPage.locator(`.item[data-key="${first!.key}"] .decision`).textContent())
    .toContain('by Ana');
  // Bo's decision on that same take is refused, naming Ana's.
  await boPage.locator(`.item[data-key="${first!.key}"]`).click();
  await boPage.keyboard.press('r');
  await expect
    .poll(() => boPage.locator('#status').textContent(), { timeout: 30_000 })
    .toMatch(/approved by Ana at .* \(take 0\): their decision stands/);
  await shot(boPage, 'inbox-sheet-bo-refused.png');
  // Bo rejects another; Ana sees it live.
  await boPage.locator(`.item[data-key="${second!.key}"]`).click();
  await boPage.keyboard.press('r');
  await anaPage.waitForSelector(`.item[data-key="${second!.key}"][data-state="rejected"]`, {
    timeout: 30_000,
  });
  await expect
    .poll(() => anaPage.locator(`.item[data-key="${second!.key}"] .decision`).textContent())
    .toContain('by Bo');
  await anaPage.locator(`.item[data-key="${second!.key}"]`).click();
  await shot(anaPage, 'inbox-sheet-ana.png');

  // A notice's secret-free address opens the sheet in a browser that has opened its inbox link
  // (the sheet left it in a cookie for /sheet/ only); without that cookie it is a 401.
  await anaPage.goto(sheetUrl(server.origin, lamps.campaign));
  await anaPage.waitForURL(`${ana.url}c/${lamps.campaign}/`);
  await anaPage.waitForSelector(`.item[data-key="${lamps.jobs[0]!.key}"][data-state="awaiting"]`);
  expect((await request(sheetUrl(server.origin, lamps.campaign))).statusCode).toBe(401);
  await anaPage.goBack();

  // Back in the inbox, the campaign has two left.
  await anaPage.locator('.title .back').click();
  await anaPage.waitForURL(ana.url);
  await expect.poll(() => card(anaPage, launch.campaign).locator('.n').textContent()).toBe('2');
}, 150_000);
