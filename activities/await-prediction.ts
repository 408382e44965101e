/**
 * Waits for a prediction to reach a terminal state: the SSE stream first (one request, pushed
 * updates), polling with backoff when the stream is unavailable or breaks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryRead, type ServiceClient } from '../api/client/index.ts';
import { type Prediction, TERMINAL_STATUSES } from '../api/wire/index.ts';

const POLL_START_MS = 500;
const POLL_MAX_MS = 5_000;

export async function awaitPrediction(client: ServiceClient, predictionId: string): Promise<Prediction> {
  try {
    for await (const prediction of client.predictions.stream(predictionId)) {
      if (TERMINAL_STATUSES.has(prediction.status)) return prediction;
    }
  } catch {
    // The stream broke or is not offered: polling below picks up from the current state.
  }
  let delay = POLL_START_MS;
  for (;;) {
    const prediction = await retryRead(() => client.predictions.get(predictionId));
    if (TERMINAL_STATUSES.has(prediction.status)) return prediction;
    await sleep(delay);
    delay = Math.min(POLL_MAX_MS, delay * 2);
  }
}
