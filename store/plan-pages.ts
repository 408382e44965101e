/**
 * A plan stored in pages, so a worker never loads a whole plan: memory follows the pages it is
 * using, not the plan's size (100,000 jobs are 100 pages of 1,000). Under `plans/<digest>/`:
 *  - `pages/<n>.json`: jobs [n × size, (n + 1) × size) as a JSON array;
 *  - `keys/<prefix>.json`: job key → index for the keys starting with `<prefix>`, so a job is
 *    found by its key by reading one small object: no prefix (one shard) up to 1,000 jobs, one
 *    hex digit (16 shards) up to 16,000, two beyond (256); few objects for a small plan, small
 *    ones for a large plan;
 *  - `head.json`: everything but the jobs, the page size, the job count, and the sha256 of every
 *    page and shard. The digest is the head's own hash, so a worker checks the head against the
 *    digest it was started with, and each page or shard it reads against the head: a plan edited
 *    in the folder or bucket is refused, without ever reading all of it.
 * Content-addressed: a second writer of one plan writes the same bytes. The head goes last, so a
 * plan whose head is there is whole.
 *
 * The store knows nothing of the plan's schema: the caller parses what it reads.
 */
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import { z } from 'zod';
import { planPrefix } from './layout.ts';
import type { Store } from './types.ts';

const PLAN_PAGE_SIZE = 1_000;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const PlanHead = z.object({
  jobCount: z.number().int().nonnegative(),
  pageSize: z.number().int().positive(),
  pages: z.array(Sha256),
  shardDigits: z.number().int().min(0).max(2),
  shards: z.record(z.string(), Sha256),
  rest: z.unknown(),
});
type PlanHead = z.infer<typeof PlanHead>;
const KeyShard = z.record(z.string(), z.number().int().nonnegative());
/** Key shards of one plan kept parsed (at most 32 × ~400 keys for the largest plans). */
const SHARDS_IN_MEMORY = 32;

/** The stored plan is missing, or not what its digest says (changed after it was written). */
export class PlanDamaged extends Error {
  override readonly name = 'PlanDamaged';
}

export interface PagedPlan {
  readonly digest: string;
  readonly jobCount: number;
  readonly pageSize: number;
  /** Everything of the plan but its jobs, as the writer gave it (unparsed: the caller's schema). */
  readonly rest: unknown;
  /** Page `n`'s jobs (unparsed), checked against the head. */
  page(n: number): Promise<unknown[]>;
  /** The plan index of `key`, or -1 when the plan has no such job. */
  indexOf(key: string): Promise<number>;
}

interface Keyed {
  readonly key: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const headKey = (digest: string) => `${planPrefix(digest)}head.json`;
const pageKey = (digest: string, page: number) => `${planPrefix(digest)}pages/${page}.json`;
const shardKey = (digest: string, shard: string) => `${planPrefix(digest)}keys/${shard}.json`;

/** Hex digits of the key that name its shard, for a plan of `jobs` jobs. */
function shardDigitsFor(jobs: number): number {
  return jobs <= 1_000 ? 0 : jobs <= 16_000 ? 1 : 2;
}

/** The shard of a job key: its first `digits` characters when they are hex digits, else "other". */
function shardOf(key: string, digits: number): string {
  const start = key.slice(0, digits).toLowerCase();
  return digits === 0 ? 'all' : new RegExp(`^[0-9a-f]{${digits}}$`).test(start) ? start : 'other';
}

/** Writes the plan's pages, key shards and head; returns its digest. */
export async function writePlan(
  store: Store,
  rest: unknown,
  jobs: readonly Keyed[],
  pageSize = PLAN_PAGE_SIZE,
): Promise<string> {
  const pages: string[] = [];
  for (let start = 0; start < jobs.length; start += pageSize) {
    pages.push(JSON.stringify(jobs.slice(start, start + pageSize)));
  }
  const shardDigits = shardDigitsFor(jobs.length);
  const byShard = new Map<string, Record<string, number>>();
  jobs.forEach((job, index) => {
    const shard = shardOf(job.key, shardDigits);
    const entries = byShard.get(shard) ?? (Object.create(null) as Record<string, number>);
    entries[job.key] = index;
    byShard.set(shard, entries);
  });
  const shards = new Map([...byShard].map(([shard, entries]) => [shard, JSON.stringify(entries)]));
  const head: PlanHead = {
    jobCount: jobs.length,
    pageSize,
    pages: pages.map(sha256),
    shardDigits,
    shards: Object.fromEntries([...shards].map(([shard, text]) => [shard, sha256(text)])),
    rest,
  };
  const headText = JSON.stringify(head);
  const digest = sha256(headText).slice(0, 32);
  // A few at a time: a bucket answers each PUT in milliseconds, a folder faster still.
  const limit = pLimit(16);
  await Promise.all([
    ...pages.map((text, n) => limit(() => store.put(pageKey(digest, n), text))),
    ...[...shards].map(([shard, text]) => limit(() => store.put(shardKey(digest, shard), text))),
  ]);
  await store.put(headKey(digest), headText);
  return digest;
}

/** Opens the stored plan `digest`; throws PlanDamaged when it is missing or not what the digest says. */
export async function openPlan(store: Store, digest: string): Promise<PagedPlan> {
  const headText = await store.read(headKey(digest));
  if (headText === undefined) throw new PlanDamaged(`${headKey(digest)} is missing in ${store.location}`);
  if (sha256(headText).slice(0, 32) !== digest) {
    throw new PlanDamaged(
      `the plan ${digest} does not match its digest: it was changed after the campaign started`,
    );
  }
  const head = PlanHead.parse(JSON.parse(headText));
  // Every chained create looks its parent up by key: the shards read last stay parsed.
  const shards = new Map<string, Promise<z.infer<typeof KeyShard>>>();
  const checked = async (key: string, expected: string | undefined): Promise<unknown> => {
    const text = await store.read(key);
    if (text === undefined || expected === undefined || sha256(text) !== expected) {
      throw new PlanDamaged(
        `${key} in ${store.location} is missing or does not match its digest: it was changed after the campaign started`,
      );
    }
    return JSON.parse(text);
  };
  return {
    digest,
    jobCount: head.jobCount,
    pageSize: head.pageSize,
    rest: head.rest,
    async page(n) {
      if (n < 0 || n >= head.pages.length) return [];
      return z.array(z.unknown()).parse(await checked(pageKey(digest, n), head.pages[n]));
    },
    async indexOf(key) {
      const shard = shardOf(key, head.shardDigits);
      if (!Object.hasOwn(head.shards, shard)) return -1;
      let entries = shards.get(shard);
      if (!entries) {
        entries = checked(shardKey(digest, shard), head.shards[shard]).then((json) => KeyShard.parse(json));
        entries.catch(() => shards.delete(shard));
        shards.set(shard, entries);
        if (shards.size > SHARDS_IN_MEMORY) shards.delete(shards.keys().next().value!);
      }
      const index = await entries;
      return Object.hasOwn(index, key) ? index[key]! : -1;
    },
  };
}
