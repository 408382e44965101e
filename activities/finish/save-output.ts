/**
 * Saves a succeeded prediction's output: downloads it into the campaign's store (checked, never
 * replacing a good file with a partial one) and records the job in the manifest, once.
 */
import { type MediaKind, MODELS } from '../../api/catalogue/index.ts';
import { formatUsd } from '../../api/money.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import { FROM_OUTPUT, type PlannedJob } from '../../plan/types.ts';
import type { Manifest, ManifestEntry } from '../../records/manifest.ts';
import { outputIdOf, outputIdOfFile } from '../../records/outputs.ts';
import type { PlanHead } from '../../records/plan-store.ts';
import { RECORDS, type Store, type Unfinished } from '../../store/index.ts';
import type { downloadFile } from '../download.ts';
import { credentialsOf } from '../provenance/credentials/of-output.ts';
import { recordedProvenance } from '../provenance/of-entry.ts';
import { provenanceOf } from '../provenance/of-job.ts';
import { withProvenance } from '../provenance/with-provenance.ts';

export type Download = typeof downloadFile;

export interface SaveContext {
  readonly waitedMs: number;
  readonly again: boolean;
  /** The prediction whose lost output this one replaces, or null. */
  readonly replaces: string | null;
  /** The stored plan's head: which steps are reviewed, for the output's provenance. */
  readonly head: PlanHead;
}

/** Downloads the first output and records it; returns the file (its key in the store). */
export async function saveOutput(
  download: Download,
  manifest: Manifest,
  job: PlannedJob,
  prediction: Prediction,
  request: FinishRequest,
  context: SaveContext,
): Promise<string> {
  const url = prediction.outputs[0]!;
  // A reviewer's new take is saved beside the earlier ones, which the review page still shows.
  const take = request.retake ? `.take${request.regen}` : '';
  // Step ids and names come from a stored plan: the store refuses a key that leads outside it.
  const file = `${job.step}/${job.file ?? job.name}${take}${extensionOf(url, MODELS[job.model].kind)}`;
  const started = Date.now();
  // The sha256 and size recorded are of the file as delivered, with its XMP and its signed
  // manifest (docs/provenance.md).
  const made = await provenanceOf(context.head, manifest, job, prediction, request);
  const provenance = withProvenance(
    made,
    file,
    credentialsOf(manifest.store, request.regen, made.parentFile),
  );
  const { sha256, bytes } = await download(
    url,
    { store: manifest.store, key: file },
    { cleanUp: context.again, transform: provenance.transform },
  );
  const sidecar = await provenance.sidecar(manifest.store);
  // One record per job and prediction: a second worker finishing it finds the record taken.
  await manifest.record(
    {
      key: job.key,
      step: job.step,
      name: job.name,
      model: job.model,
      input: await sentInput(manifest, job, request),
      parent: await parentOf(manifest, job),
      prediction_id: prediction.id,
      credits_used: prediction.creditsUsed === null ? null : formatUsd(prediction.creditsUsed),
      file,
      sha256,
      bytes,
      ...(sidecar ? { xmp: sidecar.file, xmp_sha256: sidecar.sha256 } : {}),
      ...(provenance.signed() ? { c2pa: true } : {}),
      provenance: recordedProvenance(made),
      output_url: url,
      regenerations: request.regen,
      created_at: prediction.createdAt ?? new Date(request.startedAt).toISOString(),
      finished_at: new Date().toISOString(),
      wait_ms: context.waitedMs,
      download_ms: Date.now() - started,
    },
    context.replaces,
  );
  return file;
}

/**
 * The input as the service was sent it: the reviewer's prompt for a retake, the parent's output
 * where the plan says `{{from.output}}` (resolve-input.ts sent the same). A local file stays named
 * by its path: the upload's URL is the service's, not the user's.
 */
async function sentInput(
  manifest: Manifest,
  job: PlannedJob,
  request: FinishRequest,
): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = { ...job.input };
  if (request.prompt !== undefined) input.prompt = request.prompt;
  const parent = job.parent === null ? undefined : await manifest.get(job.parent);
  for (const [field, value] of Object.entries(input))
    if (value === FROM_OUTPUT && parent) input[field] = parent.output_url;
  return input;
}

/** The job and file this output was made from, as the parent's record holds them now. */
export async function parentOf(manifest: Manifest, job: PlannedJob): Promise<ManifestEntry['parent']> {
  if (job.parent === null) return null;
  const parent = await manifest.get(job.parent);
  return { key: job.parent, prediction_id: parent?.prediction_id ?? null, file: parent?.file ?? null };
}

type SweptJob = Pick<PlannedJob, 'step' | 'name' | 'key' | 'file'>;

/**
 * Removes what finish attempts killed mid-write left of these jobs' outputs and records (a
 * folder's temporary files), once their campaign is over: a retry clears its own job's output
 * (downloadFile's cleanUp), but an attempt Temporal had already timed out, still downloading when
 * its worker was SIGKILLed, has no later attempt to clear it (the crash-no-idempotency drill left
 * two), and a record's temporary is left by a kill between its write and its link (the crash drill
 * left one, with a batch's records written together). Only these jobs' files, since other
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

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
export function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
