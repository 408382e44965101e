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
import { type BatchResult, retryRead, type ServiceClient, ServiceError } from '../api/client/index.ts';
import type { SearchResult } from '../api/wire/index.ts';
import type { CreateItem, CreateOutcome, CreateRequest } from '../contract/activities.ts';
import type { PlannedJob } from '../plan/types.ts';
import { appendClaims, type Claim, readClaims } from './claims.ts';
import { heartbeating } from './heartbeating.ts';
import type { Manifest } from './manifest.ts';
import type { LoadedPlan } from './plan-store.ts';
import type { InputResolver } from './resolve-input.ts';
import { retryableFailure } from './service-failure.ts';

/** Characters of the prompt sent as the search query when reconciling. */
const SEARCH_PREFIX = 200;

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

/** One create of one job: the job key and its regeneration. Also the Idempotency-Key sent. */
function createKey(jobKey: string, regen: number): string {
  return `${jobKey}-r${regen}`;
}

/**
 * Set when an earlier attempt may have sent these creates: predictions made for the same input
 * since `since` (worker clock, ms) are looked for and adopted before anything is created.
 */
export interface Reconcile {
  readonly since: number;
}

export async function createPredictions(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
): Promise<CreateOutcome[]> {
  // Heartbeats for the whole attempt: a slow batch reply must not look like a dead worker, or a
  // second attempt would create while the first is still waiting for its answer.
  return heartbeating(undefined, ({ info }) =>
    createAll(
      deps,
      loaded,
      manifest,
      request,
      info.attempt > 1 ? { since: info.scheduledTimestampMs } : null,
    ),
  );
}

/** Creates the jobs of `request` (claims included); also the heir's create inside a finish. */
export async function createAll(
  deps: CreateDeps,
  { plan, indexOf }: LoadedPlan,
  manifest: Manifest,
  request: CreateRequest,
  reconcile: Reconcile | null,
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
    ready.push({ item, job, input: resolved.input, idempotencyKey: createKey(job.key, item.regen) });
  }

  const toCreate = reconcile
    ? await adoptMaybeCreated(deps.client, request, ready, outcomes, reconcile.since)
    : ready;
  // No cancellation signal on creates: a request abandoned after it was sent may still create a
  // prediction, which must then be claimed (and canceled upstream with the campaign).
  const created = await createBatch(deps.client, toCreate).catch(async (error) => {
    if (error instanceof PartialCreate)
      await appendClaims(request.outputDir, claimsOf(error.created, toCreate));
    throw error instanceof PartialCreate ? error.cause : error;
  });
  outcomes.push(...created);
  await appendClaims(request.outputDir, claimsOf(created, toCreate));
  return outcomes;
}

async function createOne(client: ServiceClient, entry: Ready): Promise<CreateOutcome> {
  try {
    const prediction = await client.predictions.create(entry.job.model, entry.input, {
      idempotencyKey: entry.idempotencyKey,
    });
    return { kind: 'created', i: entry.item.i, predictionId: prediction.id, at: Date.now() };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return finalOrThrow(entry.item.i, error);
  }
}

function claimsOf(outcomes: readonly CreateOutcome[], entries: readonly Ready[]): Claim[] {
  return outcomes.flatMap((outcome) => {
    if (outcome.kind !== 'created') return [];
    const entry = entries.find((r) => r.item.i === outcome.i)!;
    return [{ prediction_id: outcome.predictionId, key: entry.job.key, regen: entry.item.regen }];
  });
}

/**
 * One batch request for several jobs (one job: a single create). A refusal of the batch as a whole creates nothing: a 429
 * sends every item back to the workflow (which re-reads the limits and batches smaller); any
 * other final refusal (a batch larger than this service accepts, say) falls back to single creates,
 * so each job gets its own answer.
 */
