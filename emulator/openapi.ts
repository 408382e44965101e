/**
 * The OpenAPI 3.1 document served at /v1/openapi.json, generated from the same zod schemas the
 * emulator validates with and the client parses with, so standard tools check the real contract.
 */
import { z } from 'zod';
import { MODEL_LABELS, MODELS } from '../api/catalogue/index.ts';
import {
  Account,
  ApiKey,
  Balance,
  Batch,
  CreateApiKeyBody,
  CreateBatchBody,
  CreatePredictionBody,
  CreateWebhookBody,
  Deleted,
  ErrorBody,
  Estimate,
  EstimateBody,
  FileObject,
  Health,
  ModelInfo,
  Page,
  PredictionRecord,
  RateLimits,
  SearchResult,
  UploadFileBody,
  Usage,
  Webhook,
} from '../api/wire/index.ts';

interface Endpoint {
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly response: z.ZodType | 'event-stream';
  readonly body?: z.ZodType;
  readonly query?: readonly string[];
  readonly open?: boolean;
}

const PAGE = ['limit', 'cursor'];

export const ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'post',
    path: '/v1/{owner}/{model}/predictions',
    summary: 'Create a prediction',
    body: CreatePredictionBody,
    response: PredictionRecord,
  },
  { method: 'get', path: '/v1/predictions/{id}', summary: 'Get a prediction', response: PredictionRecord },
  {
    method: 'get',
    path: '/v1/predictions/{id}/stream',
    summary: 'Stream status changes (SSE)',
    response: 'event-stream',
  },
  {
    method: 'post',
    path: '/v1/predictions/{id}/cancel',
    summary: 'Cancel a processing prediction',
    response: PredictionRecord,
  },
  {
    method: 'post',
    path: '/v1/predictions/batch',
    summary: 'Create a batch of predictions',
    body: CreateBatchBody,
    response: Batch,
  },
  { method: 'get', path: '/v1/predictions/batch/{id}', summary: 'Get a batch', response: Batch },
  { method: 'get', path: '/v1/models', summary: 'List models', response: Page(ModelInfo), query: PAGE },
  {
    method: 'get',
    path: '/v1/models/{id}',
    summary: 'Get a model by its URL-encoded owner/model id',
    response: ModelInfo,
  },
  {
    method: 'post',
    path: '/v1/files',
    summary: 'Upload a file (base64 in JSON)',
    body: UploadFileBody,
    response: FileObject,
  },
  { method: 'get', path: '/v1/files', summary: 'List files', response: Page(FileObject), query: PAGE },
  { method: 'get', path: '/v1/files/{id}', summary: 'Get a file', response: FileObject },
  { method: 'delete', path: '/v1/files/{id}', summary: 'Delete a file', response: Deleted },
  {
    method: 'post',
    path: '/v1/webhooks',
    summary: 'Register a webhook',
    body: CreateWebhookBody,
    response: Webhook,
  },
  { method: 'get', path: '/v1/webhooks', summary: 'List webhooks', response: Page(Webhook), query: PAGE },
  { method: 'get', path: '/v1/account', summary: 'Get the account', response: Account },
  { method: 'get', path: '/v1/account/balance', summary: 'Get the credit balance', response: Balance },
  { method: 'get', path: '/v1/account/usage', summary: 'Get what was spent', response: Usage },
  {
    method: 'get',
    path: '/v1/account/rate-limits',
    summary: "Get the caller's rate limits",
    response: RateLimits,
  },
  { method: 'get', path: '/v1/api-keys', summary: 'List API keys', response: Page(ApiKey), query: PAGE },
  {
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key',
    body: CreateApiKeyBody,
    response: ApiKey,
  },
  { method: 'delete', path: '/v1/api-keys/{id}', summary: 'Delete an API key', response: Deleted },
  { method: 'post', path: '/v1/api-keys/{id}/rotate', summary: 'Rotate an API key', response: ApiKey },
  { method: 'get', path: '/v1/health', summary: 'Health', response: Health, open: true },
  {
    method: 'post',
    path: '/v1/estimate',
    summary: 'Estimate the price of a prediction',
    body: EstimateBody,
    response: Estimate,
  },
  {
    method: 'get',
    path: '/v1/search',
    summary: 'Search models or predictions',
    response: Page(SearchResult),
    query: ['q', 'type', 'model', 'created_after', ...PAGE],
  },
];

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return rest;
}

const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

function operation(endpoint: Endpoint): Record<string, unknown> {
  const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const queryParams = (endpoint.query ?? []).map((name) => ({
    name,
    in: 'query',
    schema: { type: 'string' },
  }));
  const idempotency = endpoint.path.endsWith('/predictions')
    ? [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', maxLength: 255 } }]
    : [];
  const success =
    endpoint.response === 'event-stream'
      ? { 'text/event-stream': { schema: { type: 'string' } } }
      : json(jsonSchema(endpoint.response, 'output'));
  return {
    summary: endpoint.summary,
    ...(endpoint.open ? { security: [] } : {}),
    parameters: [...pathParams, ...queryParams, ...idempotency],
    ...(endpoint.body
      ? { requestBody: { required: true, content: json(jsonSchema(endpoint.body, 'input')) } }
      : {}),
    responses: {
      '200': { description: 'Success', content: success },
      default: {
        description: 'Error (service-spec.md part 7)',
        content: json({ $ref: '#/components/schemas/Error' }),
      },
    },
  };
}

export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINTS) {
    paths[endpoint.path] ??= {};
    paths[endpoint.path]![endpoint.method] = operation(endpoint);
  }
  const modelInputs = Object.fromEntries(
    MODEL_LABELS.map((label) => [`${label}Input`, jsonSchema(MODELS[label].input, 'input')]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Generative Media Prediction Service (mediaflow emulator)',
      version: '1',
      description: 'Each model validates `input` against its schema in components.schemas (<label>Input).',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchema(ErrorBody, 'output'), ...modelInputs },
    },
  };
}
