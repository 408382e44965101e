/**
 * Sends the creates of an attempt: one batch request when several jobs are ready, a single create
 * otherwise. Each job gets an outcome; a failure that may have created something is returned as
 * `unsettled` (not thrown), so the caller claims what was created before the attempt is retried.
 */
import { type BatchResult, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import type { CreateItem, CreateOutcome } from '../../contract/activities.ts';
import { effectOf } from '../../contract/failure-policy.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { NewClaim } from '../../records/claims.ts';
import { failureKindOf } from '../failure-kind.ts';

export interface Ready {
  readonly item: CreateItem;
  readonly job: PlannedJob;
  readonly input: Record<string, unknown>;
  readonly idempotencyKey: string;
  /** The activity creating it (attempt.ts), recorded in its claim. */
  readonly by: string;
}

/** The claim of a prediction made (or adopted) for `entry`. */
export function claimOf(entry: Ready, predictionId: string): NewClaim {
  return {
    prediction_id: predictionId,
    key: entry.job.key,
    regen: entry.item.regen,
    idempotency_key: entry.idempotencyKey,
    made_by: entry.by,
  };
}

export interface Sent {
  readonly outcomes: CreateOutcome[];
  /** Set when a create may have reached the service without an answer: the attempt must retry. */
  readonly unsettled: unknown;
  /**
   * Jobs (by `i`) answered with a prediction made before their request was sent: a service that
   * honours idempotency keys handed back what an earlier create under the key made (taken.ts).
   */
  readonly replayed: ReadonlySet<number>;
}

/** How far worker and service clocks may differ: a prediction older than this before sending is a replay. */
export const CLOCK_SKEW_MS = 5_000;

function isReplay(prediction: { readonly createdAt?: string | undefined }, sentAt: number): boolean {
  const created = prediction.createdAt === undefined ? Number.NaN : Date.parse(prediction.createdAt);
  return created < sentAt - CLOCK_SKEW_MS;
}

/**
 * A refusal of the batch as a whole creates nothing: a 429 sends every item back to the workflow
 * (which re-reads the limits and batches smaller); any other final refusal (a batch larger than
 * this service accepts, say) falls back to single creates, so each job gets its own answer.
 */
export async function sendCreates(client: ServiceClient, entries: readonly Ready[]): Promise<Sent> {
  if (entries.length === 0) return { outcomes: [], unsettled: null, replayed: new Set() };
  if (entries.length === 1) return createEach(client, entries);
  let batch: BatchResult;
  const sentAt = Date.now();
  try {
    batch = await client.batches.create(
      entries.map((r) => ({ model: r.job.model, input: r.input, idempotencyKey: r.idempotencyKey })),
    );
  } catch (error) {
    const replayed = new Set<number>();
    if (!(error instanceof ServiceError)) return { outcomes: [], unsettled: error, replayed };
    const effect = effectOf(failureKindOf(error)).kind;
    if (effect === 'retry_attempt') return { outcomes: [], unsettled: error, replayed };
    if (effect === 'requeue')
      return { outcomes: entries.map((r) => requeue(r.item.i, error)), unsettled: null, replayed };
    return createEach(client, entries);
  }
  const outcomes: CreateOutcome[] = [];
  const replayed = new Set<number>();
  let unsettled: ServiceError | null = null;
  for (const result of batch.items) {
    const { i } = entries[result.index]!.item;
    if (result.prediction) {
      outcomes.push({ kind: 'created', i, predictionId: result.prediction.id, at: Date.now() });
      if (isReplay(result.prediction, sentAt)) replayed.add(i);
    }
    // An item that may have been created is settled by the next attempt's reconciliation.
    else if (result.error?.maybeCreated) unsettled ??= result.error;
    else {
      const answer = answerOf(i, result.error ?? unexplained());
      if ('unsettled' in answer) unsettled ??= answer.unsettled;
      else outcomes.push(answer);
    }
  }
  return { outcomes, unsettled, replayed };
}

/**
 * Single creates, one after the other. One that fails in a way that may have created something
 * does not stop the others: the attempt is retried after the predictions that were made are claimed.
 */
async function createEach(client: ServiceClient, entries: readonly Ready[]): Promise<Sent> {
  const outcomes: CreateOutcome[] = [];
  const replayed = new Set<number>();
  let unsettled: unknown = null;
  for (const entry of entries) {
    try {
      const sentAt = Date.now();
      const prediction = await client.predictions.create(entry.job.model, entry.input, {
        idempotencyKey: entry.idempotencyKey,
      });
      outcomes.push({ kind: 'created', i: entry.item.i, predictionId: prediction.id, at: Date.now() });
      if (isReplay(prediction, sentAt)) replayed.add(entry.item.i);
    } catch (error) {
      const answer = error instanceof ServiceError ? answerOf(entry.item.i, error) : { unsettled: error };
      if ('unsettled' in answer) unsettled ??= answer.unsettled;
      else outcomes.push(answer);
    }
  }
  return { outcomes, unsettled, replayed };
}

/** What the failure policy makes of a refused create: an outcome, or an attempt to retry. */
function answerOf(i: number, error: ServiceError): CreateOutcome | { unsettled: ServiceError } {
  switch (effectOf(failureKindOf(error)).kind) {
    case 'requeue':
      return requeue(i, error);
    case 'retry_attempt':
      return { unsettled: error };
    default:
      return { kind: 'rejected', i, code: error.code, message: error.message, failure: failureKindOf(error) };
  }
}

/** A 429 is surely not created: the workflow pauses its pacing and re-reads the limits. */
function requeue(i: number, error: ServiceError): CreateOutcome {
  return { kind: 'retry', i, afterMs: error.retryAfterMs ?? 1_000 };
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
