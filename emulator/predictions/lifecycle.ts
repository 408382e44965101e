/**
 * Moves predictions through `processing` → `succeeded` | `failed` | `canceled` and tells whoever
 * listens (SSE streams, webhooks). Settling a prediction frees its in-flight slot, and a failed
 * or canceled one is refunded in full.
 */
import { MODELS } from '../../api/catalogue/index.ts';
import type { KnownStatus } from '../../api/wire/index.ts';
import type { CreditAccount } from '../billing/account.ts';
import { ApiError } from '../http/errors.ts';
import type { LedgerRecorder } from '../ledger.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import type { StoredPrediction } from './prediction.ts';
import { FLAGGED_OUTPUT } from './refusals.ts';

export type PredictionListener = (prediction: StoredPrediction) => void;

export interface LifecycleDeps {
  readonly account: CreditAccount;
  readonly limiter: RateLimiter;
  readonly ledger: LedgerRecorder;
  readonly cdnUrl: () => string;
  /** Called on every terminal transition (webhook deliveries). */
  readonly onSettled: PredictionListener;
}

/** Failure messages a user of a real service meets; chosen by id so a seeded run replays. */
const FAILURES = [
  // Not a content refusal (those are refusals.ts's, and charged): a failure retrying may fix.
  { code: 'GENERATION_FAILED', message: 'the model produced no output for this input; retrying may succeed' },
  {
    code: 'UPSTREAM_ERROR',
    message: 'the model provider failed to generate this output; retrying may succeed',
  },
] as const;

export class Lifecycle {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  /** When each processing prediction ends (epoch ms), so a restarted emulator keeps its timing. */
  private readonly due = new Map<number, number>();
  private readonly listeners = new Map<number, Set<PredictionListener>>();

  private readonly deps: LifecycleDeps;

  constructor(deps: LifecycleDeps) {
    this.deps = deps;
  }

  start(prediction: StoredPrediction, latencyMs: number): void {
    this.resume(prediction, Date.now() + latencyMs);
  }

  /** Starts (or, after a restart, carries on) the clock of a processing prediction. */
  resume(prediction: StoredPrediction, dueAt: number): void {
    const timer = setTimeout(() => this.finish(prediction), Math.max(0, dueAt - Date.now()));
    this.timers.set(prediction.id, timer);
    this.due.set(prediction.id, dueAt);
  }

  /** When a processing prediction ends; undefined once it has settled. */
  dueAt(id: number): number | undefined {
    return this.due.get(id);
  }

  cancel(prediction: StoredPrediction): void {
    if (prediction.status !== 'processing') {
      throw new ApiError(
        'NOT_CANCELABLE',
        `prediction ${prediction.id} is ${prediction.status}; only a processing prediction can be canceled`,
      );
    }
    this.settle(prediction, 'canceled');
  }

  /** Calls `listener` on every change of this prediction; returns the unsubscribe function. */
  subscribe(id: number, listener: PredictionListener): () => void {
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(id);
    };
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private finish(prediction: StoredPrediction): void {
    if (prediction.willFlag) {
      // The model ran: the flagged output is charged in full (docs/service-assumptions.md).
      prediction.error = { ...FLAGGED_OUTPUT };
      this.settle(prediction, 'failed', { charged: true });
      return;
    }
    if (prediction.willFail) {
      prediction.error = { ...FAILURES[prediction.id % FAILURES.length]! };
      this.settle(prediction, 'failed');
      return;
    }
    const extension = MODELS[prediction.label].kind === 'video' ? 'mp4' : 'png';
    prediction.outputs = [`${this.deps.cdnUrl()}/outputs/${prediction.id}.${extension}`];
    this.settle(prediction, 'succeeded');
  }

  private settle(
    prediction: StoredPrediction,
    status: Exclude<KnownStatus, 'processing'>,
    { charged = false } = {},
  ): void {
    const { account, limiter, ledger } = this.deps;
    clearTimeout(this.timers.get(prediction.id));
    this.timers.delete(prediction.id);
    this.due.delete(prediction.id);
    prediction.status = status;
    prediction.updatedAt = new Date().toISOString();
    limiter.releaseInFlight(prediction.keyId);
    if (charged) ledger.outputFlagged();
    else if (status !== 'succeeded') {
      account.refund(prediction.label, prediction.creditsUsed);
      ledger.refunded(prediction.creditsUsed);
      prediction.creditsUsed = 0;
      if (status === 'failed') ledger.predictionFailed();
      else ledger.predictionCanceled();
    }
    for (const listener of this.listeners.get(prediction.id) ?? []) listener(prediction);
    this.deps.onSettled(prediction);
  }
}
