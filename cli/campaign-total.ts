/**
 * What a campaign has paid across all its runs: every take its records hold, every charged
 * refusal and every paid output that could not be saved (records/unsaved.ts), at least what this
 * run paid (records/manifest.ts, `paidInAllRuns`; `report` says the same). `status` and `run` show
 * it beside this run's spend, which a re-run that found everything made leaves at $0.00.
 */
import type { Client } from '@temporalio/client';
import type { Micros } from '../api/money.ts';
import { campaignHandle } from '../control/campaign.ts';
import { Manifest } from '../records/manifest.ts';
import { readRefusals, refusalCharges } from '../records/refusals.ts';
import { readUnsaved } from '../records/unsaved.ts';
import { campaignStart } from '../review/sources.ts';

/** Null when the records cannot be read from here (a bucket without credentials, a folder elsewhere). */
export async function campaignTotal(
  outputDir: string,
  campaign: string,
  thisRun: Micros,
): Promise<Micros | null> {
  try {
    const manifest = await Manifest.open(outputDir);
    const refused = refusalCharges((await readRefusals(outputDir, campaign, manifest.store)).values());
    return await manifest.paid(thisRun, refused, await readUnsaved(manifest.store, campaign));
  } catch {
    return null;
  }
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
