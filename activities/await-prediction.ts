/**
 * Waits for a prediction to reach a terminal state: the SSE stream first (one request, pushed
 * updates), polling with backoff when the stream is unavailable or breaks. Heartbeats keep
 * flowing meanwhile, so a worker that dies is noticed within the heartbeat timeout and another
 * worker waits for the same prediction instead of creating a new one.
 */
import { Context, sleep } from '@temporalio/activity';
import type { ServiceClient } from '../api/client/index.ts';
import { type Prediction, TERMINAL_STATUSES } from '../api/wire/index.ts';
import { retryRead } from './retry-read.ts';

const POLL_START_MS = 500;
const POLL_MAX_MS = 5_000;

export async function awaitPrediction(client: ServiceClient, predictionId: string): Promise<Prediction> {
  const context = Context.current();
  const signal = context.cancellationSignal;
  try {
    for await (const prediction of client.predictions.stream(predictionId, { signal })) {
      if (TERMINAL_STATUSES.has(prediction.status)) return prediction;
    }
  } catch (error) {
    if (signal.aborted) throw error;
    // The stream broke or is not offered: polling below picks up from the current state.
  }
  let delay = POLL_START_MS;
  for (;;) {
    const prediction = await retryRead(() => client.predictions.get(predictionId, { signal }), signal);
    if (TERMINAL_STATUSES.has(prediction.status)) return prediction;
    await sleep(delay);
    delay = Math.min(POLL_MAX_MS, delay * 2);
  }
}
