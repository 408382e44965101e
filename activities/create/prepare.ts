/**
 * A create's first half, which asks only the store (and the service, of a claimed prediction):
 * which jobs are settled without sending (cached, skipped, refused, adopted) and which are ready
 * to send, each with its input resolved and its Idempotency-Key.
 */
import pLimit from 'p-limit';
import { ServiceError } from '../../api/client/index.ts';
import type { CreateItem, CreateOutcome, CreateRequest } from '../../contract/activities.ts';
import { effectOf } from '../../contract/failure-policy.ts';
import type { PlannedJob } from '../../plan/types.ts';
import { readDecision } from '../../records/decisions.ts';
import { readDerivative } from '../../records/derivatives.ts';
import type { Manifest, ManifestEntry } from '../../records/manifest.ts';
import { type RecordedOutput, recordedOutput } from '../../records/outputs.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import type { Store } from '../../store/index.ts';
import { reviewedDerivatives, reviewedDeriveSteps, underivedOf } from '../derive/reviewed.ts';
import { failureKindOf } from '../failure-kind.ts';
import type { InputResolver } from '../resolve-input.ts';
import { adoptClaimed } from './adopt-claimed.ts';
import type { Ready } from './batch.ts';
import type { CreateDeps } from './deps.ts';
import { createKey } from './keys.ts';

/**
 * A create's first half, which asks only the store (and the service, of a claimed prediction):
 * what is settled without sending (cached, skipped, refused, adopted) and the jobs to send. A
 * finish prepares its heir's while its own prediction runs (finish/index.ts).
 */
export interface Prepared {
  readonly outcomes: readonly CreateOutcome[];
  readonly ready: readonly Ready[];
}

/** Jobs looked up at once: each is a read of its record and of its claim (round trips in S3 mode). */
const LOOKUPS_AT_ONCE = 16;

export async function prepareCreates(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
  by: string,
): Promise<Prepared> {
  // A reviewed parent's output may be a new take another worker saved: read the manifest's latest
  // lines first (this worker's index only refreshes on a miss, and a retake is no miss).
  if (await hasReviewedParent(loaded, request)) await manifest.refresh();
  const claimed = deps.claims.of(manifest.store, request.campaign);
  const limit = pLimit(LOOKUPS_AT_ONCE);
  const each = await Promise.all(
    request.items.map((item) =>
      limit(async () => {
        const job = await prepareJob(deps, loaded, manifest, request, item, by);
        return 'item' in job ? adoptClaimed(deps.client, manifest.store, claimed, job) : job;
      }),
    ),
  );
  return {
    outcomes: each.filter((job): job is CreateOutcome => !('item' in job)),
    ready: each.filter((job): job is Ready => 'item' in job),
  };
}

/**
 * A job recorded with its file in place is cached, a job whose parent has no output is skipped;
 * else it is ready. A recorded job whose file is gone (and that `run` could not fetch again) is a
 * new generation: its key names the prediction it replaces, so the service does not hand back the
 * one whose output is lost.
 */
async function prepareJob(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
  item: CreateItem,
  by: string,
): Promise<CreateOutcome | Ready> {
  const job = onModel(await loaded.job(item.i), item);
  const recorded = await recordedOutput(manifest, job.key);
  const retake = isRetake(item, recorded);
  if (recorded.state === 'done' && !retake) {
    return cachedOutcome(loaded, request, item.i, job, recorded.entry, manifest.store);
  }
  const parentName = job.parent ? ((await loaded.jobByKey(job.parent))?.name ?? null) : null;
  const resolved = await resolveOrRefuse(deps, job, parentName, manifest);
  if (!resolved.ok) {
    return resolved.kind === 'skipped'
      ? { kind: 'skipped', i: item.i, reason: resolved.reason }
      : {
          kind: 'rejected',
          i: item.i,
          code: resolved.code,
          message: resolved.reason,
          failure: resolved.failure,
        };
  }
  const replaces =
    recorded.state !== 'none' && (recorded.state === 'lost' || retake) ? recorded.entry.prediction_id : null;
  const idempotencyKey = createKey({
    campaign: request.campaign,
    jobKey: job.key,
    regen: item.regen,
    replaces,
  });
  // A reviewer's new prompt replaces the plan's (review.edit_prompt, checked by the workflow).
  const input = item.prompt === undefined ? resolved.input : { ...resolved.input, prompt: item.prompt };
  return { item, job, input, idempotencyKey, by };
}

