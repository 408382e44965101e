/**
 * Finishes one prediction of a batch (batch.ts, the activity): waits for it, creates its heir (the
 * next job, when the workflow named one) the moment it ends, then saves its output. Safe to run
 * again after a crash at any point: a job already in the manifest is not downloaded twice, a
 * half-downloaded file never replaces a good one, and an heir an earlier attempt may have created
 * is looked for before it is created.
 */
import { ServiceError } from '../../api/client/index.ts';
import { formatUsd } from '../../api/money.ts';
import { isContentRefusal } from '../../api/wire/index.ts';
import type { FinishOutcome, FinishRequest, FinishResult } from '../../contract/activities.ts';
import type { FailureKind } from '../../contract/failure-policy.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { Manifest, ManifestEntry } from '../../records/manifest.ts';
import { recordedOutput } from '../../records/outputs.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import { writeRefusals } from '../../records/refusals.ts';
import { writeUnsaved } from '../../records/unsaved.ts';
import type { CreateDeps } from '../create/deps.ts';
import { isRetake, onModel } from '../create/prepare.ts';
import type { DeriveDeps } from '../derive/deps.ts';
import { makeDerivatives } from '../derive/make-derivatives.ts';
import { reviewedDerivatives, reviewedDeriveSteps, underivedOf } from '../derive/reviewed.ts';
import { failureKindOf } from '../failure-kind.ts';
import { awaitWithin } from './deadline.ts';
import { saveWithFreshLink } from './fresh-link.ts';
import { createHeir, prepareHeir } from './heir.ts';
import type { Download } from './save-output.ts';
import type { SharedWork } from './shared-work.ts';

/** What the work of one prediction yields; the activity adds the time it returns. */
export type JobResult = Omit<FinishResult, 'at'>;

export interface FinishDeps extends CreateDeps {
  /** Work under way in this worker, by prediction id. */
  readonly finishing: SharedWork<JobResult>;
  readonly download: Download;
  /** Makes the derivatives of each saved output (activities/derive/). */
  readonly derive: DeriveDeps;
}

/** Which activity finishes, and whether an earlier attempt or run may have left a partial file or created the heir. */
export interface FinishAttempt {
  readonly again: boolean;
  /**
   * A job found recorded gets its manifest line back if it lacks one, even on a first attempt: a
   * batch's item reported pending goes on in its worker, and the workflow's next batch for it is
   * a new activity (attempt 1) that may run in another worker after that one died between
   * recording the job and appending its line (found by the `field` drill: a job counted
   * succeeded, paid, with no line in manifest.jsonl).
   */
  readonly restore?: boolean;
  /** The activity (create/attempt.ts), which creates the heir. */
  readonly by: string;
}

