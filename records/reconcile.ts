/**
 * A campaign's records against the service's own account of its predictions (`mediaflow audit`):
 * every prediction the service charged is matched to what the records say it paid for, a take
 * of a job (its manifest line), a refused output (records/refusals.ts), an output paid for and never
 * saved (records/unsaved.ts), or a failure; what the provider should refund is listed; a charge no
 * record explains, and a record the service does not bear out, are mismatches. The records' total
 * is the one every view shows (records/campaign-paid.ts), so a clean audit means `status`,
 * `report` and the service's bill agree to the micro-dollar.
 */
import { formatUsd, type Micros, tryParseUsd } from '../api/money.ts';
import type { Claim } from './claims.ts';
import type { ManifestEntry } from './manifest.ts';
import type { RefusalRecord } from './refusals.ts';
import type { UnsavedRecord } from './unsaved.ts';

/** One prediction as the service reports it; null when it no longer knows it. */
export interface ServicePrediction {
  readonly id: string;
  readonly status: string;
  /** What the service charged for it, net of refunds; null when it does not say. */
  readonly charged: Micros | null;
}

export interface CampaignRecords {
  /** Every recorded take, each its own (Manifest.takes). */
  readonly takes: readonly ManifestEntry[];
  readonly refusals: readonly RefusalRecord[];
  readonly unsaved: readonly UnsavedRecord[];
  /** The predictions the campaign's creates made, by job and take (records/claims.ts). */
  readonly claims: readonly Claim[];
  /** A job key's name in the plan, for the jobs no take names (a failure, an edit since). */
  readonly names: ReadonlyMap<string, string>;
}

/**
 * What explains a charge: `take` a recorded output, `refused` an output the service flagged after
 * charging for it, `unsaved` an output paid for that no run could save, `failed` a prediction the
 * service failed or canceled yet charged, `unexplained` nothing the records hold.
 */
export type ChargeKind = 'take' | 'refused' | 'unsaved' | 'failed' | 'unexplained';

export interface Charge {
  readonly predictionId: string;
  readonly key: string | null;
  readonly name: string | null;
  readonly take: number | null;
  readonly kind: ChargeKind;
  /** The service's figure. */
  readonly charged: Micros;
  /** What the records say was paid for it (0 for a failure or a charge no record explains). */
  readonly recorded: Micros;
}

export interface Reconciliation {
  /** Every prediction the service charged for, first by job then take. */
  readonly charges: readonly Charge[];
  /** What to ask the provider to refund: charged refusals and charged failures. */
  readonly refundable: readonly Charge[];
  /** Each a line: a charge no record explains, a figure that differs, a record the service does not know. */
  readonly mismatches: readonly string[];
  /** Predictions the campaign made that the service still runs: charged, not yet recorded. */
  readonly processing: readonly string[];
  /** Predictions the records name that the service no longer has (past its retention): not verifiable. */
  readonly forgotten: readonly string[];
  /** What the records say the campaign paid, and what the service charged for its predictions. */
  readonly recordedTotal: Micros;
  readonly chargedTotal: Micros;
}

/** Every prediction the records name, for the caller to look up on the service. */
export function predictionsNamed(records: CampaignRecords): string[] {
  const ids = new Set<string>();
  for (const claim of records.claims) ids.add(claim.prediction_id);
  for (const take of records.takes) ids.add(take.prediction_id);
  for (const refusal of records.refusals) if (refusal.prediction_id) ids.add(refusal.prediction_id);
  for (const unsaved of records.unsaved) ids.add(unsaved.prediction_id);
  return [...ids].sort();
}

const usd = (value: string | null) => tryParseUsd(value) ?? 0;

export function reconcile(
  records: CampaignRecords,
  service: ReadonlyMap<string, ServicePrediction | null>,
): Reconciliation {
  const takes = new Map(records.takes.map((entry) => [entry.prediction_id, entry]));
  const refused = new Map(
    records.refusals.flatMap((refusal) => (refusal.prediction_id ? [[refusal.prediction_id, refusal]] : [])),
  );
  const unsaved = new Map(records.unsaved.map((record) => [record.prediction_id, record]));
  const claims = new Map(records.claims.map((claim) => [claim.prediction_id, claim]));
  const charges: Charge[] = [];
  const mismatches: string[] = [];
  const processing: string[] = [];
  const forgotten: string[] = [];
  let recordedTotal = 0;
  let chargedTotal = 0;

  for (const id of predictionsNamed(records)) {
    const take = takes.get(id);
    const refusal = take ? undefined : refused.get(id);
    // A take saved later pays for its output once: an unsaved record of it no longer counts.
    const lost = take ? undefined : unsaved.get(id);
    const key = take?.key ?? refusal?.key ?? lost?.key ?? claims.get(id)?.key ?? null;
    const name = take?.name ?? (key === null ? null : (records.names.get(key) ?? null));
    const takeNo = take?.regenerations ?? refusal?.take ?? lost?.take ?? claims.get(id)?.regen ?? null;
    const recorded = take
      ? usd(take.credits_used)
      : refusal
        ? usd(refusal.credits_used)
        : lost
          ? usd(lost.credits_used)
          : 0;
    recordedTotal += recorded;
    const what = `${name ?? key ?? 'no job'}${takeNo === null ? '' : ` take ${takeNo}`} (${id})`;
    const found = service.get(id) ?? null;
    if (found === null) {
      forgotten.push(id);
      // Unverifiable, not wrong: the records' figure stands in for the service's.
      chargedTotal += recorded;
      continue;
    }
    const charged = found.charged ?? 0;
    chargedTotal += charged;
    if (found.status === 'processing' && !take) {
      processing.push(id);
      continue;
    }
    const kind: ChargeKind = take
      ? 'take'
      : refusal
        ? 'refused'
        : lost
          ? 'unsaved'
          : found.status === 'failed' || found.status === 'canceled'
            ? 'failed'
            : 'unexplained';
    if (charged === 0 && recorded === 0 && kind !== 'take') continue;
    charges.push({ predictionId: id, key, name, take: takeNo, kind, charged, recorded });
    if (kind === 'unexplained') mismatches.push(`${what}: charged by the service, no record explains it`);
    else if (kind !== 'failed' && charged !== recorded)
      mismatches.push(
        `${what}: the records say $${formatUsd(recorded)}, the service charged $${formatUsd(charged)}`,
      );
  }
  charges.sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || (a.take ?? 0) - (b.take ?? 0));
  return {
    charges,
    refundable: charges.filter((charge) => charge.kind === 'refused' || charge.kind === 'failed'),
    mismatches,
    processing,
    forgotten,
    recordedTotal,
    chargedTotal,
  };
}
