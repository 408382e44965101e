/**
 * Creating a prediction, shared by the single and the batch endpoint: validate the input, honour
 * the idempotency key, check credits and the in-flight limit, charge, and start the clock.
 * Synchronous from end to end, so two concurrent requests with the same key cannot both create.
 */
import type { ModelLabel, ModelPaths } from '../../api/catalogue/index.ts';
import { formatUsd } from '../../api/money.ts';
import type { CreditAccount } from '../billing/account.ts';
import { priceOf } from '../billing/prices.ts';
import type { FaultInjector } from '../faults.ts';
import { ApiError } from '../http/errors.ts';
import { checkInputOrThrow } from '../http/validate.ts';
import type { LedgerRecorder } from '../ledger.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { Random } from '../random.ts';
import { type LatencySettings, latencyOf } from './latency.ts';
import type { Lifecycle } from './lifecycle.ts';
import { fingerprintOf, type StoredPrediction } from './prediction.ts';
import { checkPrompt, type OutputFlags } from './refusals.ts';
import type { PredictionStore } from './store.ts';

export interface CreateRequest {
  readonly keyId: string;
  readonly label: ModelLabel;
  readonly input: unknown;
  readonly idempotencyKey: string | undefined;
}

export interface CreatorDeps {
  readonly store: PredictionStore;
  readonly lifecycle: Lifecycle;
  readonly account: CreditAccount;
  readonly limiter: RateLimiter;
  readonly ledger: LedgerRecorder;
  readonly faults: FaultInjector;
  /** The content policy's verdict on outputs (refusals.ts). */
  readonly flags: OutputFlags;
  readonly paths: ModelPaths;
  readonly latency: LatencySettings;
  readonly jitter: Random;
  /** Read on every create: drills switch it at run time. */
  readonly ignoreIdempotency: () => boolean;
}

export function checkIdempotencyKey(key: string | undefined, param: string): string | undefined {
  if (key !== undefined && (key.length < 1 || key.length > 255)) {
    throw new ApiError('INVALID_PARAMETER', `${param} must be 1 to 255 characters`, { param });
  }
  return key;
}

export function createPrediction(deps: CreatorDeps, request: CreateRequest): StoredPrediction {
  const { store, account, limiter, ledger, paths } = deps;
  const { label, keyId, idempotencyKey } = request;
  const input = checkInputOrThrow(label, request.input);
  const fingerprint = fingerprintOf(label, input);
  const honourKey = idempotencyKey !== undefined && !deps.ignoreIdempotency();
  if (honourKey) {
    const earlier = store.byKey(idempotencyKey);
    if (earlier) {
      if (earlier.fingerprint === fingerprint) return earlier;
      throw new ApiError(
        'IDEMPOTENCY_KEY_REUSED',
        `Idempotency-Key was already used for prediction ${earlier.id} with a different model or input`,
        { param: 'Idempotency-Key' },
      );
    }
  }
  // A replayed key got its prediction above; a refused prompt creates nothing and costs nothing.
  try {
    checkPrompt(label, input, deps.faults);
  } catch (error) {
    ledger.promptRefused();
    throw error;
  }
  const price = priceOf(label, input);
  if (!account.canPay(price)) {
    throw new ApiError(
      'INSUFFICIENT_CREDITS',
      `this prediction costs ${formatUsd(price)} credits; the balance is ${formatUsd(account.available())}`,
    );
  }
  limiter.reserveInFlight(keyId);
  const id = store.nextId();
  const now = new Date().toISOString();
  const { owner, model } = paths.pathOf(label);
  const prediction: StoredPrediction = {
    id,
    label,
    owner,
    modelSegment: model,
    input,
    price,
    keyId,
    idempotencyKey,
    fingerprint,
    createdAt: now,
    willFail: deps.faults.hit('failRate'),
    willFlag: deps.flags.willFlag(fingerprint, input, deps.faults),
    upstreamId: label === 'I2' ? `up_${id.toString(36).padStart(8, '0')}` : undefined,
    status: 'processing',
    creditsUsed: price,
    updatedAt: now,
    outputs: [],
    error: undefined,
  };
  account.charge(label, price);
  store.add(prediction, honourKey);
  ledger.predictionCreated(label, idempotencyKey, price);
  deps.lifecycle.start(prediction, latencyOf(label, deps.latency, deps.jitter));
  return prediction;
}
