/**
 * A create's second half: what a retried attempt may have made is adopted, the rest is sent, and
 * every prediction made is claimed before the attempt returns or retries.
 */
import type { CreateOutcome, CreateRequest } from '../../contract/activities.ts';
import { addClaims, type NewClaim } from '../../records/claims.ts';
import type { Manifest } from '../../records/manifest.ts';
import { type RefusalRecord, writeRefusals } from '../../records/refusals.ts';
import { claimOf, type Ready, sendCreates } from './batch.ts';
import type { CreateDeps } from './deps.ts';
import type { Prepared } from './prepare.ts';
import { adoptMaybeCreated } from './reconcile.ts';
import { whileSending } from './sending.ts';
import { remakeTaken } from './taken.ts';

/**
 * Set when an earlier attempt may have sent these creates: predictions made for the same input
 * since `since` (worker clock, ms) are looked for and adopted before anything is created.
 */
export interface Reconcile {
  readonly since: number;
}

/** A create's second half: reconciles a retried attempt's maybe-created jobs, sends the rest, claims them. */
export async function sendPrepared(
  deps: CreateDeps,
  manifest: Manifest,
  request: CreateRequest,
  prepared: Prepared,
  reconcile: Reconcile | null,
): Promise<CreateOutcome[]> {
  const outcomes = [...prepared.outcomes];
  const owners = deps.claims.ownersOf(manifest.store);
  let toCreate = prepared.ready;
  if (reconcile) {
    const adoption = await adoptMaybeCreated(
      deps.client,
      manifest.store,
      owners,
      request.campaign,
      toCreate,
      reconcile.since,
    );
    outcomes.push(...adoption.adopted);
    toCreate = adoption.rest;
  }
  // No cancellation signal on creates: a request abandoned after it was sent may still create a
  // prediction, which must then be claimed (and canceled upstream with the campaign).
  // In flight for reconciling twins (sending.ts) until what it made is claimed.
  const { sent, entries } = await whileSending(toCreate, async () => {
    const first = await sendCreates(deps.client, toCreate);
    const made = await remakeTaken(deps.client, owners, toCreate, first, reconcile !== null);
    await addClaims(manifest.store, request.campaign, claimsOf(made.sent.outcomes, made.entries));
    return made;
  });
  await writeRefusals(manifest.store, request.campaign, refusalsOf(sent.outcomes, entries));
  if (sent.unsettled !== null) throw sent.unsettled;
  outcomes.push(...sent.outcomes);
  return outcomes;
}

/** Prompts the content policy refused: recorded for the report (records/refusals.ts), nothing charged. */
function refusalsOf(outcomes: readonly CreateOutcome[], entries: readonly Ready[]): RefusalRecord[] {
  const at = new Date().toISOString();
  return outcomes.flatMap((outcome) => {
    if (outcome.kind !== 'rejected' || outcome.failure !== 'refused') return [];
    const entry = entries.find((r) => r.item.i === outcome.i);
    if (!entry) return [];
    const { code, message } = outcome;
    const { key, model } = entry.job;
    return [{ key, take: entry.item.regen, model, stage: 'prompt', code, message, credits_used: '0', at }];
  });
}

function claimsOf(outcomes: readonly CreateOutcome[], entries: readonly Ready[]): NewClaim[] {
  return outcomes.flatMap((outcome) => {
    const entry = outcome.kind === 'created' ? entries.find((r) => r.item.i === outcome.i) : undefined;
    return outcome.kind === 'created' && entry ? [claimOf(entry, outcome.predictionId)] : [];
  });
}
