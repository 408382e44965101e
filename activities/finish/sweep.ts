/**
 * What finish attempts left behind, cleared once their campaign is over: a retry never clears
 * another attempt's writes, since that attempt may still be running (a timed-out one keeps going
 * until its worker notices).
 */
import type { PlannedJob } from '../../plan/types.ts';
import type { Manifest } from '../../records/manifest.ts';
import { fileInPlace, outputIdOf, outputIdOfFile } from '../../records/outputs.ts';
import { clearStaged, jobKeyOfStaged } from '../../records/staged-outputs.ts';
import { RECORDS, STAGED, type Store, type Unfinished } from '../../store/index.ts';

type SweptJob = Pick<PlannedJob, 'step' | 'name' | 'key' | 'file'>;

/**
 * Removes what finish attempts killed mid-write left of these jobs' outputs and records (a
 * folder's temporary files), once their campaign is over: an attempt Temporal had already timed
 * out, still downloading when its worker was SIGKILLed, leaves its staged output's temporary (the
 * crash-no-idempotency drill left two), and a record's temporary is left by a kill between its
 * write and its link (the crash drill left one, with a batch's records written together); older
 * versions wrote outputs in place, with their temporaries beside them. Only these jobs' files, since other
 * campaigns may write to the same folder. Returns their keys.
 *
 * The temporaries are found first, as the folders are read (a few, usually none), and the jobs are
 * read only when there are some, one at a time: never the names of every job and every entry of
 * the folders at once (for the largest plans, much of the worker's heap: docs/benchmarks.md).
 */
export async function removeUnfinishedOutputs(
  store: Store,
  steps: Iterable<string>,
  jobs: AsyncIterable<SweptJob> | Iterable<SweptJob>,
): Promise<string[]> {
  // Each leftover filed under what names its job: an output's step and name, a record's job key.
  const ofOutput = new Leftovers();
  const ofRecord = new Leftovers();
  for (const step of steps) {
    for await (const leftover of store.unfinished(`${step}/`)) {
      ofOutput.file(outputIdOfFile(step, leftover.key), leftover);
    }
  }
  // A record is named by its job's key, then the hash of a replaced prediction (manifest.ts).
  for await (const leftover of store.unfinished(RECORDS)) {
    ofRecord.file(leftover.key.slice(RECORDS.length).split('.')[0]!, leftover);
  }
  // A staged output is named by its job's key, then a name of its writer's own (staged-outputs.ts).
  for await (const leftover of store.unfinished(STAGED)) {
    ofRecord.file(jobKeyOfStaged(leftover.key), leftover);
  }
  const ours: Unfinished[] = [];
  for await (const job of jobs) {
    if (ofOutput.size === 0 && ofRecord.size === 0) break;
    ours.push(...ofOutput.take(outputIdOf(job.step, job.file ?? job.name)), ...ofRecord.take(job.key));
  }
  for (const leftover of ours) await store.remove(leftover.temporary);
  return ours.map((leftover) => leftover.key).sort();
}

/** Leftovers by the job they belong to; each is taken once, by the first job that claims it. */
class Leftovers extends Map<string, Unfinished[]> {
  file(id: string, leftover: Unfinished): void {
    const filed = this.get(id);
    if (filed) filed.push(leftover);
    else this.set(id, [leftover]);
  }

  take(id: string): Unfinished[] {
    const filed = this.get(id) ?? [];
    this.delete(id);
    return filed;
  }
}

/**
 * Outputs staged and never moved or removed: a writer killed between its record and its move (its
 * bytes go into place when no one has placed them yet) or between losing the record and removing
 * its copy (removed). Both backends: a bucket keeps a finished upload like any object. Returns the
 * keys removed; nothing is read when nothing is staged, as is usual.
 */
export async function settleStagedOutputs(
  manifest: Manifest,
  jobs: AsyncIterable<Pick<PlannedJob, 'key'>> | Iterable<Pick<PlannedJob, 'key'>>,
): Promise<string[]> {
  const stagedJobs = new Set<string>();
  for await (const key of manifest.store.list(STAGED)) stagedJobs.add(jobKeyOfStaged(key));
  const removed: string[] = [];
  for await (const job of jobs) {
    if (stagedJobs.size === 0) break;
    if (!stagedJobs.delete(job.key)) continue;
    const entry = await manifest.get(job.key);
    if (entry) await fileInPlace(manifest.store, entry);
    removed.push(...(await clearStaged(manifest.store, job.key)));
  }
  return removed.sort();
}
