/**
 * Stored plans. `run` writes the plan it starts as a content-addressed JSON file next to the
 * outputs (`<output>/.mediaflow/plans/<digest>.json`); activities read it back by reference. The
 * workflow carries only the reference, so history stays small for any plan size, and a spec
 * edited while its campaign runs cannot change the running campaign under its feet. Workers on
 * other machines need the output folder shared anyway (downloads land there), so they see it too.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import type { Micros } from '../api/money.ts';
import type { PlanRef } from '../contract/campaign.ts';
import { Plan } from '../plan/types.ts';
import { parseJson } from './jsonl.ts';

export function stateDirOf(outputDir: string): string {
  return join(outputDir, '.mediaflow');
}

/**
 * Writes the plan, with the service's prices filled in for jobs the catalogue cannot price, so
 * the workflow can commit a price for every job before creating it.
 */
export async function storePlan(
  plan: Plan,
  servicePrices: ReadonlyMap<string, Micros> = new Map(),
): Promise<PlanRef> {
  const priced: Plan = {
    ...plan,
    jobs: plan.jobs.map((job) =>
      job.usd === null ? { ...job, usd: servicePrices.get(job.key) ?? null } : job,
    ),
  };
  const text = JSON.stringify(priced);
  const digest = digestOf(text);
  const dir = join(stateDirOf(plan.outputDir), 'plans');
  const file = join(dir, `${digest}.json`);
  await mkdir(dir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
  return { file, digest, jobCount: plan.jobs.length };
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/**
 * A stored plan as a worker may trust it: the bytes must hash to the digest the workflow was
 * started with (a plan edited or swapped on the shared folder would run other jobs under this
 * campaign's budget), and the content must match the schema. Either failure is final: retrying
 * reads the same file.
 */
export function parseStoredPlan(text: string, ref: PlanRef): Plan {
  if (digestOf(text) !== ref.digest) {
    throw ApplicationFailure.nonRetryable(
      `the plan ${ref.file} does not match its digest ${ref.digest}: it was changed after the campaign started`,
      'PLAN_TAMPERED',
    );
  }
  const parsed = Plan.safeParse(parseJson(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw ApplicationFailure.nonRetryable(
      `the plan ${ref.file} is not a valid plan (${issue?.path.join('.') || 'top level'}: ${issue?.message})`,
      'PLAN_INVALID',
    );
  }
  return parsed.data;
}

export interface LoadedPlan {
  readonly plan: Plan;
  /** Plan index of a job key (-1 when absent). */
  indexOf(key: string): number;
}

/** Keeps the few plans a worker is running in memory: parsing a 100k-job plan once, not per page. */
export class PlanCache {
  private readonly plans = new Map<string, Promise<LoadedPlan>>();

  constructor(private readonly capacity = 4) {}

  get(ref: PlanRef): Promise<LoadedPlan> {
    let loaded = this.plans.get(ref.digest);
    if (!loaded) {
      loaded = readFile(ref.file, 'utf8').then((text) => {
        const plan = parseStoredPlan(text, ref);
        const index = new Map(plan.jobs.map((job, i) => [job.key, i]));
        return { plan, indexOf: (key: string) => index.get(key) ?? -1 };
      });
      loaded.catch(() => this.plans.delete(ref.digest));
      this.plans.set(ref.digest, loaded);
      if (this.plans.size > this.capacity) this.plans.delete(this.plans.keys().next().value!);
    }
    return loaded;
  }
}
