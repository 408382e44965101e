/** Webhooks: register an endpoint (its signing secret is shown once), list and delete them. */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.ts';
import { paginate, parsePageQuery } from '../http/pagination.ts';
import { parseWith } from '../http/validate.ts';
import { LoopbackWebhookBody, webhookToWire } from '../webhooks/registry.ts';
import { notFound } from './lookup.ts';

export function webhookRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.post('/v1/webhooks', async (request) =>
    webhookToWire(context.webhooks.create(parseWith(LoopbackWebhookBody, request.body)), true),
  );
  app.get('/v1/webhooks', async (request) =>
    paginate(
      context.webhooks.list(),
      (w) => w.seq,
      parsePageQuery(request.query as Record<string, unknown>),
      (w) => webhookToWire(w, false),
    ),
  );
  app.delete<{ Params: { id: string } }>('/v1/webhooks/:id', async (request) => {
    if (!context.webhooks.delete(request.params.id)) throw notFound('webhook', request.params.id);
    return { id: request.params.id, deleted: true };
  });
}
