/**
 * Shapes of every resource other than the prediction record. The spec shows none of them
 * ("not shown"), so these are the emulator's choices, documented in docs/service-assumptions.md.
 * Every schema is loose: a real deployment may send more fields, and the client keeps working.
 * Amounts are decimal strings, as `credits_used` is.
 */
import { z } from 'zod';
import { parseUsd } from '../money.ts';
import { AnyPredictionForm, PredictionRecord } from './prediction.ts';

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'a decimal amount in a string');
const Timestamp = z.string();

/** Every list endpoint (part 2.3): `?limit=&cursor=` in, this out. */
export function Page<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z.boolean().default(false),
    next_cursor: z.string().nullish(),
  });
}
export const PAGE_LIMIT_DEFAULT = 25;
export const PAGE_LIMIT_MAX = 100;
/**
 * The emulator's cursors: `c` and the sequence number of the last item seen. Clients must treat a
 * cursor as opaque; the form is published (in the OpenAPI document) so that a tool can tell a
 * well-formed cursor from garbage without having listed anything first.
 */
export const CURSOR_PATTERN = /^c(\d{1,15})$/;
/** The query of every list endpoint (part 2.3). */
export const PageQuery = z.object({
  limit: z.int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  cursor: z.string().regex(CURSOR_PATTERN).optional(),
});

// Batch predictions
export const BatchItemRequest = z.object({
  /** `owner/model`, as in the create path. */
  model: z.string(),
  input: z.record(z.string(), z.unknown()),
  image_count: z.literal(1),
  /** Per-item idempotency: the same key returns the same prediction, charged once. */
  idempotency_key: z.string().min(1).max(255),
});
export const CreateBatchBody = z.object({ requests: z.array(BatchItemRequest).min(1) });
export type CreateBatchBody = z.infer<typeof CreateBatchBody>;
export const BatchItemResult = z.looseObject({
  index: z.number().int(),
  prediction: AnyPredictionForm.nullish(),
  error: z.looseObject({ type: z.string(), code: z.string(), message: z.string() }).nullish(),
});
export const Batch = z.looseObject({
  id: z.string(),
  status: z.string(),
  created_at: Timestamp,
  items: z.array(BatchItemResult),
});
export type Batch = z.infer<typeof Batch>;

// Models
export const ModelInfo = z.looseObject({
  id: z.string(),
  owner: z.string(),
  name: z.string(),
  kind: z.string(),
  modes: z.array(z.string()),
  input_schema: z.record(z.string(), z.unknown()),
  pricing: z.string(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

// Files
export const UploadFileBody = z.object({
  filename: z.string().min(1).max(255),
  content_type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/),
  /** The file's bytes, base64 (contentEncoding in the OpenAPI document): bodies are JSON (2.1 rule 1). */
  data: z.base64().min(1),
});
export type UploadFileBody = z.infer<typeof UploadFileBody>;
export const FileObject = z.looseObject({
  id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  bytes: z.number().int(),
  /** Usable as an image input of any model. */
  url: z.string(),
  created_at: Timestamp,
});
export type FileObject = z.infer<typeof FileObject>;
export const Deleted = z.looseObject({ id: z.string(), deleted: z.boolean() });

// Webhooks
export const WEBHOOK_EVENTS = ['prediction.succeeded', 'prediction.failed', 'prediction.canceled'] as const;
export const CreateWebhookBody = z.object({
  url: z.url({ protocol: /^https?$/ }),
  events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).optional(),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;
export const Webhook = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  /** Standard Webhooks signing secret (`whsec_…`); returned by create only. */
  secret: z.string().optional(),
  created_at: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;
/** The payload of every delivery, signed with Standard Webhooks headers. */
export const WebhookEvent = z.looseObject({
  type: z.string(),
  timestamp: Timestamp,
  data: AnyPredictionForm,
});
export type WebhookEvent = z.infer<typeof WebhookEvent>;

// Account
export const Account = z.looseObject({ id: z.string(), name: z.string(), created_at: Timestamp });
export const Balance = z.looseObject({ credits: Decimal, currency: z.string().default('USD') });
export type Balance = z.infer<typeof Balance>;
export const UsageByModel = z.looseObject({
  model: z.string(),
  predictions: z.number().int(),
  credits: Decimal,
});
export const Usage = z.looseObject({
  predictions: z.number().int(),
  credits: Decimal,
  by_model: z.array(UsageByModel),
});
export type Usage = z.infer<typeof Usage>;

/** The balance as mediaflow uses it: credits exact, in micro-dollars. */
export const AccountBalance = Balance.transform(({ credits, currency }) => ({
  credits: parseUsd(credits),
  currency,
}));
export type AccountBalance = z.output<typeof AccountBalance>;
/** Usage as mediaflow uses it: credits exact, in micro-dollars. */
export const UsageReport = Usage.transform((usage) => ({
  predictions: usage.predictions,
  credits: parseUsd(usage.credits),
  byModel: usage.by_model.map((row) => ({
    model: row.model,
    predictions: row.predictions,
    credits: parseUsd(row.credits),
  })),
}));
export type UsageReport = z.output<typeof UsageReport>;
export const RateLimits = z.looseObject({
  creates_per_minute: z.number().int().positive(),
  requests_per_minute: z.number().int().positive(),
  max_in_flight: z.number().int().positive(),
  remaining: z
    .looseObject({ creates: z.number().int(), requests: z.number().int(), in_flight: z.number().int() })
    .optional(),
});
export type RateLimits = z.infer<typeof RateLimits>;

// API keys
export const ApiKey = z.looseObject({
  id: z.string(),
  name: z.string(),
  /** First characters only, for recognising a key in a list. */
  prefix: z.string(),
  created_at: Timestamp,
  /** The secret itself: returned by create and rotate only. */
  key: z.string().optional(),
});
export type ApiKey = z.infer<typeof ApiKey>;
export const CreateApiKeyBody = z.object({ name: z.string().min(1).max(100) });

// Utilities
export const Health = z.looseObject({ status: z.string(), time: Timestamp.optional() });
export const EstimateBody = z.object({
  /** `owner/model`. */
  model: z.string(),
  input: z.record(z.string(), z.unknown()),
  image_count: z.literal(1).default(1),
});
export type EstimateBody = z.infer<typeof EstimateBody>;
export const Estimate = z.looseObject({ model: z.string(), credits: Decimal });
export type Estimate = z.infer<typeof Estimate>;
export const SEARCH_TYPES = ['models', 'predictions'] as const;
/** `GET /v1/search` query, besides `limit` and `cursor`. */
export const SearchQuery = z.object({
  q: z.string().max(1000).default(''),
  type: z.enum(SEARCH_TYPES).default('predictions'),
  /** `owner/model`. */
  model: z.string().optional(),
  created_after: z.iso.datetime({ offset: true }).optional(),
});
export const SearchResult = z.looseObject({
  type: z.enum(SEARCH_TYPES),
  id: z.string(),
  title: z.string(),
  /** type `predictions`: the full record, `input_parameters` included, for reconciliation. */
  prediction: PredictionRecord.optional(),
  /** type `models`: the model as GET /v1/models/:id returns it. */
  model: ModelInfo.optional(),
});
export type SearchResult = z.infer<typeof SearchResult>;
