/**
 * Which jobs a command line names: a job name, a key, or a glob over names (`hero-*-v1`).
 * Hand-rolled (`*` any run of characters, `?` one): job names have no slashes, so a path glob
 * library's rules would add nothing, and Node 20's path.matchesGlob is still experimental.
 */

function globPattern(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

/** What a pattern is matched against: a job of a reviewed step, or a reviewed derivative. */
export interface Named {
  readonly key: string;
  readonly name: string;
}

export interface Matched<T extends Named> {
  /** Each matched item once, in plan order. */
  readonly items: readonly T[];
  /** Patterns that matched nothing. */
  readonly unmatched: readonly string[];
}

export function matchJobs<T extends Named>(items: readonly T[], patterns: readonly string[]): Matched<T> {
  const chosen = new Set<T>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const glob = globPattern(pattern);
    const hits = items.filter((item) => item.key === pattern || glob.test(item.name));
    if (hits.length === 0) unmatched.push(pattern);
    for (const hit of hits) chosen.add(hit);
  }
  return { items: items.filter((item) => chosen.has(item)), unmatched };
}
