/**
 * A step's `timeout:` held by the finish: the prediction is waited for until `startedAt +
 * timeoutMs` (worker clock), then canceled upstream (service-spec.md 4.1's cancel endpoint), so
 * the service stops working, and refunds it, rather than the job waiting for ever. The wait goes
 * on until the service says how it ended: a prediction that succeeded in the meantime (the cancel
 * answered NOT_CANCELABLE) is kept, not thrown away.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryRead, type ServiceClient } from '../../api/client/index.ts';
import type { Prediction } from '../../api/wire/index.ts';
import { awaitPrediction } from '../await-prediction.ts';

export interface Awaited {
  readonly prediction: Prediction;
  /** The deadline passed and mediaflow canceled the prediction (so `canceled` is not the campaign's). */
  readonly timedOut: boolean;
}

export async function awaitWithin(
  client: ServiceClient,
  predictionId: string,
  deadline: { readonly startedAt: number; readonly timeoutMs?: number | undefined },
): Promise<Awaited> {
  const ending = awaitPrediction(client, predictionId);
  if (deadline.timeoutMs === undefined) return { prediction: await ending, timedOut: false };
  const stop = new AbortController();
  const left = Math.max(0, deadline.startedAt + deadline.timeoutMs - Date.now());
  const late = sleep(left, 'late' as const, { signal: stop.signal }).catch(() => 'ended' as const);
  const first = await Promise.race([ending.then((prediction) => ({ prediction })), late]);
  stop.abort();
  if (typeof first === 'object') return { prediction: first.prediction, timedOut: false };
  // Canceling twice is harmless, so a passing fault is tried again; a refusal (it ended meanwhile,
  // NOT_CANCELABLE) is the answer too: the wait below then reads how it ended.
  await retryRead(() => client.predictions.cancel(predictionId)).catch(() => undefined);
  const prediction = await ending;
  return { prediction, timedOut: prediction.status === 'canceled' };
}
