import type { Plan } from '../plan/types.ts';
import { Manifest } from '../records/manifest.ts';

/**
 * A job an older engine's run recorded while its worker was killed before the job's line reached
 * manifest.jsonl (records/manifest.ts, record): within a run the job's next finish attempt appends
 * the line, but a run continued by a newer engine makes no next attempt, and the newer run finds
 * the record and takes the job as done. Its line is appended here, so manifest.jsonl lists every
 * recorded job (in S3 mode the manifest is made from the records: nothing to do).
 */
export async function restoreLines(plan: Plan): Promise<void> {
  const manifest = await Manifest.open(plan.outputDir);
  await manifest.restoreLines(plan.jobs.map((job) => job.key));
}
