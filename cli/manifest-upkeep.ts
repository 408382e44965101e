/**
 * What `run` does to keep the manifest the truth of the current plan (docs/engine.md, "The
 * manifest's lines"): before a re-run is priced, damaged records are repaired from the service;
 * before the campaign starts, its plan is named current and the outputs an edit would write over
 * are moved aside; when it ends, manifest.jsonl is made again from the records.
 */
import { downloadFile } from '../activities/download.ts';
import { repairRecords } from '../activities/repair-records.ts';
import type { ServiceClient } from '../api/client/index.ts';
import type { Plan } from '../plan/types.ts';
import { writeCurrentPlan } from '../records/current-plan.ts';
import { Manifest } from '../records/manifest.ts';
import { rebuildManifest } from '../records/manifest-view.ts';
import { setAsideEdited } from '../records/set-aside.ts';

/** One warning line when a record was repaired: the job is not made, nor paid, again. */
export async function repairDamagedRecords(service: ServiceClient, plan: Plan): Promise<void> {
  const repaired = await repairRecords(service, plan, downloadFile);
  if (repaired.length > 0)
    console.error(
      `warning: damaged records repaired from their predictions (nothing paid again): ${repaired.join(', ')}`,
    );
}

/**
 * The plan is the campaign's current one (the manifest lists its jobs' outputs only); outputs of
 * jobs it no longer has, on a name one of its jobs writes, are moved to names of their own
 * before any job runs (records/set-aside.ts), so nothing is written over them.
 */
export async function makeCurrent(plan: Plan, digest: string): Promise<void> {
  const manifest = await Manifest.open(plan.outputDir);
  await writeCurrentPlan(manifest.store, plan.campaign, digest);
  const moved = await setAsideEdited(manifest.store, await manifest.takes(), plan.jobs);
  if (moved.length > 0) console.error(`earlier outputs of edited jobs kept as: ${moved.join(', ')}`);
}

/** Its failure (a full disk) leaves the records, the truth, as they are: said, not fatal. */
export async function rewriteManifest(outputDir: string): Promise<void> {
  await rebuildManifest(outputDir).catch((error: unknown) =>
    console.error(`warning: manifest.jsonl not rewritten from the records: ${(error as Error).message}`),
  );
}
