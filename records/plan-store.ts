/**
 * Stored plans. `run` writes the plan it starts into the campaign's store, in pages
 * (store/plan-pages.ts: `.mediaflow/plans/<digest>/`, content-addressed); activities read back
 * the pages they need by reference. The workflow carries only the reference, so history stays
 * small for any plan size; a worker's memory holds a few pages, never the whole plan; and a spec
 * edited while its campaign runs cannot change the running campaign under its feet.
 *
 * A reference's `file` is where the plan is: `<output>/.mediaflow/plans/<digest>/` (a folder path
 * or an s3:// URL). Campaigns started before plans had pages refer to one JSON file
 * (`<digest>.json`, a folder path): they are still read, whole, as before.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import type { Micros } from '../api/money.ts';
import type { PlanRef } from '../contract/campaign.ts';
import { Plan, PlannedJob } from '../plan/types.ts';
import {
  openPlan,
  openStore,
  type PagedPlan,
  PlanDamaged,
  planPrefix,
  type Store,
  writePlan,
} from '../store/index.ts';
import { parseJson } from './jsonl.ts';
import { withSubtrees } from './subtrees.ts';

/** Everything of a plan but its jobs. */
export const PlanHead = Plan.unwrap().omit({ jobs: true });
export type PlanHead = z.infer<typeof PlanHead>;

/**
 * Writes the plan, with the service's prices filled in for jobs the catalogue cannot price, so
 * the workflow can commit a price for every job before creating it.
 */
export async function storePlan(
  plan: Plan,
  servicePrices: ReadonlyMap<string, Micros> = new Map(),
  store: Store = openStore(plan.outputDir),
): Promise<PlanRef> {
  const { jobs, ...head } = plan;
  const priced = jobs.map((job) =>
    job.usd === null ? { ...job, usd: servicePrices.get(job.key) ?? null } : job,
  );
  const digest = await writePlan(store, head, withSubtrees(head.steps, priced));
  return {
    file: `${plan.outputDir.replace(/\/+$/, '')}/${planPrefix(digest)}`,
    digest,
    jobCount: jobs.length,
  };
}

export interface LoadedPlan {
  readonly head: PlanHead;
  /** Job `i` of the plan (its page read and checked when not in memory). */
  job(i: number): Promise<PlannedJob>;
  /** Jobs [from, from + count), fewer at the plan's end. */
  jobs(from: number, count: number): Promise<PlannedJob[]>;
  /** The job with this key, or undefined. */
  jobByKey(key: string): Promise<PlannedJob | undefined>;
}

const tampered = (message: string) => ApplicationFailure.nonRetryable(message, 'PLAN_TAMPERED');
const invalid = (ref: PlanRef, error: z.ZodError) => {
  const issue = error.issues[0];
  return ApplicationFailure.nonRetryable(
    `the plan ${ref.file} is not a valid plan (${issue?.path.join('.') || 'top level'}: ${issue?.message})`,
    'PLAN_INVALID',
  );
};

/** Pages of one plan kept in memory at once (8 × 1,000 jobs: a few MB, whatever the plan's size). */
const PAGES_IN_MEMORY = 8;

