/**
 * The 25 endpoints of service-spec.md part 4.1, each as one client call, so the error paths that
 * every endpoint shares (401, 429) are checked on all of them from one table.
 */
import type { ServiceClient } from '../../../api/client/index.ts';
import { collect, freshKey } from './harness.ts';

/** Existing resources the calls refer to. */
export interface Ids {
  readonly prediction: string;
  readonly batch: string;
  readonly file: string;
  readonly apiKey: string;
}

export interface Endpoint {
  readonly name: string;
  readonly call: (client: ServiceClient, ids: Ids) => Promise<unknown>;
  /** Health needs no key and has no rate limit, so monitors can always probe it (emulator choice). */
  readonly public?: boolean;
}

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);

export const ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'POST /v1/{owner}/{model}/predictions',
    call: (c) => c.predictions.create('I4', { prompt: 'a lamp' }, { idempotencyKey: freshKey() }),
  },
  { name: 'GET /v1/predictions/:id', call: (c, ids) => c.predictions.get(ids.prediction) },
  { name: 'GET /v1/predictions/:id/stream', call: (c, ids) => collect(c.predictions.stream(ids.prediction)) },
  { name: 'POST /v1/predictions/:id/cancel', call: (c, ids) => c.predictions.cancel(ids.prediction) },
  {
    name: 'POST /v1/predictions/batch',
    call: (c) => c.batches.create([{ model: 'I4', input: { prompt: 'a lamp' }, idempotencyKey: freshKey() }]),
  },
  { name: 'GET /v1/predictions/batch/:id', call: (c, ids) => c.batches.get(ids.batch) },
  { name: 'GET /v1/models', call: (c) => collect(c.models.list()) },
  { name: 'GET /v1/models/:id', call: (c) => c.models.get('I1') },
  {
    name: 'POST /v1/files',
    call: (c) => c.files.upload({ filename: 'a.png', contentType: 'image/png', data: png }),
  },
  { name: 'GET /v1/files', call: (c) => collect(c.files.list()) },
  { name: 'GET /v1/files/:id', call: (c, ids) => c.files.get(ids.file) },
  { name: 'DELETE /v1/files/:id', call: (c, ids) => c.files.delete(ids.file) },
  { name: 'POST /v1/webhooks', call: (c) => c.webhooks.create({ url: 'http://127.0.0.1:9/hooks' }) },
  { name: 'GET /v1/webhooks', call: (c) => collect(c.webhooks.list()) },
  { name: 'GET /v1/account', call: (c) => c.account.get() },
  { name: 'GET /v1/account/balance', call: (c) => c.account.balance() },
  { name: 'GET /v1/account/usage', call: (c) => c.account.usage() },
  { name: 'GET /v1/account/rate-limits', call: (c) => c.account.rateLimits() },
  { name: 'GET /v1/api-keys', call: (c) => collect(c.apiKeys.list()) },
  { name: 'POST /v1/api-keys', call: (c) => c.apiKeys.create('contract') },
  { name: 'DELETE /v1/api-keys/:id', call: (c, ids) => c.apiKeys.delete(ids.apiKey) },
  { name: 'POST /v1/api-keys/:id/rotate', call: (c, ids) => c.apiKeys.rotate(ids.apiKey) },
  { name: 'GET /v1/health', call: (c) => c.health(), public: true },
  { name: 'POST /v1/estimate', call: (c) => c.estimate('I1', { prompt: 'a lamp' }) },
  { name: 'GET /v1/search', call: (c) => collect(c.search('lamp')) },
];
