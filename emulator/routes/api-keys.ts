/** API keys: list, create, delete, rotate. Secrets are shown only by create and rotate. */
import type { FastifyInstance } from 'fastify';
import { CreateApiKeyBody } from '../../api/wire/index.ts';
import { keyOf } from '../auth/guard.ts';
import { apiKeyToWire } from '../auth/keys.ts';
import type { EmulatorContext } from '../context.ts';
import { paginate, parsePageQuery } from '../http/pagination.ts';
import { parseWith } from '../http/validate.ts';
import { notFound } from './lookup.ts';

type IdParams = { Params: { id: string } };

export function apiKeyRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const { keys } = context;
  app.get('/v1/api-keys', async (request) =>
    paginate(
      keys.list(),
      (k) => k.seq,
      parsePageQuery(request.query as Record<string, unknown>),
      (k) => apiKeyToWire(k, false),
    ),
  );
  app.post('/v1/api-keys', async (request) =>
    apiKeyToWire(keys.create(parseWith(CreateApiKeyBody, request.body).name), true),
  );
  app.delete<IdParams>('/v1/api-keys/:id', async (request) => {
    if (!keys.delete(request.params.id, keyOf(request).id)) throw notFound('API key', request.params.id);
    return { id: request.params.id, deleted: true };
  });
  app.post<IdParams>('/v1/api-keys/:id/rotate', async (request) => {
    const rotated = keys.rotate(request.params.id);
    if (!rotated) throw notFound('API key', request.params.id);
    return apiKeyToWire(rotated, true);
  });
}
