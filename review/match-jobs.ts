/**
 * Which jobs a command line names: a job name, a key, or a glob over names (`hero-*-v1`).
 * Hand-rolled (`*` any run of characters, `?` one): job names have no slashes, so a path glob
 * library's rules would add nothing, and Node 20's path.matchesGlob is still experimental.
 */
import type { Item } from './model.ts';

function globPattern(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

export interface Matched {
  /** Each matched item once, in plan order. */
  readonly items: readonly Item[];
  /** Patterns that matched nothing. */
  readonly unmatched: readonly string[];
}

export function matchJobs(items: readonly Item[], patterns: readonly string[]): Matched {
  const chosen = new Set<Item>();
  const unmatched: string[] = [];
  for (const pattern of patterns) {
    const glob = globPattern(pattern);
    const hits = items.filter((item) => item.key === pattern || glob.test(item.name));
    if (hits.length === 0) unmatched.push(pattern);
    for (const hit of hits) chosen.add(hit);
  }
  return { items: items.filter((item) => chosen.has(item)), unmatched };
}
