/**
 * `GET /v1/predictions/:id/stream` as an async iterator of Predictions (format in api/wire/events.ts:
 * Server-Sent Events, `status` events carrying the record, then `done`). The iterator ends right
 * after a terminal status. A stream that stops before one is a retryable ServiceError, so callers
 * fall back to polling; events and comments it does not know are skipped.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { STREAM_EVENTS } from '../wire/events.ts';
import { type Prediction, parsePrediction, TERMINAL_STATUSES } from '../wire/prediction.ts';
import { type CallContext, errorFromTransport, invalidResponse, ServiceError } from './errors.ts';
import { redactDeep } from './redact.ts';
import type { OpenResponse } from './transport.ts';

/** Splits a byte stream into SSE messages, whatever the chunk boundaries. */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* pending.splice(0);
  }
  parser.feed(decoder.decode());
  yield* pending.splice(0);
}

export async function* predictionEvents(response: OpenResponse): AsyncGenerator<Prediction> {
  const { body, call, signal } = response;
  try {
    for await (const message of readGuarded(sseMessages(body), call, signal)) {
      if (message.event === STREAM_EVENTS.done) break;
      if (message.event !== STREAM_EVENTS.status) continue;
      const prediction = parseStatus(message.data, call);
      yield prediction;
      if (TERMINAL_STATUSES.has(prediction.status)) return;
    }
  } finally {
    // Ends the HTTP exchange when the caller stops early or the terminal status arrived.
    body.destroy();
  }
  throw new ServiceError({
    message: `${call.endpoint}: the stream ended before a terminal status; poll the prediction instead`,
    status: null,
    type: 'network_error',
    code: 'STREAM_ENDED_EARLY',
    retryable: true,
    endpoint: call.endpoint,
  });
}

/** Socket resets and idle timeouts while reading the body become retryable ServiceErrors. */
async function* readGuarded<T>(
  messages: AsyncGenerator<T>,
  call: CallContext,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const code = (error as { code?: unknown })?.code;
    throw errorFromTransport(error, true, code === 'UND_ERR_BODY_TIMEOUT', call);
  }
}

function parseStatus(data: string, call: CallContext): Prediction {
  try {
    return parsePrediction(redactDeep(JSON.parse(data), call.redact));
  } catch {
    throw invalidResponse(call, `a status event that is not a prediction record: ${data.slice(0, 80)}`);
  }
}
