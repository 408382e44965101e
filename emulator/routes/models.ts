/**
 * The model catalogue: each model with its modes, the JSON schema of its input (generated from
 * the catalogue's zod schema, so it is exactly what create validates) and its pricing text.
 * `GET /v1/models/:id` takes the `owner/model` id, URL-encoded or as two path segments.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MODEL_LABELS, MODELS, type ModelPaths } from '../../api/catalogue/index.ts';
import type { ModelInfo } from '../../api/wire/index.ts';
import { PRICING_TEXT } from '../billing/prices.ts';
import type { EmulatorContext } from '../context.ts';
import { paginate, parsePageQuery } from '../http/pagination.ts';
import { modelById } from './lookup.ts';

export function modelInfos(paths: ModelPaths): ModelInfo[] {
  return MODEL_LABELS.map((label) => {
    const { owner, model } = paths.pathOf(label);
    return {
      id: `${owner}/${model}`,
      owner,
      name: model,
      label,
      kind: MODELS[label].kind,
      modes: [...MODELS[label].modes],
      input_schema: z.toJSONSchema(MODELS[label].input, { io: 'input' }) as Record<string, unknown>,
      pricing: PRICING_TEXT[label],
    };
  });
}

export function modelRoutes(app: FastifyInstance, context: EmulatorContext): void {
  const infos = modelInfos(context.paths);
  const byId = new Map(infos.map((info) => [info.id, info]));
  const one = (id: string) => byId.get(context.paths.idOf(modelById(context.paths, id)))!;

  app.get('/v1/models', async (request) =>
    paginate(
      infos,
      (info) => infos.indexOf(info) + 1,
      parsePageQuery(request.query as Record<string, unknown>),
      (i) => i,
    ),
  );
  app.get<{ Params: { id: string } }>('/v1/models/:id', async (request) => one(request.params.id));
  app.get<{ Params: { owner: string; model: string } }>('/v1/models/:owner/:model', async (request) =>
    one(`${request.params.owner}/${request.params.model}`),
  );
}
