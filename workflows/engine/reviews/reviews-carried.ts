/**
 * Review gates carried across continue-as-new, compactly (contract/campaign.ts, CarriedReviews): a
 * gate is eight numbers and its key, so thousands of waiting takes carry in little history.
 * The state they come from and go back to is reviews.ts's (its `carry`).
 */
import type { CarriedReviews } from '../../../contract/campaign.ts';
import type { Gate } from './review-rules.ts';

/**
 * Numbers per gate in CarriedReviews.gates: i, end, step, take, since, flags, usd, belowUsd; flags
 * is 1 when retaking, plus 2 when the take was found recorded (older runs carried 0 or 1), plus 4
 * times the gate's `derived` (older runs carried none: 0).
 */
const GATE_FIELDS = 8;
/** Job keys are 32 hex characters (plan/keys.ts), so they are carried joined, without separators. */
const KEY_LENGTH = 32;

/** The gates a run carried, in their order. */
export function carriedGates(carried: CarriedReviews | undefined): Gate[] {
  const gates: Gate[] = [];
  const numbers = carried?.gates ?? [];
  for (let n = 0; n * GATE_FIELDS < numbers.length; n++) {
    const [i, end, step, take, since, flags, usd, belowUsd] = numbers.slice(
      n * GATE_FIELDS,
      (n + 1) * GATE_FIELDS,
    );
    const key = carried!.keys.slice(n * KEY_LENGTH, (n + 1) * KEY_LENGTH);
    gates.push({
      i: i!,
      key,
      step: step!,
      end: end!,
      usd: usd!,
      belowUsd: belowUsd!,
      take: take!,
      since: since!,
      retaking: (flags! & 1) === 1,
      cached: (flags! & 2) === 2,
      derived: flags! >> 2,
    });
  }
  return gates;
}

/** What to carry: the gates in their order, then what decisions left to read and skip. */
export function carriedOf(
  gates: readonly Gate[],
  rest: Omit<CarriedReviews, 'keys' | 'gates'>,
): CarriedReviews {
  return {
    keys: gates.map((g) => g.key).join(''),
    gates: gates.flatMap((g) => [
      g.i,
      g.end,
      g.step,
      g.take,
      g.since,
      (g.retaking ? 1 : 0) + (g.cached ? 2 : 0) + g.derived * 4,
      g.usd,
      g.belowUsd,
    ]),
    ...rest,
  };
}