async function createBatch(client: ServiceClient, entries: readonly Ready[]): Promise<CreateOutcome[]> {
  if (entries.length === 0) return [];
  if (entries.length === 1) return [await createOne(client, entries[0]!)];
  let batch: BatchResult;
  try {
    batch = await client.batches.create(
      entries.map((r) => ({ model: r.job.model, input: r.input, idempotencyKey: r.idempotencyKey })),
    );
  } catch (error) {
    if (!(error instanceof ServiceError) || (error.retryable && !error.rateLimited)) throw error;
    if (error.rateLimited) {
      return entries.map((r) => ({ kind: 'retry', i: r.item.i, afterMs: error.retryAfterMs ?? 1_000 }));
    }
    return createEach(client, entries);
  }
  const outcomes: CreateOutcome[] = [];
  let failure: ServiceError | undefined;
  for (const result of batch.items) {
    const { i } = entries[result.index]!.item;
    if (result.prediction)
      outcomes.push({ kind: 'created', i, predictionId: result.prediction.id, at: Date.now() });
    else if (result.error?.maybeCreated) failure ??= result.error;
    else outcomes.push(finalOrThrow(i, result.error ?? unexplained()));
  }
  // An item that may have been created is settled by the next attempt's reconciliation.
  if (failure) throw new PartialCreate(outcomes, failure);
  return outcomes;
}

function unexplained(): ServiceError {
  return new ServiceError({
    message: 'the service refused this prediction without saying why',
    status: null,
    type: 'api_error',
    code: 'UNKNOWN',
    retryable: false,
  });
}

/**
 * Single creates for every entry. One that fails in a way that may have created something does
 * not stop the others; the attempt then fails (so the next one reconciles) after the predictions
 * that were made are claimed.
 */
async function createEach(client: ServiceClient, entries: readonly Ready[]): Promise<CreateOutcome[]> {
  const outcomes: CreateOutcome[] = [];
  let failure: unknown;
  for (const entry of entries) {
    try {
      outcomes.push(await createOne(client, entry));
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw new PartialCreate(outcomes, failure);
  return outcomes;
}

/** Some creates of an attempt succeeded and one may have: claim the former, then retry. */
class PartialCreate extends Error {
  constructor(
    readonly created: readonly CreateOutcome[],
    override readonly cause: unknown,
  ) {
    super('some creates of this batch failed');
  }
}

/**
 * A 429 is surely not created: it goes back to the workflow, which pauses its pacing and re-reads
 * the limits. Other retryable errors make the activity retry; a final refusal is an outcome.
 */
function finalOrThrow(i: number, error: ServiceError): CreateOutcome {
  if (error.rateLimited) return { kind: 'retry', i, afterMs: error.retryAfterMs ?? 1_000 };
  if (error.retryable) throw retryableFailure(error);
  return rejected(i, error);
}

function rejected(i: number, error: ServiceError): CreateOutcome {
  return { kind: 'rejected', i, code: error.code, message: error.message };
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
  /**
   * Prediction id → the create that claimed it (job key and regeneration): another job's
   * prediction, or the failed one a regeneration replaces, is never adopted.
   */
  const claimed = new Map(
    (await readClaims(request.outputDir)).map((claim) => [
      claim.prediction_id,
      createKey(claim.key, claim.regen),
    ]),
  );
  const adopted: Claim[] = [];
  const rest: Ready[] = [];
  const createdAfter = new Date(since - 5_000).toISOString();
  for (const entry of ready) {
    const match = await findUnclaimed(client, entry, claimed, createdAfter);
    if (match) {
      claimed.set(match, entry.idempotencyKey);
      adopted.push({ prediction_id: match, key: entry.job.key, regen: entry.item.regen });
      outcomes.push({ kind: 'created', i: entry.item.i, predictionId: match, at: Date.now() });
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
  claimed: ReadonlyMap<string, string>,
  createdAfter: string,
): Promise<string | null> {
  // A prefix finds the candidates (services cap query length); the full input is compared below.
  const prompt = String(entry.input.prompt ?? '').slice(0, SEARCH_PREFIX);
  const results = await retryRead(async () => {
    const found: SearchResult[] = [];
    for await (const result of client.search(prompt, {
      type: 'predictions',
      model: entry.job.model,
      createdAfter,
    })) {
      found.push(result);
    }
    return found;
  });
  for (const { prediction } of results) {
    const owner = prediction ? claimed.get(String(prediction.id)) : undefined;
    if (!prediction || (owner !== undefined && owner !== entry.idempotencyKey)) continue;
    if (isDeepStrictEqual(prediction.input_parameters, entry.input)) return String(prediction.id);
  }
  return null;
}
