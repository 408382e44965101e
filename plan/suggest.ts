/**
 * "Did you mean" hints for misspelt keys, models, enum values, step ids and variables.
 * Edit distance with transpositions (optimal string alignment): swapped letters ("brnad") are
 * the commonest typo and count as one edit. Quadratic, which is fine for a few dozen names.
 */

export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The closest candidate, if it is close enough to be a plausible typo (case is ignored). */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // Short words differ by one letter from too many others for a guess to help; case still counts.
  const tolerance = lower.length <= 2 ? 0 : Math.max(1, Math.floor(lower.length / 3));
  return bestDistance <= tolerance ? best : undefined;
}

/** ` (did you mean "x"?)` or the empty string, ready to append to a message. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** `"a", "b", "c"` */
export function quoteList(values: Iterable<string>): string {
  return [...values].map((value) => `"${value}"`).join(', ');
}
