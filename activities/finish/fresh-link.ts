/**
 * Saves a prediction's output when its link may have expired (Replicate deletes API outputs after
 * an hour, Runway's links last a day or two): a link answered 404, 410 or 403 is asked for again
 * (GET the prediction, whose record carries fresh links), and tried once more. Only when the
 * service no longer has an output does the job end `output_expired`, which makes it again within
 * its step's retries and the budget (contract/failure-policy.ts), saying so.
 */
import { DownloadRefused, retryRead, type ServiceClient, ServiceError } from '../../api/client/index.ts';
import type { Prediction } from '../../api/wire/index.ts';
import type { FinishRequest } from '../../contract/activities.ts';
import type { PlannedJob } from '../../plan/types.ts';
import type { Manifest } from '../../records/manifest.ts';
import { type Download, type SaveContext, saveOutput } from './save-output.ts';

/** What a save needs: the service, to ask for the prediction again, and the download. */
export interface LinkDeps {
  readonly client: ServiceClient;
  readonly download: Download;
}

export interface Saved {
  readonly file: string;
  /** The first link had expired and a fresh one was fetched. */
  readonly refreshed: boolean;
}

export async function saveWithFreshLink(
  deps: LinkDeps,
  manifest: Manifest,
  job: PlannedJob,
  prediction: Prediction,
  request: FinishRequest,
  context: SaveContext,
): Promise<Saved> {
  try {
    return {
      file: await saveOutput(deps.download, manifest, job, prediction, request, context),
      refreshed: false,
    };
  } catch (error) {
    if (!linkExpired(error)) throw error;
    const fresh = await predictionAgain(deps, prediction.id);
    if (fresh === null) throw outputExpired(prediction.id, error);
    try {
      return {
        file: await saveOutput(deps.download, manifest, job, fresh, request, context),
        refreshed: true,
      };
    } catch (again) {
      throw linkExpired(again) ? outputExpired(prediction.id, again) : again;
    }
  }
}

/** 404 and 410 (DownloadRefused 'gone'), or 403 (a signed link past its time), on an output link. */
export function linkExpired(error: unknown): error is ServiceError {
  if (error instanceof DownloadRefused) return error.reason === 'gone';
  return error instanceof ServiceError && error.type === 'download_error' && error.status === 403;
}

/** The prediction as the service has it now, or null when it has no output to fetch any more. */
async function predictionAgain(deps: LinkDeps, id: string): Promise<Prediction | null> {
  try {
    const fresh = await retryRead(() => deps.client.predictions.get(id));
    return fresh.status === 'succeeded' && fresh.outputs.length > 0 ? fresh : null;
  } catch (error) {
    if (error instanceof ServiceError && (error.status === 404 || error.status === 410)) return null;
    throw error;
  }
}

function outputExpired(id: string, cause: ServiceError): ServiceError {
  return new ServiceError({
    message: `the output of prediction ${id} expired at the service (${cause.message}; asked again, no output is left): made again`,
    status: null,
    type: 'download_error',
    code: 'OUTPUT_EXPIRED',
    retryable: false,
  });
}
