/**
 * "Did you mean" hints for misspelt keys, models, enum values, step ids and variables.
 * A plain Levenshtein distance is enough for lists of a few dozen names.
 */

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
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
