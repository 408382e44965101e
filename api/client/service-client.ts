/**
 * The typed client: every endpoint of service-spec.md part 4.1 as a method (see types.ts for the
 * interface). This file only says which path each call goes to and how its reply is normalised;
 * HTTP, timeouts and error classification live in transport.ts and errors.ts.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import type { ModelLabel } from '../catalogue/models.ts';
import { ModelLabel as ModelLabelSchema } from '../catalogue/models.ts';
import { ModelPaths } from '../catalogue/paths.ts';
import { parseUsd } from '../money.ts';
import { parsePrediction } from '../wire/prediction.ts';
import {
  Account,
  AccountBalance,
  ApiKey,
  Batch,
  Deleted,
  Estimate,
  FileObject,
  Health,
  ModelInfo,
  RateLimits,
  SearchResult,
  UsageReport,
  Webhook,
} from '../wire/resources.ts';
import type { CallTrace } from './call-span.ts';
import { ConfigurationError } from './configuration-error.ts';
import { enumValuesAsStrings } from './enum-strings.ts';
import { errorFromBatchItem } from './errors.ts';
import { paginate } from './pagination.ts';
import { predictionEvents } from './prediction-stream.ts';
import { serviceUrlProblem } from './service-address.ts';
import { type Call, Transport } from './transport.ts';
import type { BatchResult, CallOptions, ClientOptions, ServiceClient } from './types.ts';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECTIONS = 64;
/** The emulator pings every 15 s; two missed pings mean the stream is dead. */
const STREAM_IDLE_MS = 35_000;

/** A DELETE may answer 204 with no body or a `{ id, deleted }` record. */
const DeleteReply = z.union([Deleted, z.undefined()]);

