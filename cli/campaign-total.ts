/**
 * What a campaign has paid across all its runs (records/campaign-paid.ts), at least what this run
 * paid; `report` says the same. `status` and `run` show it beside this run's spend, which a re-run
 * that found everything made leaves at $0.00.
 */
import type { Client } from '@temporalio/client';
import type { Micros } from '../api/money.ts';
import { campaignHandle } from '../control/campaign.ts';
import { campaignPaid } from '../records/campaign-paid.ts';
import { campaignStart } from '../review/sources.ts';

/** Null when the records cannot be read from here (a bucket without credentials, a folder elsewhere). */
export async function campaignTotal(
  outputDir: string,
  campaign: string,
  thisRun: Micros,
): Promise<Micros | null> {
  return campaignPaid(outputDir, campaign, thisRun).catch(() => null);
}

/** The same for a campaign known by name: its output folder is in its workflow's start input. */
export async function campaignTotalOf(
  client: Client,
  campaign: string,
  thisRun: Micros,
): Promise<Micros | null> {
  const start = await campaignStart(client, campaignHandle(client, campaign)).catch(() => null);
  return start === null ? null : campaignTotal(start.outputDir, campaign, thisRun);
}
