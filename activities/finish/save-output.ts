/**
 * Saves a succeeded prediction's output: downloads it into the output folder (checked, never
 * replacing a good file with a partial one) and records the job in the manifest, once.
 */
import { join, relative } from 'node:path';
import { type MediaKind, MODELS } from '../../api/catalogue/index.ts';
import { formatUsd } from '../../api/money.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { downloadFile } from '../download.ts';
import type { Manifest } from '../manifest.ts';

/** Downloads the first output and records it; returns the file, relative to the output folder. */
export async function saveOutput(
  manifest: Manifest,
  job: PlannedJob,
  prediction: Prediction,
  request: FinishRequest,
  timing: { waitedMs: number; again: boolean },
): Promise<string> {
  const url = prediction.outputs[0]!;
  const target = join(request.outputDir, job.step, `${job.name}${extensionOf(url, MODELS[job.model].kind)}`);
  const started = Date.now();
  const { sha256, bytes } = await downloadFile(url, target, { cleanUp: timing.again });
  const file = relative(request.outputDir, target);
  // Another worker may have finished this job meanwhile (a rare hand-over race): one line per job.
  if (!(await manifest.get(job.key))) {
    manifest.append({
      key: job.key,
      step: job.step,
      name: job.name,
      model: job.model,
      input: job.input as Record<string, unknown>,
      prediction_id: prediction.id,
      credits_used: prediction.creditsUsed === null ? null : formatUsd(prediction.creditsUsed),
      file,
      sha256,
      bytes,
      output_url: url,
      regenerations: request.regen,
      created_at: prediction.createdAt ?? new Date(request.startedAt).toISOString(),
      finished_at: new Date().toISOString(),
      wait_ms: timing.waitedMs,
      download_ms: Date.now() - started,
    });
  }
  return file;
}

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
