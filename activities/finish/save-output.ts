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
import { fileInPlace } from '../../records/outputs.ts';
import type { PlanHead } from '../../records/plan-store.ts';
import { stagedKey } from '../../records/staged-outputs.ts';
import type { downloadFile } from '../download.ts';
import { credentialsOf } from '../provenance/credentials/of-output.ts';
import { recordedProvenance } from '../provenance/of-entry.ts';
import { provenanceOf } from '../provenance/of-job.ts';
import { withProvenance } from '../provenance/with-provenance.ts';

export type Download = typeof downloadFile;

export interface SaveContext {
  readonly waitedMs: number;
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
  const extension = extensionOf(url, MODELS[job.model].kind);
  const file = `${job.step}/${job.file ?? job.name}${take}${extension}`;
  const started = Date.now();
  // The sha256 and size recorded are of the file as delivered, with its XMP and its signed
  // manifest (docs/provenance.md).
  const made = await provenanceOf(context.head, manifest, job, prediction, request);
  const provenance = withProvenance(
    made,
    file,
    credentialsOf(manifest.store, request.regen, made.parentFile),
  );
  // Staged under a name of this writer's own, and moved to the output's name only once its record
  // is created: a second worker finishing the same prediction (its bytes signed apart) then never
  // replaces the recorded file with its own (records/staged-outputs.ts).
  const staged = stagedKey(job.key, extension);
  const { sha256, bytes } = await download(
    url,
    { store: manifest.store, key: staged },
    { cleanUp: false, transform: provenance.transform },
  );
  // The same text from every writer of this take (the XMP holds no time of its own): written in place.
  const sidecar = await provenance.sidecar(manifest.store);
  // One record per job and prediction: a second worker finishing it finds the record taken.
  const recorded = await manifest.record(
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
  if (recorded || (await recordedFileLost(manifest, job.key))) await manifest.store.move(staged, file);
  else await manifest.store.remove(staged);
  return file;
}

/**
 * Whether the output recorded for the job is gone with no recorded bytes staged to put back: a
 * prediction whose record stands (the same id, re-fetched after its file was deleted) then gets
 * this writer's bytes in place. Otherwise another writer's are there, or are placed now.
 */
async function recordedFileLost(manifest: Manifest, jobKey: string): Promise<boolean> {
  const entry = await manifest.get(jobKey);
  return entry !== undefined && !(await fileInPlace(manifest.store, entry));
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

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
export function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
