/**
 * A reviewed derivative's decision, joined to its record for `export --derivatives` (docs/review.md,
 * "Derivatives"). A derivative is decided per take of its parent (its bytes are made again from a
 * new take), so the decision that counts is the one on the parent's latest take; a rejected one is
 * left out of the export, as nothing delivers it, and its file stays where it was made.
 */
import type { DecisionRecord } from '../contract/review.ts';
import type { DerivativeRecord } from './derivatives.ts';

export type ExportedDerivative = DerivativeRecord & { readonly review?: Omit<DecisionRecord, 'key'> };

export function withDecisions(
  records: readonly DerivativeRecord[],
  decisions: ReadonlyMap<string, DecisionRecord>,
  parentTake: (parentKey: string) => number | undefined,
): ExportedDerivative[] {
  return records.flatMap((record) => {
    const decided = decisions.get(`${record.key}.${parentTake(record.parent.key) ?? 0}`);
    if (!decided) return [record];
    if (decided.action === 'reject') return [];
    const { key: _, ...review } = decided;
    return [{ ...record, review }];
  });
}
