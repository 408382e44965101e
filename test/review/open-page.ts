/**
 * A campaign's review page as a test opens it: served on a free port by the real server, over the
 * campaign's own records and workflow, and opened in Chromium; both are closed when the test ends.
 */
import type { Client } from '@temporalio/client';
import { onTestFinished } from 'vitest';
import { openReviewCampaign } from '../../review/campaign.ts';
import { LiveModel } from '../../review/live.ts';
import { startReviewServer } from '../../review/server.ts';
import { launchBrowser } from './browser.ts';

/** How soon a decision is sent and the page polls, in ms; the server's own defaults when absent. */
export interface PageTimes {
  readonly holdMs?: number;
  readonly pollMs?: number;
}

export async function openCampaignPage(temporal: Client, campaignId: string, times: PageTimes = {}) {
  const campaign = await openReviewCampaign(temporal, campaignId);
  const server = await startReviewServer({
    live: new LiveModel(campaign.load, 200),
    outputDir: campaign.start.outputDir,
    send: campaign.send,
    ...times,
  });
  onTestFinished(() => server.close());
  const browser = await launchBrowser();
  onTestFinished(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(server.url);
  return { campaign, server, browser, page };
}
