/**
 * One prediction as the emulator keeps it, and its wire record (service-spec.md part 2.2).
 * Choices where the spec is silent: `output_data.urls` is empty until the prediction succeeds;
 * `credits_used` is the price charged, and "0.00" once a failure or cancel refunded it.
 */
import type { ModelLabel } from '../../api/catalogue/index.ts';
import { formatUsd, type Micros } from '../../api/money.ts';
import type { KnownStatus, PredictionRecord } from '../../api/wire/index.ts';

export interface StoredPrediction {
  readonly id: number;
  readonly label: ModelLabel;
  readonly owner: string;
  readonly modelSegment: string;
  /** The input exactly as sent (after validation, which only strips nothing: schemas are strict). */
  readonly input: Readonly<Record<string, unknown>>;
  readonly price: Micros;
  readonly keyId: string;
  readonly idempotencyKey: string | undefined;
  /** Model + input, to tell a replay of the same body from a reused key. */
  readonly fingerprint: string;
  readonly createdAt: string;
  /** Decided at creation from the seeded fault stream, so runs replay exactly. */
  readonly willFail: boolean;
  /** Its output will be flagged by the content policy (predictions/refusals.ts): failed, charged. */
  readonly willFlag: boolean;
  readonly upstreamId: string | undefined;
  status: KnownStatus;
  creditsUsed: Micros;
  updatedAt: string;
  outputs: string[];
  error: { code: string; message: string } | undefined;
}

export function fingerprintOf(label: ModelLabel, input: Readonly<Record<string, unknown>>): string {
  return JSON.stringify([
    label,
    ...Object.keys(input)
      .sort()
      .map((key) => [key, input[key]]),
  ]);
}

/**
 * `links`: the links as issued now (media/links.ts), when the route issues them; else the stored
 * ones (batch answers, search results, webhooks).
 */
export function predictionToWire(prediction: StoredPrediction, links?: readonly string[]): PredictionRecord {
  return {
    id: prediction.id,
    user_id: 'user_emulator',
    model: prediction.owner,
    model_version: prediction.modelSegment,
    input_parameters: prediction.input as Record<string, unknown>,
    output_data: { urls: [...(links ?? prediction.outputs)] },
    status: prediction.status,
    credits_used: formatUsd(prediction.creditsUsed),
    created_at: prediction.createdAt,
    updated_at: prediction.updatedAt,
    ...(prediction.upstreamId !== undefined ? { upstream_id: prediction.upstreamId } : {}),
    ...(prediction.error ? { error: prediction.error } : {}),
  };
}