/** A paged plan: pages parsed on first use, the few most recent kept. */
async function loadPaged(ref: PlanRef, store: Store): Promise<LoadedPlan> {
  let paged: PagedPlan;
  try {
    paged = await openPlan(store, ref.digest);
  } catch (error) {
    if (error instanceof PlanDamaged) throw tampered(error.message);
    throw error;
  }
  const head = PlanHead.safeParse(paged.rest);
  if (!head.success) throw invalid(ref, head.error);
  const pages = new Map<number, Promise<readonly PlannedJob[]>>();
  const pageOf = (n: number): Promise<readonly PlannedJob[]> => {
    let page = pages.get(n);
    if (!page) {
      page = paged.page(n).then((jobs) => {
        const parsed = PlannedJob.array().safeParse(jobs);
        if (!parsed.success) throw invalid(ref, parsed.error);
        return parsed.data;
      }, rethrowDamage);
      page.catch(() => pages.delete(n));
      pages.set(n, page);
      if (pages.size > PAGES_IN_MEMORY) pages.delete(pages.keys().next().value!);
    }
    return page;
  };
  const job = async (i: number) => {
    const found = (await pageOf(Math.floor(i / paged.pageSize)))[i % paged.pageSize];
    if (!found) throw ApplicationFailure.nonRetryable(`the plan ${ref.file} has no job ${i}`, 'PLAN_INVALID');
    return found;
  };
  return {
    head: head.data,
    job,
    async jobs(from, count) {
      const end = Math.min(from + count, paged.jobCount);
      const first = Math.floor(from / paged.pageSize);
      const last = Math.floor((end - 1) / paged.pageSize);
      const wanted: PlannedJob[] = [];
      for (let n = first; n <= last && end > from; n++) wanted.push(...(await pageOf(n)));
      return wanted.slice(from - first * paged.pageSize, end - first * paged.pageSize);
    },
    async jobByKey(key) {
      const i = await paged.indexOf(key).catch(rethrowDamage);
      return i < 0 ? undefined : job(i);
    },
  };
}

function rethrowDamage(error: unknown): never {
  if (error instanceof PlanDamaged) throw tampered(error.message);
  throw error;
}

/** A plan stored whole by an earlier version (one JSON file), read whole as it was then. */
async function loadWhole(ref: PlanRef): Promise<LoadedPlan> {
  const plan = parseStoredPlan(await readFile(ref.file, 'utf8'), ref);
  const index = new Map(plan.jobs.map((job, i) => [job.key, i]));
  const { jobs, ...head } = plan;
  return {
    head,
    job: async (i) => jobs[i]!,
    jobs: async (from, count) => jobs.slice(from, from + count),
    jobByKey: async (key) => jobs[index.get(key) ?? -1],
  };
}

/**
 * A whole stored plan as a worker may trust it: the bytes must hash to the digest the workflow was
 * started with, and the content must match the schema. Either failure is final.
 */
function parseStoredPlan(text: string, ref: PlanRef): Plan {
  if (createHash('sha256').update(text).digest('hex').slice(0, 32) !== ref.digest) {
    throw tampered(
      `the plan ${ref.file} does not match its digest ${ref.digest}: it was changed after the campaign started`,
    );
  }
  const parsed = Plan.safeParse(parseJson(text));
  if (!parsed.success) throw invalid(ref, parsed.error);
  return parsed.data;
}

/** The output location of a paged plan's reference (`<output>/.mediaflow/plans/<digest>/`). */
export function planLocationOf(ref: PlanRef): string {
  const suffix = `/${planPrefix(ref.digest)}`;
  if (!ref.file.endsWith(suffix)) throw new Error(`${ref.file} is not where a plan ${ref.digest} is stored`);
  return ref.file.slice(0, -suffix.length);
}

/** Opens a stored plan afresh (no cache): its head read and checked against the digest. */
export function readPlan(
  ref: PlanRef,
  storeOf: (location: string) => Store = openStore,
): Promise<LoadedPlan> {
  return ref.file.endsWith('.json') ? loadWhole(ref) : loadPaged(ref, storeOf(planLocationOf(ref)));
}

/** Keeps the few plans a worker is running open (each with a few pages in memory). */
export class PlanCache {
  private readonly plans = new Map<string, Promise<LoadedPlan>>();

  private readonly storeOf: (location: string) => Store;
  private readonly capacity: number;

  constructor(storeOf: (location: string) => Store = openStore, capacity = 4) {
    this.storeOf = storeOf;
    this.capacity = capacity;
  }

  get(ref: PlanRef): Promise<LoadedPlan> {
    let loaded = this.plans.get(ref.digest);
    if (!loaded) {
      loaded = readPlan(ref, this.storeOf);
      loaded.catch(() => this.plans.delete(ref.digest));
      this.plans.set(ref.digest, loaded);
      if (this.plans.size > this.capacity) this.plans.delete(this.plans.keys().next().value!);
    }
    return loaded;
  }
}
