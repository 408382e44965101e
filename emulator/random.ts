/**
 * Seeded randomness (mulberry32): with a seed, fault injection and jitter replay exactly, so a
 * drill or a test that sees a failure sees the same failure on every run.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An independent stream per purpose, so turning one knob never shifts another's sequence. */
export function streamFor(seed: number, purpose: string): Random {
  let hash = seed >>> 0;
  for (let i = 0; i < purpose.length; i++) hash = Math.imul(hash ^ purpose.charCodeAt(i), 0x01000193) >>> 0;
  return seededRandom(hash);
}
