/**
 * A plan stored in pages, so a worker never loads a whole plan: memory follows the pages it is
 * using, not the plan's size (100,000 jobs are 100 pages of 1,000). Under `plans/<digest>/`:
 *  - `head.json`: everything but the jobs, plus the page size and the job count;
 *  - `pages/<n>.json`: jobs [n × size, (n + 1) × size) as a JSON array;
 *  - `keys/<xx>.json`: job key → index for keys starting with the hex digits `xx` (256 shards),
 *    so a job is found by its key by reading one small object.
 * Written once per digest (content-addressed): a second writer writes the same bytes. The head is
 * written last, so a plan whose head is there is whole.
 *
 * The store knows nothing of the plan's schema: pages are JSON arrays the caller parses.
 */
import pLimit from 'p-limit';
import { z } from 'zod';
import { planPrefix } from './layout.ts';
import type { Store } from './types.ts';

export const PLAN_PAGE_SIZE = 1_000;

export interface PlanHead {
  readonly jobCount: number;
  readonly pageSize: number;
  /** Everything of the plan but its jobs, as the caller gave it. */
  readonly rest: unknown;
}

interface Keyed {
  readonly key: string;
}

const KeyShard = z.record(z.string(), z.number().int().nonnegative());

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const headKey = (digest: string) => `${planPrefix(digest)}head.json`;
const pageKey = (digest: string, page: number) => `${planPrefix(digest)}pages/${page}.json`;
const shardKey = (digest: string, shard: string) => `${planPrefix(digest)}keys/${shard}.json`;

/** The shard of a job key: its first two characters when they are hex digits, else "other". */
function shardOf(key: string): string {
  const start = key.slice(0, 2).toLowerCase();
  return /^[0-9a-f]{2}$/.test(start) ? start : 'other';
}

export async function writePlanPages(
  store: Store,
  digest: string,
  rest: unknown,
  jobs: readonly Keyed[],
  pageSize = PLAN_PAGE_SIZE,
): Promise<void> {
  const writes: Array<() => Promise<void>> = [];
  for (let page = 0; page * pageSize < jobs.length; page++) {
    const slice = jobs.slice(page * pageSize, (page + 1) * pageSize);
    writes.push(() => store.put(pageKey(digest, page), JSON.stringify(slice)));
  }
  const shards = new Map<string, Record<string, number>>();
  jobs.forEach((job, index) => {
    const shard = shardOf(job.key);
    const entries = shards.get(shard) ?? {};
    entries[job.key] = index;
    shards.set(shard, entries);
  });
  for (const [shard, entries] of shards)
    writes.push(() => store.put(shardKey(digest, shard), JSON.stringify(entries)));
  // A few at a time: a bucket answers each PUT in milliseconds, a folder faster still.
  const limit = pLimit(16);
  await Promise.all(writes.map((write) => limit(write)));
  const head: PlanHead = { jobCount: jobs.length, pageSize, rest };
  await store.put(headKey(digest), JSON.stringify(head));
}

/** The head's JSON text, or undefined when no whole plan with this digest is stored. */
export function readPlanHead(store: Store, digest: string): Promise<string | undefined> {
  return store.read(headKey(digest));
}

/** The JSON text of page `page` (an array of jobs), or undefined when it is missing. */
export function readPlanPage(store: Store, digest: string, page: number): Promise<string | undefined> {
  return store.read(pageKey(digest, page));
}

/** The plan index of `key`, or -1 when the plan has no such job. */
export async function readJobIndex(store: Store, digest: string, key: string): Promise<number> {
  const text = await store.read(shardKey(digest, shardOf(key)));
  if (text === undefined) return -1;
  const shard = KeyShard.safeParse(parseJson(text));
  if (!shard.success) throw new Error(`the plan ${digest}'s key index is damaged: ${shard.error.message}`);
  return Object.hasOwn(shard.data, key) ? shard.data[key]! : -1;
}
