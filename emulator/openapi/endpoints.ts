/**
 * Every operation of the emulator's API, as the OpenAPI document (document.ts) describes it: the
 * zod schemas it validates with and replies from, and the error statuses it can answer besides
 * the ones every keyed operation shares (401, 429, 503) or that follow from its shape (400 for a
 * body or query, 413 and 415 for a body, 404 for a path id). See docs/service-assumptions.md.
 */
import type { z } from 'zod';
import {
  Account,
  ApiKey,
  Balance,
  Batch,
  CreateApiKeyBody,
  CreatePredictionBody,
  Deleted,
  Estimate,
  EstimateBody,
  FileObject,
  Health,
  ModelInfo,
  Page,
  PageQuery,
  PredictionRecord,
  RateLimits,
  SearchQuery,
  SearchResult,
  UploadFileBody,
  Usage,
  Webhook,
} from '../../api/wire/index.ts';
import { LoopbackWebhookBody } from '../webhooks/registry.ts';
import { BatchEnvelope } from './batch-envelope.ts';

export interface Endpoint {
  readonly method: 'get' | 'post' | 'delete';
  readonly path: string;
  readonly summary: string;
  readonly response: z.ZodType | 'event-stream';
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  /** Statuses beyond the shared ones (see the file comment). */
  readonly errors?: readonly number[];
  /** The body names a model (`model`) and its `input`: documented as one variant per model. */
  readonly perModelBody?: boolean;
  /** No key needed (health only). */
  readonly open?: boolean;
}

/** The create operation: document.ts expands it into one operation per model path. */
export const CREATE_PATH = '/v1/{owner}/{model}/predictions';

export const ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'post',
    path: CREATE_PATH,
    summary: 'Create a prediction',
    body: CreatePredictionBody,
    response: PredictionRecord,
    errors: [402, 404, 409],
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
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/predictions/batch',
    summary: 'Create a batch of predictions',
    // What the emulator checks up front; each item is checked alone (BatchItemRequest) and a bad
    // one is reported in items[].error, so the document cannot promise a 400 for it.
    body: BatchEnvelope,
    response: Batch,
  },
  { method: 'get', path: '/v1/predictions/batch/{id}', summary: 'Get a batch', response: Batch },
  { method: 'get', path: '/v1/models', summary: 'List models', response: Page(ModelInfo), query: PageQuery },
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
  { method: 'get', path: '/v1/files', summary: 'List files', response: Page(FileObject), query: PageQuery },
  { method: 'get', path: '/v1/files/{id}', summary: 'Get a file', response: FileObject },
  { method: 'delete', path: '/v1/files/{id}', summary: 'Delete a file', response: Deleted },
  {
    method: 'post',
    path: '/v1/webhooks',
    summary: 'Register a webhook (loopback URLs only)',
    body: LoopbackWebhookBody,
    response: Webhook,
  },
  {
    method: 'get',
    path: '/v1/webhooks',
    summary: 'List webhooks',
    response: Page(Webhook),
    query: PageQuery,
  },
  { method: 'delete', path: '/v1/webhooks/{id}', summary: 'Delete a webhook', response: Deleted },
  { method: 'get', path: '/v1/account', summary: 'Get the account', response: Account },
  { method: 'get', path: '/v1/account/balance', summary: 'Get the credit balance', response: Balance },
  { method: 'get', path: '/v1/account/usage', summary: 'Get what was spent', response: Usage },
  {
    method: 'get',
    path: '/v1/account/rate-limits',
    summary: "Get the caller's rate limits",
    response: RateLimits,
  },
  { method: 'get', path: '/v1/api-keys', summary: 'List API keys', response: Page(ApiKey), query: PageQuery },
  {
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key',
    body: CreateApiKeyBody,
    response: ApiKey,
  },
  {
    method: 'delete',
    path: '/v1/api-keys/{id}',
    summary: 'Delete an API key (not the caller’s own, not the last)',
    response: Deleted,
    errors: [409],
  },
  { method: 'post', path: '/v1/api-keys/{id}/rotate', summary: 'Rotate an API key', response: ApiKey },
  { method: 'get', path: '/v1/health', summary: 'Health', response: Health, open: true },
  {
    method: 'post',
    path: '/v1/estimate',
    summary: 'Estimate the price of a prediction',
    body: EstimateBody,
    perModelBody: true,
    response: Estimate,
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/search',
    summary: 'Search models or predictions',
    response: Page(SearchResult),
    query: SearchQuery.extend(PageQuery.shape),
    errors: [404],
  },
];