export function createServiceClient(options: ClientOptions): ServiceClient {
  const baseUrl = checkBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = new Transport({
    baseUrl,
    apiKey: options.apiKey,
    timeoutMs,
    connections: options.connections ?? DEFAULT_CONNECTIONS,
  });
  const paths = options.paths ?? ModelPaths.fromEnv();
  const id = (value: string) => encodeURIComponent(value);
  const get = (path: string, opts?: CallOptions): Call => ({ method: 'GET', path, ...signalOf(opts) });
  const modelInput = (model: ModelLabel, input: Record<string, unknown>) => ({
    input: enumValuesAsStrings(model, input),
    image_count: 1 as const,
  });
  /** A create's span names its model both ways (call-span.ts); the prompt only when opted in. */
  const createTrace = (model: ModelLabel, input: Record<string, unknown>): CallTrace => ({
    name: 'create prediction',
    operation: 'generate_content',
    model: paths.idOf(model),
    label: model,
    ...(typeof input.prompt === 'string' ? { prompt: input.prompt } : {}),
  });

  const toBatchResult =
    (call: Call) =>
    (value: unknown): BatchResult => {
      const batch = Batch.parse(value);
      const context = transport.context(call);
      return {
        id: batch.id,
        status: batch.status,
        items: batch.items.map((item) => ({
          index: item.index,
          ...(item.prediction ? { prediction: parsePrediction(item.prediction) } : {}),
          ...(item.error ? { error: errorFromBatchItem(item.error, context) } : {}),
        })),
      };
    };

  return {
    predictions: {
      create(model, input, opts) {
        if (!opts?.idempotencyKey) throw new TypeError('predictions.create needs an idempotencyKey');
        const { owner, model: name } = paths.pathOf(model);
        return transport.parsed(
          {
            method: 'POST',
            path: `/${id(owner)}/${id(name)}/predictions`,
            body: modelInput(model, input),
            idempotencyKey: opts.idempotencyKey,
            createsSomething: true,
            trace: createTrace(model, input),
            ...signalOf(opts),
          },
          parsePrediction,
        );
      },
      get: (predictionId, opts) =>
        transport.parsed(
          {
            ...get(`/predictions/${id(predictionId)}`, opts),
            trace: { name: 'get prediction', predictionId },
          },
          parsePrediction,
        ),
      async *stream(predictionId, opts) {
        const call: Call = {
          ...get(`/predictions/${id(predictionId)}/stream`, opts),
          accept: 'text/event-stream, application/json',
          trace: { name: 'wait prediction', operation: 'wait', predictionId },
        };
        yield* predictionEvents(await transport.open(call, Math.max(STREAM_IDLE_MS, timeoutMs)));
      },
      cancel: (predictionId, opts) =>
        transport.parsed(
          { method: 'POST', path: `/predictions/${id(predictionId)}/cancel`, body: {}, ...signalOf(opts) },
          parsePrediction,
        ),
    },
    batches: {
      create(items, opts) {
        const call: Call = {
          method: 'POST',
          path: '/predictions/batch',
          body: {
            requests: items.map((item) => ({
              model: paths.idOf(item.model),
              ...modelInput(item.model, item.input),
              idempotency_key: item.idempotencyKey,
            })),
          },
          ...(opts?.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {}),
          createsSomething: true,
          trace: { name: 'create batch', operation: 'generate_content' },
          ...signalOf(opts),
        };
        return transport.parsed(call, toBatchResult(call));
      },
      get(batchId, opts) {
        const call = get(`/predictions/batch/${id(batchId)}`, opts);
        return transport.parsed(call, toBatchResult(call));
      },
    },
    models: {
      list: (opts) => paginate(transport, get('/models'), (item) => ModelInfo.parse(item), opts),
      get(modelId, opts) {
        const label = ModelLabelSchema.safeParse(modelId);
        const wireId = label.success ? paths.idOf(label.data) : modelId;
        return transport.json(get(`/models/${id(wireId)}`, opts), ModelInfo);
      },
    },
    files: {
      upload: (file, opts) =>
        transport.json(
          {
            method: 'POST',
            path: '/files',
            body: {
              filename: file.filename,
              content_type: file.contentType,
              data: Buffer.from(file.data).toString('base64'),
            },
            createsSomething: true,
            ...signalOf(opts),
          },
          FileObject,
        ),
      list: (opts) => paginate(transport, get('/files'), (item) => FileObject.parse(item), opts),
      get: (fileId, opts) => transport.json(get(`/files/${id(fileId)}`, opts), FileObject),
      async delete(fileId, opts) {
        await transport.json(
          { method: 'DELETE', path: `/files/${id(fileId)}`, ...signalOf(opts) },
          DeleteReply,
        );
      },
    },
    webhooks: {
      create: (webhook, opts) =>
        transport.json(
          { method: 'POST', path: '/webhooks', body: webhook, createsSomething: true, ...signalOf(opts) },
          Webhook,
        ),
      list: (opts) => paginate(transport, get('/webhooks'), (item) => Webhook.parse(item), opts),
    },
    account: {
      get: (opts) => transport.json(get('/account', opts), Account),
      balance: (opts) =>
        transport.parsed(get('/account/balance', opts), (value) => AccountBalance.parse(value)),
      usage: (opts) => transport.parsed(get('/account/usage', opts), (value) => UsageReport.parse(value)),
      rateLimits: (opts) => transport.json(get('/account/rate-limits', opts), RateLimits),
    },
    apiKeys: {
      list: (opts) => paginate(transport, get('/api-keys'), (item) => ApiKey.parse(item), opts),
      create: (name, opts) =>
        transport.json(
          { method: 'POST', path: '/api-keys', body: { name }, createsSomething: true, ...signalOf(opts) },
          ApiKey,
        ),
      async delete(keyId, opts) {
        await transport.json(
          { method: 'DELETE', path: `/api-keys/${id(keyId)}`, ...signalOf(opts) },
          DeleteReply,
        );
      },
      rotate: (keyId, opts) =>
        transport.json(
          {
            method: 'POST',
            path: `/api-keys/${id(keyId)}/rotate`,
            body: {},
            createsSomething: true,
            ...signalOf(opts),
          },
          ApiKey,
        ),
    },
    health: (opts) => transport.json(get('/health', opts), Health),
    estimate: (model, input, opts) =>
      transport.parsed(
        {
          method: 'POST',
          path: '/estimate',
          body: { model: paths.idOf(model), ...modelInput(model, input) },
          ...signalOf(opts),
        },
        (value) => parseUsd(Estimate.parse(value).credits),
      ),
    search: (query, opts = {}) =>
      paginate(
        transport,
        {
          method: 'GET',
          path: '/search',
          query: {
            q: query,
            type: opts.type,
            model: opts.model ? paths.idOf(opts.model) : undefined,
            created_after: opts.createdAfter,
          },
        },
        (item) => SearchResult.parse(item),
        opts,
      ),
    close: () => transport.close(),
  };
}

/** MEDIAFLOW_API_URL (ends with /v1) and MEDIAFLOW_API_KEY. */
export function serviceClientFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Pick<ClientOptions, 'connections' | 'timeoutMs'> = {},
): ServiceClient {
  const baseUrl = env.MEDIAFLOW_API_URL?.trim();
  const apiKey = env.MEDIAFLOW_API_KEY?.trim();
  const missing = [!baseUrl && 'MEDIAFLOW_API_URL', !apiKey && 'MEDIAFLOW_API_KEY'].filter(Boolean);
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${missing.join(' and ')} must be set: the service's base URL (ending with /v1) and its API key. ` +
        'For a local emulator: `mediaflow emulator` prints both.',
    );
  }
  return createServiceClient({
    baseUrl: baseUrl!,
    apiKey: apiKey!,
    paths: ModelPaths.fromEnv(env),
    ...overrides,
  });
}

function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigurationError(`the service base URL is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (!/^https?:$/.test(url.protocol) || !/\/v1\/?$/.test(url.pathname)) {
    throw new ConfigurationError(
      `the service base URL must be http(s) and end with /v1, e.g. http://127.0.0.1:4010/v1`,
    );
  }
  // An IP literal needs no DNS, so a public one over plain http is refused before anything starts.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const problem = isIP(host) ? serviceUrlProblem(url.href, [host]) : null;
  if (problem) throw new ConfigurationError(problem);
  return url.href;
}

function signalOf(opts: CallOptions | undefined): { signal?: AbortSignal } {
  return opts?.signal ? { signal: opts.signal } : {};
}
