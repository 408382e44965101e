/**
 * Finishes one prediction: waits for it, downloads its output into the output folder, and records
 * the job in the manifest. Safe to run again after a crash at any point: a job already in the
 * manifest is not downloaded twice, and a half-downloaded file never replaces a good one.
 */
import { join, relative } from 'node:path';
import { type MediaKind, MODELS } from '../api/catalogue/index.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { formatUsd } from '../api/money.ts';
import type { FinishOutcome, FinishRequest } from '../workflows/types.ts';
import { awaitPrediction } from './await-prediction.ts';
import { downloadFile } from './download.ts';
import { heartbeating } from './heartbeating.ts';
import type { Manifest } from './manifest.ts';
import type { LoadedPlan } from './plan-store.ts';

export interface FinishDeps {
  readonly client: ServiceClient;
  /** Work under way in this worker, by prediction id (see finishPrediction). */
  readonly finishing: Map<string, Promise<FinishOutcome>>;
}

/**
 * The activity. Heartbeats (with the prediction id) every few seconds so a dead worker is noticed
 * within the heartbeat timeout. When a campaign rolls over (continue-as-new) with this prediction
 * in flight, the next run starts a new activity for it while the old one may still be running in
 * this worker: both then share one piece of work, so the file is downloaded and recorded once.
 */
export async function finishPrediction(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
): Promise<FinishOutcome> {
  return heartbeating({ predictionId: request.predictionId }, (context) => {
    let work = deps.finishing.get(request.predictionId);
    if (!work) {
      const cleanUp = request.resumed || context.info.attempt > 1;
      work = finishJob(deps.client, loaded, manifest, request, cleanUp).finally(() =>
        deps.finishing.delete(request.predictionId),
      );
      deps.finishing.set(request.predictionId, work);
    }
    // The shared work is not tied to one activity's cancellation: a canceled campaign cancels its
    // predictions upstream, and the wait then ends with their canceled state.
    return Promise.race([work, context.cancelled]);
  });
}

async function finishJob(
  client: ServiceClient,
  { plan }: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
  cleanUp: boolean,
): Promise<FinishOutcome> {
  const job = plan.jobs[request.i]!;
  const done = await manifest.get(job.key);
  if (done) return { kind: 'succeeded', creditsUsed: null, file: done.file };

  const prediction = await awaitPrediction(client, request.predictionId);
  const waited = Date.now() - request.startedAt;
  if (prediction.status === 'canceled') return { kind: 'canceled' };
  if (prediction.status !== 'succeeded' || prediction.outputs.length === 0) {
    const message = prediction.error?.message ?? `prediction ${prediction.id} ended ${prediction.rawStatus}`;
    return { kind: 'failed', creditsUsed: prediction.creditsUsed, message };
  }
  const url = prediction.outputs[0]!;
  const target = join(request.outputDir, job.step, `${job.name}${extensionOf(url, MODELS[job.model].kind)}`);
  const started = Date.now();
  const { sha256, bytes } = await downloadFile(url, target, { cleanUp });
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
      wait_ms: waited,
      download_ms: Date.now() - started,
    });
  }
  return { kind: 'succeeded', creditsUsed: prediction.creditsUsed, file };
}

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
