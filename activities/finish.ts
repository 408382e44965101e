/**
 * Finishes one prediction: waits for it, creates its heir (the next job, when the workflow named
 * one) the moment it ends, downloads its output into the output folder, and records the job in
 * the manifest. Safe to run again after a crash at any point: a job already in the manifest is
 * not downloaded twice, a half-downloaded file never replaces a good one, and a heir an earlier
 * attempt may have created is looked for before it is created again.
 */
import { join, relative } from 'node:path';
import { type MediaKind, MODELS } from '../api/catalogue/index.ts';
import { ServiceError } from '../api/client/index.ts';
import { formatUsd } from '../api/money.ts';
import type { CreateOutcome, FinishRequest, FinishResult } from '../contract/activities.ts';
import { awaitPrediction } from './await-prediction.ts';
import { type CreateDeps, createAll } from './create.ts';
import { downloadFile } from './download.ts';
import { heartbeating } from './heartbeating.ts';
import type { Manifest } from './manifest.ts';
import type { LoadedPlan } from './plan-store.ts';

/** What the work of one prediction yields; the activity adds the time it returns. */
export type JobResult = Omit<FinishResult, 'at'>;

export interface FinishDeps extends CreateDeps {
  /** Work under way in this worker, by prediction id (see finishPrediction). */
  readonly finishing: Map<string, Promise<JobResult>>;
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
): Promise<FinishResult> {
  return heartbeating({ predictionId: request.predictionId }, (context) => {
    let work = deps.finishing.get(request.predictionId);
    if (!work) {
      const again = request.resumed || context.info.attempt > 1;
      work = finishJob(deps, loaded, manifest, request, again).finally(() =>
        deps.finishing.delete(request.predictionId),
      );
      deps.finishing.set(request.predictionId, work);
    }
    // The shared work is not tied to one activity's cancellation: a canceled campaign cancels its
    // predictions upstream, and the wait then ends with their canceled state.
    return Promise.race([work, context.cancelled]).then((result) => ({ ...result, at: Date.now() }));
  });
}

/** `again`: an earlier attempt or run may have left a partial file or created the heir. */
async function finishJob(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
  again: boolean,
): Promise<JobResult> {
  const job = loaded.plan.jobs[request.i]!;
  const createHeir = async (): Promise<CreateOutcome | null> => {
    if (!request.heir) return null;
    // The heir can only have been created after this prediction was.
    const reconcile = again ? { since: request.startedAt } : null;
    const items = [request.heir];
    const [outcome] = await createAll(deps, loaded, manifest, { ...request, items }, reconcile);
    return outcome ?? null;
  };
  const done = await manifest.get(job.key);
  if (done) {
    const outcome = { kind: 'succeeded', creditsUsed: null, file: done.file } as const;
    return { outcome, heir: await createHeir(), waitedMs: null };
  }

  const prediction = await awaitPrediction(deps.client, request.predictionId);
  const waitedMs = Date.now() - request.startedAt;
  // Canceled means the campaign is: its heir is not created.
  if (prediction.status === 'canceled') return { outcome: { kind: 'canceled' }, heir: null, waitedMs };
  // The service's slot is free now: the heir takes it before this output is downloaded.
  const heir = await createHeir();
  if (prediction.status !== 'succeeded' || prediction.outputs.length === 0) {
    const message = prediction.error?.message ?? `prediction ${prediction.id} ended ${prediction.rawStatus}`;
    return { outcome: { kind: 'failed', creditsUsed: prediction.creditsUsed, message }, heir, waitedMs };
  }
  const url = prediction.outputs[0]!;
  const target = join(request.outputDir, job.step, `${job.name}${extensionOf(url, MODELS[job.model].kind)}`);
  const started = Date.now();
  let saved: Awaited<ReturnType<typeof downloadFile>>;
  try {
    saved = await downloadFile(url, target, { cleanUp: again });
  } catch (error) {
    if (!(error instanceof ServiceError) || error.retryable) throw error;
    // A link refused for good fails this job (paid: the service charged it), not its heir, which
    // exists now and must be waited for: failing the activity would lose its create outcome.
    const message = error.message;
    return { outcome: { kind: 'failed', creditsUsed: prediction.creditsUsed, message }, heir, waitedMs };
  }
  const { sha256, bytes } = saved;
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
      wait_ms: waitedMs,
      download_ms: Date.now() - started,
    });
  }
  return { outcome: { kind: 'succeeded', creditsUsed: prediction.creditsUsed, file }, heir, waitedMs };
}

/** The link's own extension, else what the model makes (the spec: MP4 for video, PNG for images). */
function extensionOf(url: string, kind: MediaKind): string {
  const match = /\.(png|mp4|jpe?g|webp|gif|mov|webm)(?:[?#]|$)/i.exec(url);
  if (match) return `.${match[1]!.toLowerCase()}`;
  return kind === 'video' ? '.mp4' : '.png';
}
