/**
 * What happened, for benchmarks and drills (`GET /_emulator/ledger`): predictions created by model
 * and by idempotency key, credits charged net of refunds, requests by route pattern and status,
 * and refusals. Counters only, so recording stays O(1) per request.
 */
import { formatUsd, type Micros, parseUsd } from '../api/money.ts';

export interface Ledger {
  predictionsCreated: number;
  byModel: Record<string, number>;
  /** n > 1 only when idempotency keys are ignored. */
  byIdempotencyKey: Record<string, number>;
  /** Sum over keys of (n - 1). */
  duplicates: number;
  /** Net of refunds, decimal string. */
  creditsCharged: string;
  /** Route pattern ("POST /v1/{owner}/{model}/predictions") → HTTP status → count. */
  requests: Record<string, Record<string, number>>;
  rateLimited: number;
  failedPredictions: number;
  canceledPredictions: number;
  /** Creates refused by the content policy (nothing created, nothing charged). */
  refusedPrompts: number;
  /** Predictions ended failed with a flagged output (charged, not among failedPredictions). */
  flaggedOutputs: number;
}

export class LedgerRecorder {
  private predictionsCreated = 0;
  private readonly byModel = new Map<string, number>();
  private readonly byIdempotencyKey = new Map<string, number>();
  private duplicates = 0;
  private charged: Micros = 0;
  private readonly requests = new Map<string, Map<number, number>>();
  private rateLimited = 0;
  private failed = 0;
  private canceled = 0;
  private refusedPrompts = 0;
  private flaggedOutputs = 0;

  predictionCreated(label: string, idempotencyKey: string | undefined, price: Micros): void {
    this.predictionsCreated++;
    this.byModel.set(label, (this.byModel.get(label) ?? 0) + 1);
    this.charged += price;
    if (idempotencyKey !== undefined) {
      const seen = this.byIdempotencyKey.get(idempotencyKey) ?? 0;
      if (seen > 0) this.duplicates++;
      this.byIdempotencyKey.set(idempotencyKey, seen + 1);
    }
  }

  refunded(amount: Micros): void {
    this.charged -= amount;
  }

  predictionFailed(): void {
    this.failed++;
  }

  predictionCanceled(): void {
    this.canceled++;
  }

  promptRefused(): void {
    this.refusedPrompts++;
  }

  outputFlagged(): void {
    this.flaggedOutputs++;
  }

  refused(): void {
    this.rateLimited++;
  }

  request(route: string, status: number): void {
    let byStatus = this.requests.get(route);
    if (!byStatus) {
      byStatus = new Map();
      this.requests.set(route, byStatus);
    }
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  /** Carries on from a ledger saved by an earlier run of the emulator (emulator/persistence). */
  restore(saved: Omit<Ledger, 'refusedPrompts' | 'flaggedOutputs'> & Partial<Ledger>): void {
    this.predictionsCreated = saved.predictionsCreated;
    for (const [label, n] of Object.entries(saved.byModel)) this.byModel.set(label, n);
    for (const [key, n] of Object.entries(saved.byIdempotencyKey)) this.byIdempotencyKey.set(key, n);
    this.duplicates = saved.duplicates;
    this.charged = parseUsd(saved.creditsCharged);
    for (const [route, byStatus] of Object.entries(saved.requests)) {
      this.requests.set(route, new Map(Object.entries(byStatus).map(([status, n]) => [Number(status), n])));
    }
    this.rateLimited = saved.rateLimited;
    this.failed = saved.failedPredictions;
    this.canceled = saved.canceledPredictions;
    // Ledgers saved before content refusals have neither.
    this.refusedPrompts = saved.refusedPrompts ?? 0;
    this.flaggedOutputs = saved.flaggedOutputs ?? 0;
  }

  snapshot(): Ledger {
    return {
      predictionsCreated: this.predictionsCreated,
      byModel: Object.fromEntries(this.byModel),
      byIdempotencyKey: Object.fromEntries(this.byIdempotencyKey),
      duplicates: this.duplicates,
      creditsCharged: formatUsd(this.charged),
      requests: Object.fromEntries(
        [...this.requests].map(([route, byStatus]) => [route, Object.fromEntries(byStatus)]),
      ),
      rateLimited: this.rateLimited,
      failedPredictions: this.failed,
      canceledPredictions: this.canceled,
      refusedPrompts: this.refusedPrompts,
      flaggedOutputs: this.flaggedOutputs,
    };
  }
}
