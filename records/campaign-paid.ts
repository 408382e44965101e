/**
 * What a campaign has paid in all its runs, from its records alone: every recorded take once, every
 * charged refusal and every paid output that could not be saved (records/manifest.ts
 * `paidInAllRuns`). The campaign's budget is held to it (cli/run-budget.ts), and `status`, `run`
 * and `report` show it as "in all runs", so they never disagree.
 */
import type { Micros } from '../api/money.ts';
import { openStore, type Store } from '../store/index.ts';
import { nodeWriter } from './jsonl.ts';
import { Manifest } from './manifest.ts';
import { readRefusals, refusalCharges } from './refusals.ts';
import { readUnsaved } from './unsaved.ts';

/** At least `thisRun`: a run's own figure counts charges that left no record yet. */
export async function campaignPaid(
  outputDir: string,
  campaign: string,
  thisRun: Micros = 0,
  store: Store = openStore(outputDir),
): Promise<Micros> {
  const manifest = await Manifest.open(outputDir, nodeWriter, store);
  const refused = refusalCharges((await readRefusals(outputDir, campaign, store)).values());
  return manifest.paid(thisRun, refused, await readUnsaved(store, campaign));
}