export async function finishJob(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
  { again, by, restore = false }: FinishAttempt,
): Promise<JobResult> {
  const job = onModel(await loaded.job(request.i), request);
  // The heir's lookups (its record, its claim) are made while this prediction runs, so the moment
  // it ends only the create itself stands between the service's free slot and the next job. One
  // that failed is made again then, and fails the attempt if it fails again.
  const early = request.heir ? prepareHeir(deps, loaded, manifest, request, by).catch(() => null) : null;
  const heir = async () =>
    createHeir(deps, loaded, manifest, request, { again, by }, (await early) ?? undefined);
  const recorded = await recordedOutput(manifest, job.key);
  const retake = isRetake(request, recorded);
  if (recorded.state === 'done' && !retake) {
    // An attempt killed between recording the job and listing it in manifest.jsonl: list it now.
    if (again || restore) await manifest.restoreLine(job.key);
    // An attempt killed before its derivatives were all made: what stands is kept.
    const underived = await deriveFrom(deps, loaded, manifest, job, recorded.entry, request);
    // Null: the price committed is counted, unless an earlier run paid for it (paidBefore).
    const outcome = {
      kind: 'succeeded',
      creditsUsed: request.paidBefore ? 0 : null,
      file: recorded.entry.file,
      ...underived,
    } as const;
    return { outcome, heir: await heir(), waitedMs: null };
  }
  // A recorded job whose file was lost is being made again: its new record replaces the old one.
  // So does a reviewer's new take of a recorded job.
  const lost =
    recorded.state !== 'none' && (recorded.state === 'lost' || retake) ? recorded.entry.prediction_id : null;

  const { prediction, timedOut } = await awaitWithin(deps.client, request.predictionId, request);
  const waitedMs = Date.now() - request.startedAt;
  // Canceled, unless by the step's deadline, means the campaign is: its heir is not created.
  if (prediction.status === 'canceled' && !timedOut)
    return { outcome: { kind: 'canceled' }, heir: null, waitedMs };
  // The service's slot is free now: the heir takes it before this output is downloaded.
  const heirOutcome = await heir();
  // What this finish adds to the spend: nothing for a prediction an earlier run paid for, whether
  // its output is saved this time or its download gives up again (records/unsaved.ts).
  const charged = request.paidBefore ? 0 : prediction.creditsUsed;
  const failed = (message: string, failure?: FailureKind): JobResult => ({
    outcome: {
      kind: 'failed',
      creditsUsed: charged,
      message,
      ...(failure === undefined ? {} : { failure }),
    },
    heir: heirOutcome,
    waitedMs,
  });
  if (timedOut) {
    const seconds = Math.round((request.timeoutMs ?? 0) / 1000);
    return failed(
      `prediction ${prediction.id} ran past the step's timeout of ${seconds}s and was canceled`,
      'timed_out',
    );
  }
  if (prediction.status !== 'succeeded' || prediction.outputs.length === 0) {
    const message = prediction.error?.message ?? `prediction ${prediction.id} ended ${prediction.rawStatus}`;
    if (!prediction.error || !isContentRefusal(prediction.error)) return failed(message);
    // An output the content policy flagged: the step's on_refusal decides, never a blind retry.
    await writeRefusals(manifest.store, request.campaign, [
      {
        key: job.key,
        take: request.regen,
        model: job.model,
        stage: 'output',
        code: prediction.error.code ?? 'UNKNOWN',
        message,
        credits_used: formatUsd(prediction.creditsUsed ?? 0),
        prediction_id: prediction.id,
        at: new Date().toISOString(),
      },
    ]);
    return failed(message, 'refused');
  }
  let outcome: FinishOutcome;
  try {
    const replaces = lost === prediction.id ? null : lost;
    const saved = await saveWithFreshLink(deps, manifest, job, prediction, request, {
      waitedMs,
      replaces,
      head: loaded.head,
    });
    const refreshed = saved.refreshed ? { refreshed: true as const } : {};
    const entry = (job.derivatives ?? []).length > 0 ? await manifest.get(job.key) : undefined;
    const underived = entry ? await deriveFrom(deps, loaded, manifest, job, entry, request) : {};
    outcome = { kind: 'succeeded', creditsUsed: charged, file: saved.file, ...refreshed, ...underived };
  } catch (error) {
    if (!(error instanceof ServiceError) || error.retryable) throw error;
    // A download that failed for good fails this job (paid: the service charged it), not its heir,
    // which exists now and must be waited for: failing the activity would lose its create outcome.
    // Its kind says what follows: a short body fails it, an expired output makes it again.
    const kind = failureKindOf(error);
    const failure = NAMED.has(kind) ? kind : undefined;
    // Recorded before it is counted: a full disk refusing the record stops the campaign with the
    // job kept, uncounted, for the next run to fetch and pay (records/unsaved.ts).
    await writeUnsaved(manifest.store, request.campaign, {
      key: job.key,
      take: request.regen,
      prediction_id: prediction.id,
      credits_used: formatUsd(prediction.creditsUsed ?? 0),
      failure: failure ?? 'prediction_failed',
      message: error.message,
      at: new Date().toISOString(),
    });
    return failed(error.message, failure);
  }
  return { outcome, heir: heirOutcome, waitedMs };
}

/**
 * The derivatives of the job's saved output (a derive step's crops and cuts), made here so a file
 * a campaign delivers is complete when its job is counted. One that cannot be made is recorded
 * failed with its reason (records/derivatives.ts); the job, paid and saved, still succeeded, and
 * the reviewed ones among them are named so the campaign asks nothing about them.
 */
async function deriveFrom(
  deps: FinishDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  job: PlannedJob,
  entry: ManifestEntry,
  request: FinishRequest,
): Promise<Pick<Extract<FinishOutcome, { kind: 'succeeded' }>, 'underived'>> {
  if ((job.derivatives ?? []).length === 0) return {};
  const made = await makeDerivatives(deps.derive, manifest.store, job, entry, {
    campaign: request.campaign,
    planDigest: request.plan.digest,
  });
  const { derived } = reviewedDerivatives(job, reviewedDeriveSteps(loaded.head));
  return underivedOf(
    derived,
    made.map(({ record }) => record),
    entry,
  );
}

/** Download failures with an outcome of their own; any other final refusal is a failed prediction's. */
const NAMED = new Set<FailureKind>(['download_failed', 'download_stalled', 'output_expired']);
