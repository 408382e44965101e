/**
 * Utilities: health (no key needed, so monitors can probe it), the OpenAPI document, cost estimate
 * (the same price a create would charge) and search. Search over predictions matches the prompt (substring,
 * case-insensitive), optionally one model and a creation time, and returns full records with
 * `input_parameters`, so a client can find a prediction it may have created without hearing back.
 */
import type { FastifyInstance } from 'fastify';
import { formatUsd } from '../../api/money.ts';
import { EstimateBody, SearchQuery, type SearchResult } from '../../api/wire/index.ts';
import { priceOf } from '../billing/prices.ts';
import type { EmulatorContext } from '../context.ts';
import { paginate, parsePageQuery } from '../http/pagination.ts';
import { checkInputOrThrow, parseWith } from '../http/validate.ts';
import { openApiDocument } from '../openapi/document.ts';
import { predictionToWire } from '../predictions/prediction.ts';
import { modelById } from './lookup.ts';
import { modelInfos } from './models.ts';

const TITLE_LENGTH = 80;

export function utilityRoutes(app: FastifyInstance, context: EmulatorContext): void {
  app.get('/v1/health', { config: { access: 'public' } }, async () => ({
    status: 'ok',
    time: new Date().toISOString(),
  }));

  let openApi: Record<string, unknown> | undefined;
  app.get('/v1/openapi.json', async () => {
    openApi ??= openApiDocument(new URL(context.urls.baseUrl).origin, context.paths);
    return openApi;
  });

  app.post('/v1/estimate', async (request) => {
    const body = parseWith(EstimateBody, request.body);
    const label = modelById(context.paths, body.model);
    return { model: body.model, credits: formatUsd(priceOf(label, checkInputOrThrow(label, body.input))) };
  });

  const models = modelInfos(context.paths);
  app.get('/v1/search', async (request) => {
    const query = request.query as Record<string, unknown>;
    const page = parsePageQuery(query);
    const search = parseWith(SearchQuery, query, 'query');
    const needle = search.q.toLowerCase();
    if (search.type === 'models') {
      const found = models
        .map((info, index) => ({ info, seq: index + 1 }))
        .filter(({ info }) =>
          `${info.id} ${info.label} ${info.kind} ${info.modes.join(' ')}`.toLowerCase().includes(needle),
        );
      return paginate(
        found,
        (m) => m.seq,
        page,
        ({ info }): SearchResult => ({
          type: 'models',
          id: info.id,
          title: `${info.label} (${info.kind})`,
          model: info,
        }),
      );
    }
    const found = context.predictions.search({
      text: search.q,
      label: search.model === undefined ? undefined : modelById(context.paths, search.model),
      createdAfter: search.created_after === undefined ? undefined : Date.parse(search.created_after),
    });
    return paginate(
      found,
      (p) => p.id,
      page,
      (p): SearchResult => ({
        type: 'predictions',
        id: String(p.id),
        title: String(p.input.prompt ?? '').slice(0, TITLE_LENGTH),
        prediction: predictionToWire(p),
      }),
    );
  });
}
