/**
 * How the rate governor splits one API key's limits between the campaigns on it: a pure rule,
 * tested as a table (test/engine/governor-shares.test.ts).
 *
 * Both limits are split by weight with water-filling (weighted max-min fairness): a campaign
 * that cannot use its fair part (its concurrency is lower) keeps what it can use, and the rest
 * goes to the others in proportion to their weights. The create rate is capped by what a
 * campaign reported it can use (its concurrency over its latency, known once it has run a while),
 * the in-flight limit by its concurrency, and split in whole predictions.
 *
 * Priority (spec `priority:`, absent 0) comes before weight: the campaigns of the highest priority
 * are served first, by weight among themselves, and what they cannot use goes to the next
 * priority down. A campaign left nothing keeps a trickle (one prediction in flight, 1 % of the
 * rate), so it stays alive and reads its share as soon as the others leave. With every priority
 * equal this is the plain weighted split, as before priorities existed.
 */
import type { ServiceLimits } from '../../../contract/campaign.ts';
import type { Claim } from '../../../contract/governor-messages.ts';

/** Each campaign's share of `limits`, by campaign id; sorted by id, so join order never matters. */
export function sharesOf(limits: ServiceLimits, claims: readonly Claim[]): Map<string, ServiceLimits> {
  const sorted = claims
    .map(sane)
    .sort((a, b) => (a.campaign < b.campaign ? -1 : a.campaign > b.campaign ? 1 : 0));
  const rates = byPriority(
    limits.createsPerSecond,
    sorted.map((c) => ({
      weight: c.weight,
      cap: c.perSecond ?? Number.POSITIVE_INFINITY,
      priority: c.priority ?? 0,
    })),
  ).map((rate) => (rate > 0 ? rate : limits.createsPerSecond * TRICKLE));
  const inFlight = wholeParts(
    limits.maxInFlight,
    byPriority(
      limits.maxInFlight,
      sorted.map((c) => ({ weight: c.weight, cap: c.wants, priority: c.priority ?? 0 })),
    ),
  );
  return new Map(
    sorted.map((c, i) => [
      c.campaign,
      // A campaign always keeps one prediction in flight: with more campaigns than the service
      // allows in flight, the service's own 429s share out the rest.
      { createsPerSecond: rates[i] ?? 0, maxInFlight: Math.max(1, inFlight[i] ?? 0) },
    ]),
  );
}

/**
 * A claim arrives in a signal: one that makes no sense (a weight or cap that is not a positive
 * number) counts as the plain claim, never as NaN in every campaign's share.
 */
function sane(claim: Claim): Claim {
  const positive = (n: number | undefined) => n !== undefined && Number.isFinite(n) && n > 0;
  return {
    campaign: claim.campaign,
    weight: positive(claim.weight) ? claim.weight : 1,
    wants: positive(claim.wants) ? claim.wants : 1,
    ...(positive(claim.perSecond) && { perSecond: claim.perSecond }),
    ...(Number.isFinite(claim.priority) && { priority: claim.priority }),
  };
}

/** The part of the rate a campaign that higher priorities leave nothing keeps. */
const TRICKLE = 0.01;

/** Water-filling by priority: the highest first, each level sharing what the levels above left. */
export function byPriority(
  total: number,
  claims: readonly { weight: number; cap: number; priority: number }[],
): number[] {
  const parts = claims.map(() => 0);
  let left = total;
  const levels = [...new Set(claims.map((c) => c.priority))].sort((a, b) => b - a);
  for (const level of levels) {
    const members = claims.flatMap((c, i) => (c.priority === level ? [i] : []));
    const got = waterFill(
      left,
      members.map((i) => claims[i]!),
    );
    members.forEach((i, k) => {
      parts[i] = got[k] ?? 0;
      left -= got[k] ?? 0;
    });
  }
  return parts;
}

/**
 * Weighted max-min fair split of `total`: claims are served in order of cap per weight, each
 * getting the smaller of its cap and its weight's part of what is left.
 */
export function waterFill(total: number, claims: readonly { weight: number; cap: number }[]): number[] {
  const order = claims.map((_, i) => i).sort((a, b) => ratio(claims[a]) - ratio(claims[b]) || a - b);
  const parts = claims.map(() => 0);
  let left = total;
  let weights = claims.reduce((sum, c) => sum + c.weight, 0);
  for (const i of order) {
    const { weight, cap } = claims[i] ?? { weight: 0, cap: 0 };
    const part = weights > 0 ? Math.min(cap, (left * weight) / weights) : 0;
    parts[i] = part;
    left -= part;
    weights -= weight;
  }
  return parts;
}

function ratio(claim: { weight: number; cap: number } | undefined): number {
  return claim ? claim.cap / claim.weight : 0;
}

/**
 * Whole numbers summing to at most `total` (largest remainders first, ties to the earlier claim),
 * never above a part's ceiling: predictions in flight are counted one by one.
 */
export function wholeParts(total: number, parts: readonly number[]): number[] {
  const whole = parts.map((p) => Math.floor(p + 1e-9));
  let spare = Math.floor(total + 1e-9) - whole.reduce((sum, w) => sum + w, 0);
  const byRemainder = parts
    .map((p, i) => ({ i, rest: p - (whole[i] ?? 0) }))
    .filter((r) => r.rest > 1e-9)
    .sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of byRemainder) {
    if (spare <= 0) break;
    whole[i] = (whole[i] ?? 0) + 1;
    spare--;
  }
  return whole;
}