/**
 * The job as this take makes it: on the step's fallback model after a content refusal
 * (`on_refusal: { fallback }`; the plan checked that the input suits it), else as planned. The key
 * stays the plan's: the job is the same, only the model that made it differs, as its record says.
 */
export function onModel(job: PlannedJob, item: { readonly model?: PlannedJob['model'] }): PlannedJob {
  return item.model === undefined || item.model === job.model ? job : { ...job, model: item.model };
}

/**
 * A reviewer's new take whose output is not saved yet: the recorded one is an earlier take, which
 * it replaces. (Once saved, the take is cached like any job: a retried create pays nothing more.)
 */
export function isRetake(item: CreateItem, recorded: RecordedOutput): boolean {
  return item.retake === true && recorded.state !== 'none' && recorded.entry.regenerations < item.regen;
}

/** Whether a job of the batch has a parent in a reviewed step. */
async function hasReviewedParent(loaded: LoadedPlan, request: CreateRequest): Promise<boolean> {
  const reviewed = new Set(loaded.head.steps.filter((step) => step.review).map((step) => step.id));
  if (reviewed.size === 0) return false;
  for (const { i } of request.items) {
    const { parent } = await loaded.job(i);
    const parentJob = parent === null ? undefined : await loaded.jobByKey(parent);
    if (parentJob && reviewed.has(parentJob.step)) return true;
  }
  return false;
}

/** A job found in the manifest; for a reviewed step, with its take and the decision recorded for it. */
async function cachedOutcome(
  loaded: LoadedPlan,
  request: CreateRequest,
  i: number,
  job: PlannedJob,
  entry: ManifestEntry,
  store: Store,
): Promise<CreateOutcome> {
  const take = entry.regenerations;
  const { derived: keys } = reviewedDerivatives(job, reviewedDeriveSteps(loaded.head));
  const read = (key: string) => readDecision(request.outputDir, request.campaign, key, take, store);
  // Reviewed derive steps only: what was decided on each derivative of this take.
  // And which could not be made from this take (the run's preflight derived the recorded outputs).
  const derived = keys
    ? {
        derived: await Promise.all(keys.map(async (key) => (await read(key))?.action ?? null)),
        ...underivedOf(keys, await Promise.all(keys.map((key) => readDerivative(store, key))), entry),
      }
    : {};
  if (!loaded.head.steps.find((step) => step.id === job.step)?.review)
    return keys ? { kind: 'cached', i, take, ...derived } : { kind: 'cached', i };
  const decided = await read(job.key);
  if (!decided) return { kind: 'cached', i, take, ...derived };
  const prompt =
    decided.action === 'regenerate' && decided.prompt !== undefined ? { prompt: decided.prompt } : {};
  return { kind: 'cached', i, take, verdict: { action: decided.action, ...prompt }, ...derived };
}

/**
 * The job's input, ready to send. A local file the service refuses for good (too large, a type
 * it does not take) is that job's failure, not its batch's: the others are created.
 */
async function resolveOrRefuse(
  deps: CreateDeps,
  job: PlannedJob,
  parentName: string | null,
  manifest: Manifest,
): ReturnType<InputResolver['resolve']> {
  try {
    return await deps.resolver.resolve(job, parentName, manifest);
  } catch (error) {
    if (!(error instanceof ServiceError) || effectOf(failureKindOf(error)).kind === 'retry_attempt')
      throw error;
    return {
      ok: false,
      kind: 'rejected',
      code: error.code,
      reason: error.message,
      failure: failureKindOf(error),
    };
  }
}
