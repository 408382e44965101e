/**
 * Before a re-run starts, the derivatives of outputs already recorded: a derive step added or
 * edited, a derivative's file deleted, a newer tool. New outputs get theirs as they are saved
 * (activities/finish/); recorded ones are never finished again, so `run` makes what they lack
 * here, after the audit has put every recoverable output back (activities/audit.ts) and the plan
 * is stored (its digest is what the files' provenance names).
 */
import pLimit from 'p-limit';
import type { Plan } from '../../plan/types.ts';
import { Manifest } from '../../records/manifest.ts';
import { fileIntact } from '../../records/outputs.ts';
import type { DeriveDeps } from './deps.ts';
import { makeDerivatives } from './make-derivatives.ts';

export interface RecordedDerivatives {
  /** Derivatives made now. */
  readonly made: number;
  /** Derivatives that could not be made: `step/file: derive_failed: why`. */
  readonly failed: readonly string[];
}

export async function deriveRecordedOutputs(
  deps: DeriveDeps,
  plan: Plan,
  planDigest: string,
): Promise<RecordedDerivatives> {
  const parents = plan.jobs.filter((job) => (job.derivatives ?? []).length > 0);
  if (parents.length === 0) return { made: 0, failed: [] };
  const manifest = await Manifest.open(plan.outputDir);
  const entryOf = await manifest.walk();
  // The records are read a few at a time; the derive work itself is bounded by deps.limit.
  const reads = pLimit(8);
  let made = 0;
  const failed: string[] = [];
  await Promise.all(
    parents.map((job) =>
      reads(async () => {
        const entry = await entryOf(job.key);
        if (!entry || !(await fileIntact(manifest.store, entry, false))) return;
        const context = { campaign: plan.campaign, planDigest };
        for (const { record, now } of await makeDerivatives(deps, manifest.store, job, entry, context)) {
          if (!now) continue;
          if (record.state === 'made') made += 1;
          else failed.push(`${record.step}/${job.file ?? job.name}: ${record.message}`);
        }
      }),
    ),
  );
  return { made, failed: failed.sort() };
}
