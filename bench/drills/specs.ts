/**
 * The campaigns the drills run. Pairs: `n` I4 stills, each animated by a V6 clip ($0.63 a pair),
 * the chained shape where a lost or duplicated parent shows up in its child. Retries differ per
 * step on purpose: stills never regenerate, so a failed still is reported failed and its clip
 * skipped; clips regenerate once, so regenerations happen and are counted.
 */

export interface PairsSpec {
  pairs: number;
  concurrency: number;
  budgetUsd: number;
}

export function pairsSpec({ pairs, concurrency, budgetUsd }: PairsSpec): string {
  return `
version: 1
campaign: drill-pairs
budget: { max_usd: ${budgetUsd} }
concurrency: ${concurrency}
output: { dir: out }
steps:
  - id: still
    model: I4
    retries: 0
    matrix: { product: [${numbered('p', pairs)}] }
    input: { prompt: "Studio shot of product {{product}}" }
  - id: clip
    model: V6
    from: still
    retries: 1
    input: { prompt: "Product {{product}} turning slowly", first_frame_image: "{{from.output}}" }
`;
}

/** `n` independent I4 stills: the workload where only pacing matters. */
export function stillsSpec({ jobs, concurrency }: { jobs: number; concurrency: number }): string {
  return `
version: 1
campaign: drill-stills
concurrency: ${concurrency}
output: { dir: out }
steps:
  - id: still
    model: I4
    matrix: { item: [${numbered('s', jobs)}] }
    input: { prompt: "Catalogue still {{item}}" }
`;
}

function numbered(prefix: string, n: number): string {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(', ');
}

/** Price of one pair (I4 $0.03 + V6 $0.60). */
export const PAIR_USD = 0.63;

/**
 * The `upgrade` drill's campaign: three reviewed hero stills (I1), each animated by a V4 clip
 * once approved, beside `pairs` unreviewed I4 stills each animated by a V6 clip (the bulk that is
 * in flight when the older engine is stopped). Distinct models, so the ledger tells the chains apart.
 */
export function reviewedPairsSpec({ pairs, concurrency, budgetUsd }: PairsSpec): string {
  return `
version: 1
campaign: drill-upgrade
budget: { max_usd: ${budgetUsd} }
concurrency: ${concurrency}
output: { dir: out }
steps:
  - id: hero
    model: I1
    review: true
    matrix: { product: [${HEROES.join(', ')}] }
    input: { prompt: "Acme {{product}} on oak", aspect_ratio: "16:9" }
  - id: hero_clip
    model: V4
    from: hero
    input: { prompt: "Slow orbit around the {{product}}", start_image: "{{from.output}}", duration: "5" }
  - id: still
    model: I4
    matrix: { product: [${numbered('p', pairs)}] }
    input: { prompt: "Studio shot of product {{product}}" }
  - id: clip
    model: V6
    from: still
    input: { prompt: "Product {{product}} turning slowly", first_frame_image: "{{from.output}}" }
`;
}

/** The reviewed stills of reviewedPairsSpec: two approved by the older engine, one by this one. */
export const HEROES = ['kettle', 'lamp', 'watch'] as const;

/** Price of one hero pair (I1 $0.12 + V4 5 s standard $0.25). */
export const HERO_PAIR_USD = 0.37;
