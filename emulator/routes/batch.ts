/**
 * Batch predictions: up to 100 items per batch (our limit), each created as if alone, with its
 * own idempotency key; one item's refusal (bad input, credits, in-flight limit) does not stop
 * the others. The batch reports each item's current prediction or its error.
 */
import type { FastifyInstance } from 'fastify';
import { BatchItemRequest, type Batch as BatchWire } from '../../api/wire/index.ts';
import { keyOf } from '../auth/guard.ts';
import type { EmulatorContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { parseWith } from '../http/validate.ts';
import type { LinkIssuer } from '../media/links.ts';
import { BatchEnvelope } from '../openapi/batch-envelope.ts';
import { checkIdempotencyKey, createPrediction } from '../predictions/create.ts';
import { predictionToWire, type StoredPrediction } from '../predictions/prediction.ts';
import { modelById, notFound } from './lookup.ts';

type ItemOutcome = { prediction: StoredPrediction } | { error: ApiError };

interface StoredBatch {
  readonly id: string;
  readonly createdAt: string;
  readonly items: readonly ItemOutcome[];
}

/** Each prediction with the links a GET would give it (media/links.ts): they expire alike. */
function batchToWire(batch: StoredBatch, links: LinkIssuer): BatchWire {
  let processing = false;
  const items = batch.items.map((item, index) => {
    if ('error' in item) return { index, prediction: null, error: item.error.toBody().error };
    processing ||= item.prediction.status === 'processing';
    return {
      index,
      prediction: predictionToWire(item.prediction, links(item.prediction, 'fresh')),
      error: null,
    };
  });
  return {
    id: batch.id,
    status: processing ? 'processing' : 'completed',
    created_at: batch.createdAt,
    items,
  };
}

export function batchRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const batches = new Map<string, StoredBatch>();

  app.post('/v1/predictions/batch', { config: { limit: 'batch' } }, async (request) => {
    const { requests } = parseWith(BatchEnvelope, request.body);
    const keyId = keyOf(request).id;
    const items = requests.map((raw, index): ItemOutcome => {
      try {
        const item = parseWith(BatchItemRequest, raw, `requests[${index}]`);
        const prediction = createPrediction(context.creator, {
          keyId,
          label: modelById(context.paths, item.model),
          input: item.input,
          idempotencyKey: checkIdempotencyKey(item.idempotency_key, 'idempotency_key'),
        });
        return { prediction };
      } catch (error) {
        if (error instanceof ApiError) return { error };
        throw error;
      }
    });
    const batch: StoredBatch = {
      id: `batch_${batches.size + 1}`,
      createdAt: new Date().toISOString(),
      items,
    };
    batches.set(batch.id, batch);
    return batchToWire(batch, context.links);
  });

  app.get<{ Params: { id: string } }>('/v1/predictions/batch/:id', async (request) => {
    const batch = batches.get(request.params.id);
    if (!batch) throw notFound('batch', request.params.id);
    return batchToWire(batch, context.links);
  });
}
