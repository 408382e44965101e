/**
 * The heir's create inside a finish (docs/engine.md, "Heirs"): the job that takes this
 * prediction's slot the moment it ends, prepared while the prediction runs.
 */
import { setTimeout } from 'node:timers/promises';
import { ServiceError } from '../../api/client/index.ts';
import type { CreateOutcome, FinishRequest } from '../../contract/activities.ts';
import type { Manifest } from '../../records/manifest.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import { type CreateDeps, type Prepared, prepareCreates, sendPrepared } from '../create/index.ts';

/**
 * Tries of one heir's create inside the activity, 0.5, 1 and 2 s apart (or as long as the service
 * asks). A create the service answered with a passing fault (a 503, a timeout) may have been made
 * or not; failing the activity for it would make every job of a finish batch wait for the retry.
 * With 40 heirs in a batch and 5 % of requests failing, almost every attempt met one, and the
 * `cluster` drill's chain crawled at a batch per 60–80 s. Each try after the first reconciles
 * (adopts what an unanswered one made), so nothing is paid twice; a service down for longer than
 * the tries fails the activity, which names the outage as before.
 */
const HEIR_TRIES = 4;
const FIRST_WAIT_MS = 500;

/** The heir's create, reconciled when an earlier try or attempt may have made it. */
export async function createHeir(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
  /** Whether an earlier attempt or run may have created it; the activity (create/attempt.ts). */
  { again, by }: { readonly again: boolean; readonly by: string },
  prepared?: Prepared,
): Promise<CreateOutcome | null> {
  if (!request.heir) return null;
  const ready = prepared ?? (await prepareHeir(deps, loaded, manifest, request, by));
  for (let tries = 1; ; tries++) {
    // The heir can only have been created after this prediction was.
    const reconcile = again || tries > 1 ? { since: request.startedAt } : null;
    try {
      const [outcome] = await sendPrepared(deps, manifest, heirRequest(request), ready, reconcile);
      return outcome ?? null;
    } catch (error) {
      if (tries >= HEIR_TRIES || !(error instanceof ServiceError) || !error.retryable) throw error;
      await setTimeout(error.retryAfterMs ?? FIRST_WAIT_MS * 2 ** (tries - 1));
    }
  }
}

export function prepareHeir(
  deps: CreateDeps,
  loaded: LoadedPlan,
  manifest: Manifest,
  request: FinishRequest,
  by: string,
): Promise<Prepared> {
  return prepareCreates(deps, loaded, manifest, heirRequest(request), by);
}

const heirRequest = (request: FinishRequest) => ({ ...request, items: request.heir ? [request.heir] : [] });
