/**
 * Saves a succeeded prediction's output: downloads it into the output folder (checked, never
 * replacing a good file with a partial one) and records the job in the manifest, once.
 */
import { join } from 'node:path';
import { type MediaKind, MODELS } from '../../api/catalogue/index.ts';
import { formatUsd } from '../../api/money.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { downloadFile } from '../download.ts';
import type { Manifest } from '../manifest.ts';
import { insideOutput } from '../outputs.ts';

export type Download = typeof downloadFile;

export interface SaveContext {
  readonly waitedMs: number;
  readonly again: boolean;
  /** The prediction whose lost output this one replaces, or null. */
  readonly replaces: string | null;
}

/** Downloads the first output and records it; returns the file, relative to the output folder. */
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
  const file = join(job.step, `${job.name}${take}${extensionOf(url, MODELS[job.model].kind)}`);
  // Step ids and names come from a plan file read from disk: never let them lead outside.
  const target = insideOutput(request.outputDir, file);
  const started = Date.now();
  const { sha256, bytes } = await download(url, target, { cleanUp: context.again });
  // One line per job and prediction: a second worker finishing it finds the record taken.
  manifest.record(
    {
      key: job.key,
      step: job.step,
      name: job.name,
      model: job.model,
      input: request.prompt === undefined ? { ...job.input } : { ...job.input, prompt: request.prompt },
      prediction_id: prediction.id,
      credits_used: prediction.creditsUsed === null ? null : formatUsd(prediction.creditsUsed),
      file,
      sha256,
      bytes,
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

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
