/**
 * The two halves of finishing a job, as separate activities so the workflow frees the
 * prediction's slot the moment it ends upstream: waiting for the prediction, then fetching its
 * file into the output folder and recording the job in the manifest. Both are safe to run again
 * after a crash at any point: a job already in the manifest is not fetched twice, and a
 * half-downloaded file never replaces a good one.
 */
import { join, relative } from 'node:path';
import { Context } from '@temporalio/activity';
import { type MediaKind, MODELS } from '../api/catalogue/index.ts';
import type { ServiceClient } from '../api/client/index.ts';
import { formatUsd } from '../api/money.ts';
import type { AwaitRequest, DownloadRequest, Settled } from '../workflows/types.ts';
import { awaitPrediction } from './await-prediction.ts';
import { downloadFile } from './download.ts';
import type { Manifest } from './manifest.ts';
import type { LoadedPlan } from './plan-store.ts';

export async function settle(
  client: ServiceClient,
  { plan }: LoadedPlan,
  manifest: Manifest,
  request: AwaitRequest,
): Promise<Settled> {
  const job = plan.jobs[request.i]!;
  const done = await manifest.get(job.key);
  if (done)
    return {
      kind: 'succeeded',
      outputUrl: done.output_url,
      creditsUsed: null,
      createdAt: null,
      recorded: true,
    };
  const prediction = await awaitPrediction(client, request.predictionId);
  if (prediction.status === 'canceled') return { kind: 'canceled' };
  if (prediction.status !== 'succeeded' || prediction.outputs.length === 0) {
    const message = prediction.error?.message ?? `prediction ${prediction.id} ended ${prediction.rawStatus}`;
    return { kind: 'failed', creditsUsed: prediction.creditsUsed, message };
  }
  return {
    kind: 'succeeded',
    outputUrl: prediction.outputs[0]!,
    creditsUsed: prediction.creditsUsed,
    createdAt: prediction.createdAt ?? null,
    recorded: false,
  };
}

export async function fetchOutput(
  { plan }: LoadedPlan,
  manifest: Manifest,
  request: DownloadRequest,
): Promise<{ file: string }> {
  const job = plan.jobs[request.i]!;
  const done = await manifest.get(job.key);
  if (done) return { file: done.file };
  const url = request.outputUrl;
  const target = join(request.outputDir, job.step, `${job.name}${extensionOf(url, MODELS[job.model].kind)}`);
  const started = Date.now();
  const cleanUp = request.resumed || Context.current().info.attempt > 1;
  const { sha256, bytes } = await downloadFile(url, target, { cleanUp });
  const file = relative(request.outputDir, target);
  // Another worker may have recorded this job meanwhile (a rare hand-over race): one line per job.
  if (!(await manifest.get(job.key))) {
    manifest.append({
      key: job.key,
      step: job.step,
      name: job.name,
      model: job.model,
      input: job.input as Record<string, unknown>,
      prediction_id: request.predictionId,
      credits_used: request.creditsUsed === null ? null : formatUsd(request.creditsUsed),
      file,
      sha256,
      bytes,
      output_url: url,
      regenerations: request.regen,
      created_at: request.createdAt ?? new Date(request.submittedAt).toISOString(),
      finished_at: new Date().toISOString(),
      wait_ms: request.settledAt - request.submittedAt,
      download_ms: Date.now() - started,
    });
  }
  return { file };
}

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
