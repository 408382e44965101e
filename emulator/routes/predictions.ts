/** Predictions: create, get, cancel (service-spec.md part 4.1). The stream is in stream.ts. */
import type { FastifyInstance } from 'fastify';
import { CreatePredictionBody } from '../../api/wire/index.ts';
import { keyOf } from '../auth/guard.ts';
import type { EmulatorContext } from '../context.ts';
import { parseWith } from '../http/validate.ts';
import { checkIdempotencyKey, createPrediction } from '../predictions/create.ts';
import { predictionToWire } from '../predictions/prediction.ts';
import { idempotencyHeader, modelByPath, predictionById } from './lookup.ts';

type IdParams = { Params: { id: string } };

export function predictionRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.post<{ Params: { owner: string; model: string } }>(
    '/v1/:owner/:model/predictions',
    { config: { limit: 'create' } },
    async (request) => {
      const label = modelByPath(context.paths, request.params.owner, request.params.model);
      const body = parseWith(CreatePredictionBody, request.body);
      const idempotencyKey = checkIdempotencyKey(
        idempotencyHeader(request.headers['idempotency-key']),
        'Idempotency-Key',
      );
      const prediction = createPrediction(context.creator, {
        keyId: keyOf(request).id,
        label,
        input: body.input,
        idempotencyKey,
      });
      return predictionToWire(prediction);
    },
  );

  // Asked again, a prediction's links are issued fresh (an expired one is renewed).
  app.get<IdParams>('/v1/predictions/:id', async (request) => {
    const prediction = predictionById(context, request.params.id);
    return predictionToWire(prediction, context.links(prediction, 'fresh'));
  });

  app.post<IdParams>('/v1/predictions/:id/cancel', async (request) => {
    const prediction = predictionById(context, request.params.id);
    context.lifecycle.cancel(prediction);
    return predictionToWire(prediction);
  });
}
