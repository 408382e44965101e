/**
 * What the rest of mediaflow sees of the service: one method per endpoint of service-spec.md
 * part 4.1 (25 of them). Wire shapes come from api/wire (types inferred from the zod schemas);
 * amounts arrive as decimal strings and leave here as exact Micros.
 */
import type { z } from 'zod';
import type { ModelLabel } from '../catalogue/models.ts';
import type { ModelPaths } from '../catalogue/paths.ts';
import type { Micros } from '../money.ts';
import type { Prediction } from '../wire/prediction.ts';
import type {
  Account,
  AccountBalance,
  ApiKey,
  FileObject,
  Health,
  ModelInfo,
  RateLimits,
  SearchResult,
  UsageReport,
  Webhook,
} from '../wire/resources.ts';
import type { ServiceError } from './errors.ts';
import type { ListOptions } from './pagination.ts';

export interface ClientOptions {
  /** Ends with /v1, e.g. http://127.0.0.1:4010/v1. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Per request (for the stream: until its headers). Default 30,000. */
  readonly timeoutMs?: number;
  /** Default ModelPaths.fromEnv(). */
  readonly paths?: ModelPaths;
  /** undici Agent pool size per origin. Default 64. */
  readonly connections?: number;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface CreateOptions extends CallOptions {
  readonly idempotencyKey: string;
}

export interface BatchItem {
  readonly model: ModelLabel;
  readonly input: Record<string, unknown>;
  readonly idempotencyKey: string;
}

/** Each request of a batch either became a prediction or failed on its own. */
export interface BatchItemOutcome {
  readonly index: number;
  readonly prediction?: Prediction;
  readonly error?: ServiceError;
}

export interface BatchResult {
  readonly id: string;
  readonly status: string;
  readonly items: readonly BatchItemOutcome[];
}

export interface SearchOptions extends ListOptions {
  readonly type?: 'models' | 'predictions';
  readonly model?: ModelLabel;
  /** ISO 8601. */
  readonly createdAfter?: string;
}

export type AccountInfo = z.infer<typeof Account>;
export type HealthStatus = z.infer<typeof Health>;

export interface ServiceClient {
  readonly predictions: {
    create(model: ModelLabel, input: Record<string, unknown>, opts: CreateOptions): Promise<Prediction>;
    get(id: string, opts?: CallOptions): Promise<Prediction>;
    /** SSE; ends after a terminal status; throws a retryable ServiceError if cut short. */
    stream(id: string, opts?: CallOptions): AsyncIterable<Prediction>;
    cancel(id: string, opts?: CallOptions): Promise<Prediction>;
  };
  readonly batches: {
    create(items: readonly BatchItem[], opts?: Partial<CreateOptions>): Promise<BatchResult>;
    get(id: string, opts?: CallOptions): Promise<BatchResult>;
  };
  readonly models: {
    list(opts?: ListOptions): AsyncIterable<ModelInfo>;
    /** By `owner/model` id or by label (V1…I5). */
    get(id: string, opts?: CallOptions): Promise<ModelInfo>;
  };
  readonly files: {
    upload(
      file: { filename: string; contentType: string; data: Uint8Array },
      opts?: CallOptions,
    ): Promise<FileObject>;
    list(opts?: ListOptions): AsyncIterable<FileObject>;
    get(id: string, opts?: CallOptions): Promise<FileObject>;
    delete(id: string, opts?: CallOptions): Promise<void>;
  };
  readonly webhooks: {
    create(webhook: { url: string; events?: string[] }, opts?: CallOptions): Promise<Webhook>;
    list(opts?: ListOptions): AsyncIterable<Webhook>;
  };
  readonly account: {
    get(opts?: CallOptions): Promise<AccountInfo>;
    balance(opts?: CallOptions): Promise<AccountBalance>;
    usage(opts?: CallOptions): Promise<UsageReport>;
    rateLimits(opts?: CallOptions): Promise<RateLimits>;
  };
  readonly apiKeys: {
    list(opts?: ListOptions): AsyncIterable<ApiKey>;
    create(name: string, opts?: CallOptions): Promise<ApiKey>;
    delete(id: string, opts?: CallOptions): Promise<void>;
    rotate(id: string, opts?: CallOptions): Promise<ApiKey>;
  };
  health(opts?: CallOptions): Promise<HealthStatus>;
  /** The service's price for this input, exact. */
  estimate(model: ModelLabel, input: Record<string, unknown>, opts?: CallOptions): Promise<Micros>;
  search(query: string, opts?: SearchOptions): AsyncIterable<SearchResult>;
  /** Closes the connection pool; the client is unusable afterwards. */
  close(): Promise<void>;
}
