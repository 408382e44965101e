/**
 * The heir's create inside a finish (docs/engine.md, "Heirs"): the job that takes this
 * prediction's slot the moment it ends, prepared while the prediction runs.
 */
import { retryRead } from '../../api/client/index.ts';
import type { CreateOutcome, FinishRequest } from '../../contract/activities.ts';
import type { Manifest } from '../../records/manifest.ts';
import type { LoadedPlan } from '../../records/plan-store.ts';
import type { CreateDeps } from '../create/deps.ts';
import { type Prepared, prepareCreates } from '../create/prepare.ts';
import { sendPrepared } from '../create/send.ts';

/**
 * The heir's create, reconciled when an earlier try or attempt may have made it. A passing fault
 * (a 503, a timeout) is tried again inside the activity (retryRead's few quick tries): failing the
 * activity for it would make every job of a finish batch wait for the retry, and with 40 heirs in
 * a batch and a few requests in a hundred failing almost every attempt met one, and the chain
 * crawled (docs/benchmarks.md, "cluster"). Each try after the first reconciles (adopts what an
 * unanswered one made), so nothing is paid twice; a service down for longer fails the activity,
 * which names the outage.
 */
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
  let tried = again;
  return retryRead(async () => {
    // The heir can only have been created after this prediction was.
    const reconcile = tried ? { since: request.startedAt } : null;
    tried = true;
    const [outcome] = await sendPrepared(deps, manifest, heirRequest(request), ready, reconcile);
    return outcome ?? null;
  });
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
