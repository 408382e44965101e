/**
 * Creates predictions for jobs the workflow picked: one batch request when several are ready,
 * a single create otherwise. Never pays twice (decision 3):
 *  - every create carries an Idempotency-Key derived from the job key and its regeneration;
 *  - a retried attempt may follow a request that reached the service ("maybe created": a timeout,
 *    a reset, a 5xx, or a worker killed mid-call), so it first looks for a prediction the service
 *    made for this exact input since the first attempt, not claimed by another job, and adopts it;
 *  - a failure the service calls final becomes a `rejected` outcome, not an endless retry.
 */
import { isDeepStrictEqual } from 'node:util';
import { Context } from '@temporalio/activity';
import type { ServiceClient, ServiceError } from '../api/client/index.ts';
import type { PlannedJob } from '../plan/types.ts';
import type { CreateItem, CreateOutcome, CreateRequest } from '../workflows/types.ts';
import { appendClaims, type Claim, readClaims } from './claims.ts';
import type { Manifest } from './manifest.ts';
import type { LoadedPlan } from './plan-store.ts';
import type { InputResolver } from './resolve-input.ts';
import { retryableFailure } from './service-failure.ts';

interface Ready {
  readonly item: CreateItem;
  readonly job: PlannedJob;
  readonly input: Record<string, unknown>;
  readonly idempotencyKey: string;
}

export interface CreateDeps {
  readonly client: ServiceClient;
  readonly resolver: InputResolver;
}

export function idempotencyKeyOf(job: PlannedJob, regen: number): string {
  return `${job.key}-r${regen}`;
}

export async function createPredictions(
  deps: CreateDeps,
  { plan, indexOf }: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = [];
  const ready: Ready[] = [];
  for (const item of request.items) {
    const job = plan.jobs[item.i]!;
    if (await manifest.get(job.key)) {
      outcomes.push({ kind: 'cached', i: item.i });
      continue;
    }
    const parentName = job.parent ? (plan.jobs[indexOf(job.parent)]?.name ?? null) : null;
    const resolved = await deps.resolver.resolve(job, parentName, manifest);
    if (!resolved.ok) {
      outcomes.push({ kind: 'skipped', i: item.i, reason: resolved.reason });
      continue;
    }
    ready.push({ item, job, input: resolved.input, idempotencyKey: idempotencyKeyOf(job, item.regen) });
  }

  const info = Context.current().info;
  const toCreate =
    info.attempt > 1
      ? await adoptMaybeCreated(deps.client, request, ready, outcomes, info.scheduledTimestampMs)
      : ready;
  const claims: Claim[] = [];
  if (toCreate.length === 1) {
    const [one] = toCreate as [Ready];
    try {
      const prediction = await deps.client.predictions.create(one.job.model, one.input, {
        idempotencyKey: one.idempotencyKey,
        signal: Context.current().cancellationSignal,
      });
      outcomes.push({ kind: 'created', i: one.item.i, predictionId: prediction.id });
      claims.push({ prediction_id: prediction.id, key: one.job.key, regen: one.item.regen });
    } catch (error) {
      outcomes.push(finalOrThrow(one.item.i, error as ServiceError));
    }
  } else if (toCreate.length > 1) {
    const batch = await deps.client.batches
      .create(toCreate.map((r) => ({ model: r.job.model, input: r.input, idempotencyKey: r.idempotencyKey })))
      .catch((error: ServiceError) => {
        throw retryableFailure(error);
      });
    for (const result of batch.items) {
      const entry = toCreate[result.index]!;
      if (result.prediction) {
        outcomes.push({ kind: 'created', i: entry.item.i, predictionId: result.prediction.id });
        claims.push({ prediction_id: result.prediction.id, key: entry.job.key, regen: entry.item.regen });
      } else if (result.error?.retryable) {
        outcomes.push({ kind: 'retry', i: entry.item.i, afterMs: result.error.retryAfterMs ?? 1_000 });
      } else {
        outcomes.push(rejected(entry.item.i, result.error));
      }
    }
  }
  await appendClaims(request.outputDir, claims);
  return outcomes;
}

/** A final refusal is an outcome; anything retryable makes the activity retry (with Retry-After). */
function finalOrThrow(i: number, error: ServiceError): CreateOutcome {
  if (error.retryable) throw retryableFailure(error);
  return rejected(i, error);
}

function rejected(i: number, error: ServiceError | undefined): CreateOutcome {
  return {
    kind: 'rejected',
    i,
    code: error?.code ?? 'UNKNOWN',
    message: error?.message ?? 'the service refused this prediction without saying why',
  };
}

/**
 * Looks for predictions an earlier attempt may have created: same model and input, created since
 * the activity was first scheduled, and not claimed by another job. Adopted ones are claimed and
 * reported as created; the rest are created normally (with the same idempotency keys).
 */
async function adoptMaybeCreated(
  client: ServiceClient,
  request: CreateRequest,
  ready: readonly Ready[],
  outcomes: CreateOutcome[],
  since: number,
): Promise<Ready[]> {
  const claimed = new Set((await readClaims(request.outputDir)).map((claim) => claim.prediction_id));
  const adopted: Claim[] = [];
  const rest: Ready[] = [];
  const createdAfter = new Date(since - 5_000).toISOString();
  for (const entry of ready) {
    const match = await findUnclaimed(client, entry, claimed, createdAfter);
    if (match) {
      claimed.add(match);
      adopted.push({ prediction_id: match, key: entry.job.key, regen: entry.item.regen });
      outcomes.push({ kind: 'created', i: entry.item.i, predictionId: match });
    } else {
      rest.push(entry);
    }
  }
  await appendClaims(request.outputDir, adopted);
  return rest;
}

async function findUnclaimed(
  client: ServiceClient,
  entry: Ready,
  claimed: ReadonlySet<string>,
  createdAfter: string,
): Promise<string | null> {
  const prompt = String(entry.input.prompt ?? '');
  for await (const result of client.search(prompt, {
    type: 'predictions',
    model: entry.job.model,
    createdAfter,
  })) {
    const record = result.prediction;
    if (!record || claimed.has(String(record.id))) continue;
    if (isDeepStrictEqual(record.input_parameters, entry.input)) return String(record.id);
  }
  return null;
}
